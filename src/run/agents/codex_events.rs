//! Reading `codex exec --json` output: one JSON object per line — `thread.started`
//! (the thread id that later turns resume), `turn.started`, `item.started|updated|completed`,
//! then `turn.completed` or `turn.failed`, and `error` for stream-level failures.
//!
//! A turn succeeded only when it ended with `turn.completed` and no error; items map to the
//! transcript: `agent_message` → the answer, `mcp_tool_call` → `<server>_<tool>` (OpenCode's
//! naming, so unknown-tool checks treat both hosts alike), `command_execution` → `bash`,
//! `file_change` → `edit`, `web_search` → `websearch`.
//!
//! The format is Codex's documented exec-JSON stream; this build is tested against samples
//! written from that documentation and a fake CLI, not the live `codex` binary
//! (docs/concepts.md, "A run").

use serde_json::{Value, json};

use crate::run::agents::runner::{ToolCallRecord, TurnOutput};
use crate::run::agents::turn_stream::TurnStream;
use crate::trial::events::ToolStatus;

/// The end marker a complete Codex turn has.
pub(crate) const CODEX_END: &str = "`turn.completed`";

/// What a whole turn's event stream said.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ParsedCodexTurn {
    pub(crate) thread_id: Option<String>,
    pub(crate) stream: TurnStream,
}

impl ParsedCodexTurn {
    /// The turn's result (tests; the runner reads the stream itself).
    #[cfg(test)]
    pub(crate) fn into_result(
        self,
    ) -> Result<crate::run::agents::runner::TurnOutput, crate::run::agents::runner::RunnerError> {
        self.stream.into_result(CODEX_END)
    }
}

/// Parses the stdout of one `codex exec --json`.
pub(crate) fn parse_codex_events(stdout: &str) -> ParsedCodexTurn {
    let mut p = ParsedCodexTurn::default();
    let mut texts: Vec<String> = Vec::new();
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        let Some(ev) = p.stream.parse_line(line) else {
            continue;
        };
        match ev.get("type").and_then(Value::as_str) {
            Some("thread.started") => {
                p.thread_id = ev.get("thread_id").and_then(Value::as_str).map(str::to_string);
            }
            Some("turn.completed") => {
                p.stream.ended = true;
                let usage = ev.get("usage");
                let count = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64).unwrap_or(0);
                p.stream.output.tokens += count("input_tokens") + count("output_tokens");
            }
            Some("turn.failed") => {
                let message = ev
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("turn failed");
                p.stream.error = Some(message.to_string());
            }
            Some("error") => {
                let message = ev.get("message").and_then(Value::as_str).unwrap_or("error");
                p.stream.error.get_or_insert_with(|| message.to_string());
            }
            Some("item.completed") => {
                if let Some(item) = ev.get("item") {
                    read_item(item, &mut p.stream.output, &mut texts);
                }
            }
            _ => {}
        }
    }
    p.stream.output.text = texts.last().cloned().unwrap_or_default();
    p
}

fn read_item(item: &Value, out: &mut TurnOutput, texts: &mut Vec<String>) {
    let s = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let id = s("id");
    let failed = item.get("status").and_then(Value::as_str) == Some("failed");
    let call = |tool: String, arguments: Value, result: String, ok: bool| ToolCallRecord {
        call_id: id.clone(),
        tool,
        arguments,
        result,
        status: if ok { ToolStatus::Completed } else { ToolStatus::Error },
        latency_ms: 0,
    };
    let record = match item.get("type").and_then(Value::as_str) {
        Some("agent_message") => {
            texts.push(s("text"));
            None
        }
        Some("mcp_tool_call") => {
            let error = item.pointer("/error/message").and_then(Value::as_str);
            let result = match (error, item.get("result")) {
                (Some(e), _) => e.to_string(),
                (None, Some(r)) => result_text(r),
                (None, None) => String::new(),
            };
            let arguments = item.get("arguments").cloned().unwrap_or(Value::Null);
            Some(call(
                format!("{}_{}", s("server"), s("tool")),
                arguments,
                result,
                error.is_none() && !failed,
            ))
        }
        Some("command_execution") => {
            let ok = !failed && item.get("exit_code").and_then(Value::as_i64).is_none_or(|c| c == 0);
            Some(call(
                "bash".into(),
                json!({ "command": s("command") }),
                s("aggregated_output"),
                ok,
            ))
        }
        Some("file_change") => Some(call(
            "edit".into(),
            json!({ "changes": item.get("changes").cloned().unwrap_or(Value::Null) }),
            String::new(),
            !failed,
        )),
        Some("web_search") => Some(call(
            "websearch".into(),
            json!({ "query": s("query") }),
            String::new(),
            !failed,
        )),
        _ => None,
    };
    out.tool_calls.extend(record);
}

/// An MCP result's text content, joined; anything else as JSON.
fn result_text(result: &Value) -> String {
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|c| c.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    if texts.is_empty() {
        result.to_string()
    } else {
        texts.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::agents::runner::RunnerError;

    /// A turn as Codex's exec-JSON stream documents it: a thread, an MCP call, a shell
    /// command, a file change and the answer.
    const TURN: &str = r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_0","type":"mcp_tool_call","server":"release","tool":"ci_status","arguments":{"branch":"main"},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"release","tool":"ci_status","arguments":{"branch":"main"},"result":{"content":[{"type":"text","text":"green"}]},"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'npm test'","aggregated_output":"1 failing","exit_code":1,"status":"failed"}}
{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"package.json","kind":"update"}],"status":"completed"}}
{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Bumped to 1.3.0."}}
{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":0,"output_tokens":30}}
"#;

    #[test]
    fn a_completed_turn_maps_items_to_the_transcript() {
        let p = parse_codex_events(TURN);
        assert_eq!(p.thread_id.as_deref(), Some("0199a213-81c0-7800-8aa1-bbab2a035a53"));
        let out = p.into_result().unwrap();
        assert_eq!(out.text, "Bumped to 1.3.0.");
        assert_eq!(out.tokens, 150);
        let tools: Vec<(&str, ToolStatus)> = out.tool_calls.iter().map(|c| (c.tool.as_str(), c.status)).collect();
        assert_eq!(
            tools,
            [
                ("release_ci_status", ToolStatus::Completed),
                ("bash", ToolStatus::Error),
                ("edit", ToolStatus::Completed)
            ]
        );
        assert_eq!(out.tool_calls[0].result, "green");
    }

    #[test]
    fn a_failed_turn_or_stream_error_is_an_infrastructure_failure() {
        let failed = "{\"type\":\"turn.started\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"stream disconnected: 401 Unauthorized\"}}\n";
        assert_eq!(
            parse_codex_events(failed).into_result(),
            Err(RunnerError::ModelEndpoint(
                "stream disconnected: 401 Unauthorized".into()
            ))
        );
        let error = "{\"type\":\"error\",\"message\":\"Reconnecting... 1/5\"}\n";
        assert!(
            matches!(parse_codex_events(error).into_result(), Err(RunnerError::ModelEndpoint(m)) if m.contains("Reconnecting"))
        );
    }

    #[test]
    fn output_without_turn_completed_is_a_protocol_error() {
        let r = parse_codex_events("error: unexpected argument '--json'\n").into_result();
        assert!(matches!(r, Err(RunnerError::Protocol(m)) if m.contains("unexpected argument")));
    }

    #[test]
    fn a_failed_mcp_call_keeps_its_error_as_the_result() {
        let s = "{\"type\":\"item.completed\",\"item\":{\"id\":\"i\",\"type\":\"mcp_tool_call\",\"server\":\"release\",\"tool\":\"ci_status\",\"arguments\":{},\"error\":{\"message\":\"MCP error -32000: Connection closed\"},\"status\":\"failed\"}}\n{\"type\":\"turn.completed\",\"usage\":{}}\n";
        let out = parse_codex_events(s).into_result().unwrap();
        assert_eq!(out.tool_calls[0].status, ToolStatus::Error);
        assert_eq!(out.tool_calls[0].result, "MCP error -32000: Connection closed");
    }
}
