//! Telling a faulty MCP server apart from a tool that answered with an error.
//!
//! A tool that rejects its arguments or reports a failure is the agent's business and is
//! judged. A server that died, closed its connection or stopped answering is a broken peer:
//! the transcript says nothing about the agent, so the case ends as INFRA_ERROR.

use crate::run::agents::runner::ToolCallRecord;
use crate::trial::events::ToolStatus;

/// Transport failures as MCP clients report them in a tool result. -32000 (connection closed)
/// and -32001 (request timed out) are the TypeScript SDK's own codes, used by OpenCode; servers
/// answer protocol errors with the JSON-RPC codes (-326xx), which stay the agent's business.
const TRANSPORT_FAILURES: &[(&str, &str)] = &[
    (
        "MCP error -32000",
        "the MCP server closed its connection (it exited or crashed)",
    ),
    ("MCP error -32001", "the MCP server did not answer in time"),
    ("Not connected", "the MCP server was not connected"),
];

/// OpenCode's stand-in for a call to a tool it does not have: the call is renamed `invalid`,
/// with the intended tool in `arguments.tool`, and logged as completed.
const OPENCODE_INVALID_TOOL: &str = "invalid";

/// A call to a tool of an MCP server that never registered its tools (it failed at start-up):
/// OpenCode records it as its `invalid` tool, so the case must not be judged as the agent's.
fn dead_at_start(calls: &[ToolCallRecord], mcp_servers: &[String]) -> Option<(String, String)> {
    calls.iter().filter(|c| c.tool == OPENCODE_INVALID_TOOL).find_map(|c| {
        let wanted = c.arguments.get("tool").and_then(serde_json::Value::as_str)?;
        let server = server_of(wanted, mcp_servers)?;
        Some((
            format!("mcp server `{server}`"),
            format!(
                "the MCP server offered no tools to the agent (it failed at start-up): the call to `{wanted}` \
                 was recorded by the agent host as its `invalid` tool"
            ),
        ))
    })
}

/// The first tool call that failed because its MCP server broke, as (component, reason).
pub(crate) fn broken_mcp_server(calls: &[ToolCallRecord], mcp_servers: &[String]) -> Option<(String, String)> {
    if let Some(dead) = dead_at_start(calls, mcp_servers) {
        return Some(dead);
    }
    calls.iter().filter(|c| c.status == ToolStatus::Error).find_map(|c| {
        let (_, meaning) = TRANSPORT_FAILURES.iter().find(|(m, _)| is_client_error(&c.result, m))?;
        let server = server_of(&c.tool, mcp_servers)?;
        Some((
            format!("mcp server `{server}`"),
            format!("{meaning}: tool `{}` got \"{}\"", c.tool, first_line(&c.result)),
        ))
    })
}

/// Whether a tool result is the MCP client's own error `marker` (alone, or followed by `:` and
/// its detail, perhaps as a JavaScript `Error: …`), not a server's text that mentions it: a
/// tool answering "Not connected to the database" is the agent's business, not a broken peer.
fn is_client_error(result: &str, marker: &str) -> bool {
    let line = first_line(result).trim();
    let line = line.strip_prefix("Error: ").unwrap_or(line);
    line.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
}

/// The MCP server a tool belongs to (`<server>_<tool>`, longest server name first, so `git`
/// and `git_hub` are told apart). Built-in tools belong to none.
fn server_of<'a>(tool: &str, mcp_servers: &'a [String]) -> Option<&'a str> {
    mcp_servers
        .iter()
        .filter(|s| tool.strip_prefix(s.as_str()).is_some_and(|rest| rest.starts_with('_')))
        .max_by_key(|s| s.len())
        .map(String::as_str)
}

fn first_line(s: &str) -> &str {
    let line = s.lines().next().unwrap_or("");
    match line.char_indices().nth(300) {
        Some((i, _)) => &line[..i],
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str, result: &str, status: ToolStatus) -> ToolCallRecord {
        ToolCallRecord {
            call_id: "c1".into(),
            tool: tool.into(),
            arguments: serde_json::json!({}),
            result: result.into(),
            status,
            latency_ms: 5,
        }
    }

    fn servers() -> Vec<String> {
        vec!["release".into(), "git".into(), "git_hub".into()]
    }

    #[test]
    fn a_closed_connection_names_the_server_and_the_tool() {
        let calls = [
            call("filesystem_read", "ok", ToolStatus::Completed),
            call(
                "release_ci_status",
                "MCP error -32000: Connection closed",
                ToolStatus::Error,
            ),
        ];
        let (component, reason) = broken_mcp_server(&calls, &servers()).unwrap();
        assert_eq!(component, "mcp server `release`");
        assert!(
            reason.contains("closed its connection") && reason.contains("release_ci_status"),
            "{reason}"
        );
    }

    #[test]
    fn a_server_text_that_mentions_a_client_error_is_not_a_broken_peer() {
        for (result, broken) in [
            ("Not connected", true),
            ("Error: Not connected", true),
            ("MCP error -32000: Connection closed\n  at close", true),
            ("Not connected to the database; retry later", false),
            ("upstream said: MCP error -32000: Connection closed", false),
            ("MCP error -320001: something else", false),
        ] {
            let calls = [call("release_ci_status", result, ToolStatus::Error)];
            assert_eq!(broken_mcp_server(&calls, &servers()).is_some(), broken, "{result:?}");
        }
    }

    #[test]
    fn a_timeout_is_a_broken_peer_and_the_longest_server_prefix_wins() {
        let calls = [call(
            "git_hub_list",
            "MCP error -32001: Request timed out",
            ToolStatus::Error,
        )];
        let (component, _) = broken_mcp_server(&calls, &servers()).unwrap();
        assert_eq!(component, "mcp server `git_hub`");
    }

    #[test]
    fn a_call_to_a_server_that_never_started_is_that_servers_fault() {
        let mut invalid = call(
            "invalid",
            "The arguments provided to the tool are invalid",
            ToolStatus::Completed,
        );
        invalid.arguments =
            serde_json::json!({"tool": "release_ci_status", "error": "Model tried to call unavailable tool"});
        let (component, reason) = broken_mcp_server(&[invalid.clone()], &servers()).unwrap();
        assert_eq!(component, "mcp server `release`");
        assert!(
            reason.contains("failed at start-up") && reason.contains("release_ci_status"),
            "{reason}"
        );
        // A made-up tool outside every server is the agent's own mistake.
        invalid.arguments = serde_json::json!({"tool": "frobnicate", "error": "unavailable"});
        assert_eq!(broken_mcp_server(&[invalid], &servers()), None);
    }

    #[test]
    fn tool_level_errors_and_builtin_tools_are_the_agents_business() {
        let calls = [
            call(
                "release_create_tag",
                "MCP error -32602: invalid version",
                ToolStatus::Error,
            ),
            call("release_ci_status", "branch not found", ToolStatus::Error),
            call("bash", "MCP error -32000: Connection closed", ToolStatus::Error),
            call(
                "release_list_tags",
                "MCP error -32000: Connection closed",
                ToolStatus::Completed,
            ),
        ];
        assert_eq!(broken_mcp_server(&calls, &servers()), None);
    }
}
