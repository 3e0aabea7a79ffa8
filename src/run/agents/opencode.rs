//! The OpenCode runner: `opencode run --format json` once per turn, with an explicit
//! `--session` and `--agent` every time, inside whatever boundary the `CommandFactory` gives.
//!
//! Its HOME and XDG folders are the session's own (OpenCode writes state there from the first
//! call), the models catalogue fetch is off, the job's emitted config is the only config, and
//! stdin is /dev/null (OpenCode appends a non-TTY stdin to the prompt).

use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

use crate::run::agents::opencode_events::{OPENCODE_END, parse_opencode_events};
use crate::run::agents::runner::{AgentRunner, RunnerError, TurnOutput};
use crate::run::agents::turn_stream::{finish_turn, run_turn_command};
use crate::run::environment::spawn::{CommandFactory, CommandSpec};

/// Where things are, as the agent host sees them.
#[derive(Debug, Clone)]
pub(crate) struct OpencodeSetup {
    /// The `opencode` binary.
    pub(crate) binary: String,
    /// The emitted opencode.json.
    pub(crate) config: String,
    /// A private, writable HOME for this session.
    pub(crate) home: String,
    /// The workspace copy the agent works in.
    pub(crate) workdir: String,
    pub(crate) agent: Option<String>,
    pub(crate) model: Option<String>,
    /// Credential values the user opted into; environment only.
    pub(crate) env: Vec<(String, String)>,
    pub(crate) turn_timeout: Duration,
}

pub(crate) struct OpencodeRunner {
    factory: Arc<dyn CommandFactory>,
    setup: OpencodeSetup,
    session: Option<String>,
}

impl OpencodeRunner {
    pub(crate) fn new(factory: Arc<dyn CommandFactory>, setup: OpencodeSetup) -> Self {
        OpencodeRunner {
            factory,
            setup,
            session: None,
        }
    }

    /// The argv of one turn; the message is the last argument.
    pub(crate) fn argv(&self, message: &str) -> Vec<String> {
        let mut argv = vec![self.setup.binary.clone(), "run".into()];
        argv.extend(self.run_flags(message));
        argv
    }

    /// The setup this runner was made with.
    pub(crate) fn setup(&self) -> &OpencodeSetup {
        &self.setup
    }

    /// What follows `opencode run` on every turn, in cold and warm mode alike.
    pub(crate) fn run_flags(&self, message: &str) -> Vec<String> {
        let s = &self.setup;
        let mut argv: Vec<String> = vec!["--format".into(), "json".into()];
        match &self.session {
            Some(id) => argv.extend(["--session".into(), id.clone()]),
            // A fixed title spares the extra title-generation model call on the first turn.
            None => argv.extend(["--title".into(), "ghostlab case".into()]),
        }
        if let Some(a) = &s.agent {
            argv.extend(["--agent".into(), a.clone()]);
        }
        if let Some(m) = &s.model {
            argv.extend(["--model".into(), m.clone()]);
        }
        argv.push(message.to_string());
        argv
    }

    /// The environment of every turn.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        let h = &self.setup.home;
        let mut env: Vec<(String, String)> = crate::providers::opencode_home::isolated_env(h)
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect();
        env.extend([
            ("OPENCODE_CONFIG".into(), self.setup.config.clone()),
            ("OPENCODE_DISABLE_PROJECT_CONFIG".into(), "1".into()),
        ]);
        env.extend(self.setup.env.iter().cloned());
        env
    }

    /// Runs one turn's command (through this runner's factory) and reads its events.
    pub(crate) async fn run_turn(&mut self, spec: CommandSpec) -> Result<TurnOutput, RunnerError> {
        let done = run_turn_command(self.factory.as_ref(), &spec, self.setup.turn_timeout).await?;
        let parsed = parse_opencode_events(&done.stdout);
        if self.session.is_none() {
            self.session = parsed.session_id.clone();
        }
        let spoke = parsed.stream.error.is_some() || parsed.session_id.is_some();
        finish_turn(&done, parsed.stream, spoke, OPENCODE_END)
    }

    /// The factory every command of this runner goes through.
    pub(crate) fn factory(&self) -> &Arc<dyn CommandFactory> {
        &self.factory
    }
}

impl AgentRunner for OpencodeRunner {
    fn label(&self) -> String {
        "opencode (cold)".into()
    }

    fn turn<'a>(&'a mut self, _turn: u32, message: &'a str) -> BoxFuture<'a, Result<TurnOutput, RunnerError>> {
        Box::pin(async move {
            let spec = CommandSpec {
                argv: self.argv(message),
                env: self.env(),
                workdir: Some(self.setup.workdir.clone()),
            };
            self.run_turn(spec).await
        })
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}
