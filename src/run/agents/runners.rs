//! The simple runners: `mock` (scripted replies) and `process` (a fresh command per turn).

use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

use crate::run::agents::runner::{AgentRunner, RunnerError, TurnOutput};
use crate::run::environment::spawn::{CommandFactory, CommandSpec, run_bounded};
use crate::spec::job::PromptVia;

/// Deterministic replies in order; the last one repeats. For testing the harness itself.
pub struct MockRunner {
    replies: Vec<String>,
    next: usize,
}

impl MockRunner {
    pub fn new(replies: Vec<String>) -> Self {
        MockRunner { replies, next: 0 }
    }
}

impl AgentRunner for MockRunner {
    fn label(&self) -> String {
        "mock".into()
    }

    fn turn<'a>(&'a mut self, _turn: u32, _message: &'a str) -> BoxFuture<'a, Result<TurnOutput, RunnerError>> {
        Box::pin(async move {
            let Some(last) = self.replies.len().checked_sub(1) else {
                return Err(RunnerError::Start(
                    "the mock runner has no replies configured (hosts.mock.replies)".into(),
                ));
            };
            let text = self.replies[self.next.min(last)].clone();
            self.next += 1;
            Ok(TurnOutput {
                text,
                ..TurnOutput::default()
            })
        })
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// Starts `command` once per turn with the message on stdin or as the last argument; the
/// answer is its stdout. A non-zero exit or a timeout is an infrastructure error.
pub(crate) struct ProcessRunner {
    factory: Arc<dyn CommandFactory>,
    command: Vec<String>,
    prompt: PromptVia,
    env: Vec<(String, String)>,
    workdir: Option<String>,
    timeout: Duration,
    session: String,
}

impl ProcessRunner {
    pub(crate) fn new(
        factory: Arc<dyn CommandFactory>,
        command: Vec<String>,
        prompt: PromptVia,
        env: Vec<(String, String)>,
        workdir: Option<String>,
        timeout: Duration,
        session: String,
    ) -> Self {
        ProcessRunner {
            factory,
            command,
            prompt,
            env,
            workdir,
            timeout,
            session,
        }
    }
}

impl AgentRunner for ProcessRunner {
    fn label(&self) -> String {
        format!("process ({})", self.command.first().map(String::as_str).unwrap_or("?"))
    }

    fn turn<'a>(&'a mut self, turn: u32, message: &'a str) -> BoxFuture<'a, Result<TurnOutput, RunnerError>> {
        Box::pin(async move {
            let mut argv = self.command.clone();
            let input = match self.prompt {
                PromptVia::Stdin => Some(message.as_bytes().to_vec()),
                PromptVia::Argument => {
                    argv.push(message.to_string());
                    None
                }
            };
            let mut env = self.env.clone();
            // Lets a stateful agent keep its own conversation across fresh processes.
            env.push(("AGENT_SESSION_ID".into(), self.session.clone()));
            env.push(("AGENT_TURN".into(), turn.to_string()));
            let spec = CommandSpec {
                argv,
                env,
                workdir: self.workdir.clone(),
            };
            let cmd = self
                .factory
                .command(&spec)
                .map_err(|e| RunnerError::Start(e.to_string()))?;
            let done = run_bounded(cmd, input, self.timeout)
                .await
                .map_err(|e| RunnerError::Start(e.to_string()))?;
            if done.timed_out {
                return Err(RunnerError::Timeout {
                    seconds: self.timeout.as_secs(),
                });
            }
            match done.code {
                Some(0) => Ok(TurnOutput {
                    text: done.stdout.trim_end().to_string(),
                    latency_ms: done.elapsed.as_millis() as u64,
                    diagnostics: tail(&done.stderr),
                    ..TurnOutput::default()
                }),
                code => Err(RunnerError::Crashed {
                    code: code.unwrap_or(-1),
                    detail: tail(&done.stderr).join(" | "),
                }),
            }
        })
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// The last few non-empty lines of a stream, each bounded.
pub(crate) fn tail(text: &str) -> Vec<String> {
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.chars().take(300).collect())
        .collect();
    lines[lines.len().saturating_sub(5)..].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::environment::spawn::HostCommandFactory;

    #[tokio::test]
    async fn mock_repeats_its_last_reply() {
        let mut m = MockRunner::new(vec!["a".into(), "b".into()]);
        assert_eq!(m.turn(1, "x").await.unwrap().text, "a");
        assert_eq!(m.turn(2, "x").await.unwrap().text, "b");
        assert_eq!(m.turn(3, "x").await.unwrap().text, "b");
        assert!(MockRunner::new(vec![]).turn(1, "x").await.is_err());
    }

    #[tokio::test]
    async fn process_runner_reads_stdin_and_reports_crashes() {
        let f: Arc<dyn CommandFactory> = Arc::new(HostCommandFactory);
        let mut echo = ProcessRunner::new(
            f.clone(),
            vec!["sh".into(), "-c".into(), "printf 'got: '; cat".into()],
            PromptVia::Stdin,
            vec![],
            None,
            Duration::from_secs(5),
            "s1".into(),
        );
        assert_eq!(echo.turn(1, "hello").await.unwrap().text, "got: hello");
        let mut crash = ProcessRunner::new(
            f,
            vec!["sh".into(), "-c".into(), "echo boom >&2; exit 3".into()],
            PromptVia::Argument,
            vec![],
            None,
            Duration::from_secs(5),
            "s1".into(),
        );
        assert_eq!(
            crash.turn(1, "x").await.unwrap_err(),
            RunnerError::Crashed {
                code: 3,
                detail: "boom".into()
            }
        );
    }
}
