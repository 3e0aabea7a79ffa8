//! Reading `opencode run --format json` output: one JSON object per line
//! (`step_start`, `tool_use`, `text`, `step_finish`, `error`) mapped to a `TurnOutput`.
//!
//! A turn succeeded only when there is no `error` event and the last step finished with
//! `stop`; the exit code alone says nothing (OpenCode exits 0 after failed tools and rejected
//! permissions, and 1 on HTTP 4xx).

use serde_json::Value;

use crate::providers::refusal::ProviderRefusal;
use crate::run::agents::runner::ToolCallRecord;
use crate::run::agents::turn_stream::TurnStream;
use crate::trial::events::ToolStatus;

/// The text OpenCode puts in a tool error when an `ask` permission was auto-rejected.
const REJECTED_MARKER: &str = "rejected permission";

/// The end marker a complete OpenCode turn has.
pub(crate) const OPENCODE_END: &str = "a final `stop` step";

/// What a whole turn's event stream said.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ParsedTurn {
    pub(crate) session_id: Option<String>,
    pub(crate) stream: TurnStream,
}

impl ParsedTurn {
    /// Converts the stream into the turn's result (tests; the runner reads the stream itself).
    #[cfg(test)]
    pub(crate) fn into_result(
        self,
    ) -> Result<crate::run::agents::runner::TurnOutput, crate::run::agents::runner::RunnerError> {
        self.stream.into_result(OPENCODE_END)
    }
}

/// Parses the stdout of one `opencode run --format json`.
pub(crate) fn parse_opencode_events(stdout: &str) -> ParsedTurn {
    let mut p = ParsedTurn::default();
    let mut texts: Vec<String> = Vec::new();
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        let Some(ev) = p.stream.parse_line(line) else {
            continue;
        };
        if p.session_id.is_none() {
            p.session_id = ev.get("sessionID").and_then(Value::as_str).map(str::to_string);
        }
        let part = ev.get("part").cloned().unwrap_or(Value::Null);
        match ev.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = part.get("text").and_then(Value::as_str) {
                    texts.push(t.to_string());
                }
            }
            Some("tool_use") => p.stream.output.tool_calls.push(tool_call(&part)),
            Some("step_finish") => {
                p.stream.ended = part.get("reason").and_then(Value::as_str) == Some("stop");
                p.stream.output.tokens += part.pointer("/tokens/total").and_then(Value::as_u64).unwrap_or(0);
                p.stream.output.cost_usd += part.get("cost").and_then(Value::as_f64).unwrap_or(0.0);
            }
            Some("step_start") => p.stream.ended = false,
            Some("error") => {
                let err = ev.get("error").cloned().unwrap_or(Value::Null);
                let name = err.get("name").and_then(Value::as_str).unwrap_or("error");
                let message = err
                    .pointer("/data/message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                let status = err
                    .pointer("/data/statusCode")
                    .and_then(Value::as_u64)
                    .map(|s| format!(" (HTTP {s})"))
                    .unwrap_or_default();
                let refusal = err.pointer("/data/statusCode").and_then(Value::as_u64).and_then(|s| {
                    let url = err.pointer("/data/metadata/url").and_then(Value::as_str);
                    ProviderRefusal::from_error(s, url, message)
                });
                p.stream.error = Some(
                    refusal
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_else(|| format!("{name}{status}: {message}")),
                );
                p.stream.refusal = refusal;
            }
            _ => {}
        }
    }
    // OpenCode ends a turn without a final step when it auto-rejects a permission (`ask` in a
    // non-interactive run): that is the agent's behaviour, judged with the rejected call kept.
    if !p.stream.ended
        && p.stream.error.is_none()
        && p.stream
            .output
            .tool_calls
            .iter()
            .any(|c| c.status == ToolStatus::DeniedByHost)
    {
        p.stream.ended = true;
    }
    // The answer of the turn is the text of the last step that produced any.
    p.stream.output.text = texts.last().cloned().unwrap_or_default();
    p
}

fn tool_call(part: &Value) -> ToolCallRecord {
    let state = part.get("state").cloned().unwrap_or(Value::Null);
    let status_text = state.get("status").and_then(Value::as_str).unwrap_or("");
    let error = state.get("error").and_then(Value::as_str);
    let status = match (status_text, error) {
        ("completed", _) => ToolStatus::Completed,
        (_, Some(e)) if e.contains(REJECTED_MARKER) => ToolStatus::DeniedByHost,
        _ => ToolStatus::Error,
    };
    let result = state
        .get("output")
        .and_then(Value::as_str)
        .or(error)
        .unwrap_or("")
        .to_string();
    let start = state.pointer("/time/start").and_then(Value::as_u64).unwrap_or(0);
    let end = state.pointer("/time/end").and_then(Value::as_u64).unwrap_or(start);
    ToolCallRecord {
        call_id: part.get("callID").and_then(Value::as_str).unwrap_or("").to_string(),
        tool: part.get("tool").and_then(Value::as_str).unwrap_or("").to_string(),
        arguments: state.get("input").cloned().unwrap_or(Value::Null),
        result,
        status,
        latency_ms: end.saturating_sub(start),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::agents::runner::RunnerError;

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/tests/fixtures/opencode/recorded_{name}.jsonl",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn bash_turn_has_a_tool_call_and_final_text() {
        let p = parse_opencode_events(&fixture("turn1_bash"));
        assert_eq!(p.session_id.as_deref(), Some("ses_dd7642e13ffeNUuoAM7Ll0zJxa"));
        let out = p.into_result().unwrap();
        assert_eq!(out.text, "T1 done");
        assert_eq!(out.tool_calls.len(), 1);
        assert_eq!(out.tool_calls[0].tool, "bash");
        assert_eq!(out.tool_calls[0].status, ToolStatus::Completed);
        assert_eq!(out.tool_calls[0].latency_ms, 575);
        assert_eq!(out.tokens, 30);
    }

    #[test]
    fn mcp_tool_names_keep_their_server_prefix() {
        let out = parse_opencode_events(&fixture("turn3_mcp")).into_result().unwrap();
        assert_eq!(out.tool_calls[0].tool, "mini_echo_marker");
        assert_eq!(out.tool_calls[0].result, "MCP echo: hello-from-fake-model");
    }

    #[test]
    fn auto_rejected_permission_ends_the_turn_as_the_agents_behaviour() {
        let p = parse_opencode_events(&fixture("perm_ask_autorejected"));
        let out = p.into_result().unwrap();
        assert_eq!(out.tool_calls.len(), 1);
        assert_eq!(out.tool_calls[0].status, ToolStatus::DeniedByHost);
        assert_eq!(out.tool_calls[0].arguments["command"], "touch ask_ran.txt");
    }

    #[test]
    fn a_turn_cut_short_without_a_rejection_is_still_unreadable() {
        let text = fixture("perm_ask_autorejected").replace("rejected permission", "something else");
        assert!(matches!(
            parse_opencode_events(&text).into_result(),
            Err(RunnerError::Protocol(_))
        ));
    }

    #[test]
    fn api_error_is_a_model_endpoint_failure() {
        let err = parse_opencode_events(&fixture("error_http400"))
            .into_result()
            .unwrap_err();
        assert_eq!(
            err,
            RunnerError::ModelEndpoint("APIError (HTTP 400): bad request from fake".into())
        );
    }

    #[test]
    fn garbage_output_is_a_protocol_error() {
        assert!(
            matches!(parse_opencode_events("Segmentation fault\n").into_result(), Err(RunnerError::Protocol(m)) if m.contains("Segmentation"))
        );
    }
}
