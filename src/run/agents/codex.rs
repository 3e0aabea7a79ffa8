//! The Codex runner: `codex exec --json` for the first turn, then `codex exec --json resume
//! <thread id>` for every later one, so the conversation continues in the same thread. Each
//! turn is a fresh process through the case's `CommandFactory` (inside the sandbox).
//!
//! `CODEX_HOME` is the case's own (`$HOME/.codex`): the emitted config.toml is written there
//! before the first turn, and Codex keeps its threads there, which `resume` needs.

use futures::future::BoxFuture;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::run::agents::codex_events::{CODEX_END, parse_codex_events};
use crate::run::agents::runner::{AgentRunner, RunnerError, TurnOutput};
use crate::run::agents::turn_stream::{finish_turn, run_turn_command};
use crate::run::environment::spawn::{CommandFactory, CommandSpec};

/// Where things are, as the agent host sees them (and the host, for the config file).
#[derive(Debug, Clone)]
pub(crate) struct CodexSetup {
    pub(crate) binary: String,
    /// Extra arguments after `exec` on every turn (`hosts.codex.args`).
    pub(crate) args: Vec<String>,
    /// The case's HOME inside, and the same folder on the host.
    pub(crate) home: String,
    pub(crate) home_host: PathBuf,
    pub(crate) workdir: String,
    /// The emitted config.toml.
    pub(crate) config_toml: String,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) turn_timeout: Duration,
}

pub(crate) struct CodexRunner {
    factory: Arc<dyn CommandFactory>,
    setup: CodexSetup,
    thread: Option<String>,
    config_written: bool,
}

impl CodexRunner {
    pub(crate) fn new(factory: Arc<dyn CommandFactory>, setup: CodexSetup) -> Self {
        CodexRunner {
            factory,
            setup,
            thread: None,
            config_written: false,
        }
    }

    /// The argv of one turn; the message is the last argument.
    pub(crate) fn argv(&self, message: &str) -> Vec<String> {
        let s = &self.setup;
        let mut argv = vec![
            s.binary.clone(),
            "exec".into(),
            "--json".into(),
            "--skip-git-repo-check".into(),
        ];
        argv.extend(s.args.iter().cloned());
        if let Some(id) = &self.thread {
            argv.extend(["resume".into(), id.clone()]);
        }
        argv.push(message.to_string());
        argv
    }

    pub(crate) fn env(&self) -> Vec<(String, String)> {
        let h = &self.setup.home;
        let mut env = vec![
            ("HOME".to_string(), h.clone()),
            ("CODEX_HOME".into(), format!("{h}/.codex")),
            ("TMPDIR".into(), format!("{h}/tmp")),
        ];
        env.extend(self.setup.env.iter().cloned());
        env
    }

    /// Writes `$CODEX_HOME/config.toml` (and the folders Codex writes into), owned like the
    /// case's HOME so the sandboxed agent can use them.
    fn write_config(&self) -> std::io::Result<()> {
        let home = &self.setup.home_host;
        let codex_home = home.join(".codex");
        std::fs::create_dir_all(&codex_home)?;
        std::fs::create_dir_all(home.join("tmp"))?;
        crate::util::write_atomic(&codex_home.join("config.toml"), self.setup.config_toml.as_bytes())?;
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(home)?;
        for p in [codex_home.clone(), codex_home.join("config.toml"), home.join("tmp")] {
            std::os::unix::fs::lchown(&p, Some(meta.uid()), Some(meta.gid()))?;
        }
        Ok(())
    }
}

impl AgentRunner for CodexRunner {
    fn label(&self) -> String {
        "codex (exec --json, resume by thread id)".into()
    }

    fn turn<'a>(&'a mut self, _turn: u32, message: &'a str) -> BoxFuture<'a, Result<TurnOutput, RunnerError>> {
        Box::pin(async move {
            if !self.config_written {
                self.write_config()
                    .map_err(|e| RunnerError::Start(format!("cannot write the Codex config: {e}")))?;
                self.config_written = true;
            }
            let spec = CommandSpec {
                argv: self.argv(message),
                env: self.env(),
                workdir: Some(self.setup.workdir.clone()),
            };
            let done = run_turn_command(self.factory.as_ref(), &spec, self.setup.turn_timeout).await?;
            let parsed = parse_codex_events(&done.stdout);
            match (&self.thread, &parsed.thread_id) {
                (None, Some(id)) => self.thread = Some(id.clone()),
                // A resumed turn that reports another thread lost the conversation.
                (Some(ours), Some(theirs)) if ours != theirs => {
                    return Err(RunnerError::Protocol(format!(
                        "codex resumed thread {theirs}, not {ours}: the conversation was lost"
                    )));
                }
                _ => {}
            }
            let spoke = parsed.stream.error.is_some() || parsed.stream.ended;
            let out = finish_turn(&done, parsed.stream, spoke, CODEX_END)?;
            if self.thread.is_none() {
                return Err(RunnerError::Protocol(
                    "codex reported no thread id (`thread.started`)".into(),
                ));
            }
            Ok(out)
        })
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}
