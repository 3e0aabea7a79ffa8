//! A scenario's `stop_conditions`: when the conversation has shown what it was for.
//!
//! Three forms are settled from the turn's own events, with no model involved:
//! `tool_called: <tool>` (a call to that OpenCode tool that ran; a trailing `*` matches a
//! prefix), `file_written: <path>` (a write/edit/patch call on that workspace path) and
//! `agent_says: <phrase>` (the agent's answer contains it, case-insensitive). Anything else is a
//! prose condition, handed to the simulated user, who reports which one it saw.

use serde_json::Value;

use super::events::ToolStatus;

/// One stop condition, as read from the scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StopCondition {
    ToolCalled(String),
    FileWritten(String),
    AgentSays(String),
    /// Plain words: only the simulated user can tell.
    Described(String),
}

/// The built-in tools that write a file, and the argument naming it.
const WRITING_TOOLS: [&str; 5] = ["write", "edit", "patch", "multiedit", "apply_patch"];
const PATH_ARGUMENTS: [&str; 3] = ["filePath", "file_path", "path"];

impl StopCondition {
    pub(crate) fn parse(text: &str) -> StopCondition {
        let (key, value) = match text.split_once(':') {
            Some((k, v)) if !v.trim().is_empty() => (k.trim(), v.trim()),
            _ => return StopCondition::Described(text.trim().to_string()),
        };
        let value = value.trim_matches(|c| c == '"' || c == '\'' || c == '`').to_string();
        match key {
            "tool_called" => StopCondition::ToolCalled(value),
            "file_written" => StopCondition::FileWritten(value.trim_start_matches("./").to_string()),
            "agent_says" => StopCondition::AgentSays(value),
            _ => StopCondition::Described(text.trim().to_string()),
        }
    }

    /// Whether the harness settles this condition itself (not the simulated user).
    pub(crate) fn is_observable(&self) -> bool {
        !matches!(self, StopCondition::Described(_))
    }

    /// Whether one turn (its answer and its tool calls) meets this condition. A call the host
    /// refused never meets one: nothing happened.
    pub(crate) fn met_by(&self, agent_text: &str, calls: &[TurnCall<'_>]) -> bool {
        let ran = || calls.iter().filter(|c| c.status != ToolStatus::DeniedByHost);
        match self {
            StopCondition::ToolCalled(name) => ran().any(|c| tool_matches(name, c.tool)),
            StopCondition::FileWritten(path) => ran()
                .filter(|c| WRITING_TOOLS.contains(&c.tool))
                .any(|c| written_path(c.arguments).is_some_and(|p| same_file(p, path))),
            StopCondition::AgentSays(phrase) => agent_text.to_lowercase().contains(&phrase.to_lowercase()),
            StopCondition::Described(_) => false,
        }
    }
}

/// A tool call of the turn, as the stop conditions see it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TurnCall<'a> {
    pub(crate) tool: &'a str,
    pub(crate) arguments: &'a Value,
    pub(crate) status: ToolStatus,
}

/// The first observable condition this turn meets: its index in the scenario's list and text.
pub(crate) fn first_met<'a>(
    conditions: &'a [String],
    agent_text: &str,
    calls: &[TurnCall<'_>],
) -> Option<(usize, &'a str)> {
    conditions
        .iter()
        .enumerate()
        .find(|(_, c)| StopCondition::parse(c).met_by(agent_text, calls))
        .map(|(i, c)| (i, c.as_str()))
}

/// The prose conditions, with their index in the scenario's list, for the simulated user.
pub(crate) fn described(conditions: &[String]) -> Vec<(usize, &str)> {
    conditions
        .iter()
        .enumerate()
        .filter(|(_, c)| !StopCondition::parse(c).is_observable())
        .map(|(i, c)| (i, c.as_str()))
        .collect()
}

fn tool_matches(pattern: &str, tool: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => tool.starts_with(prefix),
        None => tool == pattern,
    }
}

fn written_path(arguments: &Value) -> Option<&str> {
    PATH_ARGUMENTS
        .iter()
        .find_map(|k| arguments.get(k).and_then(Value::as_str))
}

/// `want` is workspace-relative; the agent may name the file relative or absolute (under its
/// working directory). Matching is by whole path components, never a bare suffix of a name.
fn same_file(got: &str, want: &str) -> bool {
    let got = got.trim_start_matches("./");
    got == want || got.ends_with(&format!("/{want}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call<'a>(tool: &'a str, arguments: &'a Value, status: ToolStatus) -> TurnCall<'a> {
        TurnCall {
            tool,
            arguments,
            status,
        }
    }

    #[test]
    fn forms_parse_and_everything_else_is_prose() {
        assert_eq!(
            StopCondition::parse("tool_called: release_push_tag"),
            StopCondition::ToolCalled("release_push_tag".into())
        );
        assert_eq!(
            StopCondition::parse("file_written: `./CHANGELOG.md`"),
            StopCondition::FileWritten("CHANGELOG.md".into())
        );
        assert_eq!(
            StopCondition::parse("agent_says: \"cannot continue\""),
            StopCondition::AgentSays("cannot continue".into())
        );
        // A sentence with a colon is still a sentence; so is a known key with nothing after it.
        for prose in [
            "The assistant has completed the last step: tag the release",
            "tool_called:",
            "The user has been refused twice.",
        ] {
            assert!(!StopCondition::parse(prose).is_observable(), "{prose}");
        }
    }

    #[test]
    fn tool_conditions_need_a_call_that_ran() {
        let args = json!({});
        let c = StopCondition::parse("tool_called: release_push_tag");
        assert!(c.met_by("", &[call("release_push_tag", &args, ToolStatus::Completed)]));
        assert!(c.met_by("", &[call("release_push_tag", &args, ToolStatus::Error)]));
        assert!(!c.met_by("", &[call("release_push_tag", &args, ToolStatus::DeniedByHost)]));
        assert!(!c.met_by("", &[call("release_push_tag_v2", &args, ToolStatus::Completed)]));
        let prefix = StopCondition::parse("tool_called: release_*");
        assert!(prefix.met_by("", &[call("release_publish", &args, ToolStatus::Completed)]));
        assert!(!prefix.met_by("", &[call("git_push", &args, ToolStatus::Completed)]));
    }

    #[test]
    fn file_conditions_match_whole_path_components_of_writing_tools() {
        let c = StopCondition::parse("file_written: CHANGELOG.md");
        let abs = json!({"filePath": "/sandbox/workspace/CHANGELOG.md"});
        let other = json!({"filePath": "/sandbox/workspace/OLD_CHANGELOG.md"});
        let read = json!({"filePath": "CHANGELOG.md"});
        assert!(c.met_by("", &[call("write", &abs, ToolStatus::Completed)]));
        assert!(!c.met_by("", &[call("write", &other, ToolStatus::Completed)]));
        assert!(!c.met_by("", &[call("read", &read, ToolStatus::Completed)]));
        assert!(!c.met_by("", &[call("edit", &abs, ToolStatus::DeniedByHost)]));
    }

    #[test]
    fn first_met_reports_the_index_and_skips_prose() {
        let conditions = vec![
            "The assistant says it cannot continue.".to_string(),
            "agent_says: I can't continue".to_string(),
        ];
        assert_eq!(
            first_met(&conditions, "Sorry, I CAN'T CONTINUE here.", &[]),
            Some((1, "agent_says: I can't continue"))
        );
        assert_eq!(first_met(&conditions, "All done.", &[]), None);
        assert_eq!(
            described(&conditions),
            vec![(0, "The assistant says it cannot continue.")]
        );
    }
}
