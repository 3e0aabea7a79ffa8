//! What an agent host's JSON-lines output said about one turn, whatever the host: the answer
//! and tool calls so far, whether the stream reached its end marker, any error it reported, and
//! a few lines that were not JSON. Also running one turn's command with its deadline, and
//! turning the pair (process, stream) into the turn's result.
//!
//! The rule is the same for every host: a turn succeeded only when the stream reached its end
//! and reported no error; a process that failed without saying anything crashed.

use serde_json::Value;
use std::time::Duration;

use crate::run::agents::runner::{RunnerError, TurnOutput};
use crate::run::agents::runners::tail;
use crate::run::environment::spawn::{CommandFactory, CommandSpec, Finished, run_bounded};

/// Non-JSON lines kept for the error message.
const STRAY_KEPT: usize = 5;

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct TurnStream {
    pub(crate) output: TurnOutput,
    /// The host's end-of-turn marker was seen (and nothing reopened the turn after it).
    pub(crate) ended: bool,
    /// The error the host reported, if any.
    pub(crate) error: Option<String>,
    /// The error was a model request refused with 401/403 (its text is in `error`); the case
    /// attributes it to the provider or the sandbox's egress policy.
    pub(crate) refusal: Option<crate::providers::refusal::ProviderRefusal>,
    pub(crate) stray_lines: Vec<String>,
}

impl TurnStream {
    /// The line as a JSON value, or `None` (the line is kept for diagnostics).
    pub(crate) fn parse_line(&mut self, line: &str) -> Option<Value> {
        match serde_json::from_str::<Value>(line) {
            Ok(v) => Some(v),
            Err(_) => {
                if self.stray_lines.len() < STRAY_KEPT {
                    self.stray_lines.push(line.chars().take(200).collect());
                }
                None
            }
        }
    }

    /// The turn's result; `end_marker` names what a complete stream ends with.
    pub(crate) fn into_result(self, end_marker: &str) -> Result<TurnOutput, RunnerError> {
        if let Some(r) = self.refusal {
            return Err(RunnerError::ProviderRefused(r));
        }
        if let Some(e) = self.error {
            return Err(RunnerError::ModelEndpoint(e));
        }
        if !self.ended {
            let seen = if self.stray_lines.is_empty() {
                String::new()
            } else {
                format!(": {}", self.stray_lines.join(" | "))
            };
            return Err(RunnerError::Protocol(format!(
                "the turn ended without {end_marker}{seen}"
            )));
        }
        Ok(self.output)
    }
}

/// Runs one turn's command through `factory` with `timeout`.
pub(crate) async fn run_turn_command(
    factory: &dyn CommandFactory,
    spec: &CommandSpec,
    timeout: Duration,
) -> Result<Finished, RunnerError> {
    let cmd = factory.command(spec).map_err(|e| RunnerError::Start(e.to_string()))?;
    let done = run_bounded(cmd, None, timeout)
        .await
        .map_err(|e| RunnerError::Start(e.to_string()))?;
    let program = spec
        .argv
        .first()
        .map(|p| p.rsplit('/').next().unwrap_or(p))
        .unwrap_or("");
    crate::run::agents::host_output::record(program, &done);
    if done.timed_out {
        return Err(RunnerError::Timeout {
            seconds: timeout.as_secs(),
        });
    }
    Ok(done)
}

/// The turn's result from its process and stream. `spoke` is whether the stream said anything
/// of its own (a session, a thread, an error, an end): a failing process that did not is a crash.
pub(crate) fn finish_turn(
    done: &Finished,
    stream: TurnStream,
    spoke: bool,
    end_marker: &str,
) -> Result<TurnOutput, RunnerError> {
    let code = done.code.unwrap_or(-1);
    if !spoke && code != 0 {
        return Err(RunnerError::Crashed {
            code,
            detail: tail(&done.stderr).join(" | "),
        });
    }
    let mut out = stream.into_result(end_marker)?;
    out.latency_ms = done.elapsed.as_millis() as u64;
    out.diagnostics = tail(&done.stderr);
    Ok(out)
}
