//! The MCP tools the agent can call, for purpose inference: read tolerantly from discovery's
//! `<state_dir>/inventory.json` when present, otherwise from the job's `capabilities` and the
//! tool names the instructions mention. Risk labels come from annotations first, names second.
//!
//! It never starts an MCP server; discovery owns that.

use serde::Serialize;
use serde_json::Value;
use std::path::Path;

use super::GenerateError;
use crate::mcp::contract::labels::label_tool;
use crate::mcp::contract::words::split_identifier;
use crate::mcp::inventory::ToolEntry;

/// One tool as purpose inference sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ToolInfo {
    pub(crate) server: String,
    pub(crate) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    pub(crate) labels: Vec<String>,
    /// `inventory`, `job.capabilities`, or the file that mentions the tool.
    pub(crate) source: String,
}

impl ToolInfo {
    /// The name OpenCode gives the tool: `<server>_<tool>`.
    pub(crate) fn qualified(&self) -> String {
        format!("{}_{}", self.server, self.name)
    }

    /// True for any label that changes the world.
    pub(crate) fn mutates(&self) -> bool {
        self.labels
            .iter()
            .any(|l| l == "mutates-state" || l == "destructive" || l == "unknown-mutation")
    }

    pub(crate) fn has(&self, label: &str) -> bool {
        self.labels.iter().any(|l| l == label)
    }
}

/// Reads inventory.json if it exists. `Ok(None)` when absent; an unreadable or non-JSON file is
/// an error naming the file (a stale or foreign file must not silently change the profile).
pub(crate) fn read_inventory(path: &Path) -> Result<Option<Vec<ToolInfo>>, GenerateError> {
    let input = |detail: String| GenerateError::Input {
        file: path.to_path_buf(),
        detail,
    };
    let text = match crate::util::bounded::read_optional_string(path, crate::util::bounded::FileKind::State) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => return Err(input(e.to_string())),
    };
    let value: Value =
        serde_json::from_str(&text).map_err(|e| input(format!("{}: not valid JSON: {e}", path.display())))?;
    Ok(Some(tools_from_inventory(&value)))
}

/// Accepts `{servers: [{name|server, tools: [...]}]}`, `{servers: {name: {tools}}}` and
/// `{tools: [{server, name, ...}]}`; unknown keys are ignored.
pub(crate) fn tools_from_inventory(value: &Value) -> Vec<ToolInfo> {
    let mut out = Vec::new();
    let mut push_tools = |server: &str, tools: Option<&Value>| {
        for tool in tools.and_then(Value::as_array).into_iter().flatten() {
            let server = tool.get("server").and_then(Value::as_str).unwrap_or(server);
            if let Some(info) = tool_from_value(server, tool) {
                out.push(info);
            }
        }
    };
    match value.get("servers") {
        Some(Value::Array(servers)) => {
            for s in servers {
                let name = s
                    .get("name")
                    .or_else(|| s.get("server"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                push_tools(name, s.get("tools"));
            }
        }
        Some(Value::Object(servers)) => {
            for (name, s) in servers {
                push_tools(name, s.get("tools"));
            }
        }
        _ => {}
    }
    push_tools("", value.get("tools"));
    out
}

fn tool_from_value(server: &str, tool: &Value) -> Option<ToolInfo> {
    let name = tool.get("name").and_then(Value::as_str)?.to_string();
    if server.is_empty() {
        return None;
    }
    let description = tool.get("description").and_then(Value::as_str).map(str::to_string);
    let given: Vec<String> = ["labels", "risk_labels", "risk"]
        .iter()
        .filter_map(|k| tool.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let labels = if given.is_empty() {
        labels_for(&name, description.as_deref(), tool.get("annotations"))
    } else {
        given
    };
    Some(ToolInfo {
        server: server.to_string(),
        name,
        description,
        labels,
        source: "inventory".into(),
    })
}

/// Risk labels as contract lint gives them (`mcp::contract::labels`: one vocabulary for lint,
/// the report and generation), plus `unknown-mutation` when neither annotations nor words
/// decide whether the tool changes anything (then it is treated as if it might).
pub(crate) fn labels_for(name: &str, description: Option<&str>, annotations: Option<&Value>) -> Vec<String> {
    let entry: Option<ToolEntry> = serde_json::from_value(serde_json::json!({
        "name": name,
        "description": description,
        "annotations": annotations.filter(|a| a.is_object()),
    }))
    .ok();
    let mut labels: Vec<String> = entry
        .map(|e| label_tool(&e))
        .unwrap_or_default()
        .iter()
        .filter_map(|l| serde_json::to_value(l.label).ok())
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let decided = labels
        .iter()
        .any(|l| l == "read-only" || l == "mutates-state" || l == "destructive");
    if !decided {
        labels.insert(0, "unknown-mutation".into());
    }
    labels
}

/// Lowercase words of a tool name, split at `_`, `-`, `.` and camelCase boundaries.
pub(crate) fn name_words(name: &str) -> Vec<String> {
    split_identifier(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn annotations_win_over_names() {
        let ro = labels_for("delete_cache", None, Some(&json!({"readOnlyHint": true})));
        assert_eq!(ro, vec!["read-only"]);
        let d = labels_for(
            "publish_release",
            None,
            Some(&json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": true})),
        );
        assert_eq!(d, vec!["mutates-state", "destructive", "external-network"]);
    }

    #[test]
    fn generation_labels_tools_as_lint_does() {
        // Read-only tools of the reference filesystem server, named without a reading verb.
        for name in [
            "directory_tree",
            "get_file_info",
            "list_allowed_directories",
            "search_files",
        ] {
            assert_eq!(labels_for(name, None, None), vec!["read-only"], "{name}");
        }
        // Words only lint knew: each changes state.
        for name in ["truncate_table", "revoke_access", "merge_pull_request"] {
            assert!(
                labels_for(name, None, None).contains(&"mutates-state".to_string()),
                "{name}"
            );
        }
        // The description decides what the name leaves open.
        assert_eq!(
            labels_for("tinyqueue", Some("Deletes every queued job."), None),
            vec!["mutates-state", "destructive"]
        );
        // A name saying nothing stays unknown, which generation treats as possibly mutating.
        assert_eq!(labels_for("frobnicate", None, None), vec!["unknown-mutation"]);
    }

    #[test]
    fn names_split_camel_case() {
        assert_eq!(name_words("getUserToken"), vec!["get", "user", "token"]);
        assert_eq!(labels_for("getUser", None, None), vec!["read-only"]);
        assert!(labels_for("export_all_users", None, None).contains(&"unknown-mutation".to_string()));
        assert!(!labels_for("max_tokens", None, None).contains(&"credential-bearing".to_string()));
    }

    #[test]
    fn reads_several_inventory_shapes() {
        let a = json!({"servers": [{"name": "release", "tools": [{"name": "ci_status", "labels": ["read-only"]}]}]});
        let b = json!({"servers": {"release": {"tools": [{"name": "create_tag"}]}}});
        let c = json!({"tools": [{"server": "fs", "name": "read_file"}, {"name": "orphan"}]});
        assert_eq!(tools_from_inventory(&a)[0].qualified(), "release_ci_status");
        assert_eq!(tools_from_inventory(&b)[0].labels, vec!["mutates-state"]);
        let c = tools_from_inventory(&c);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].labels, vec!["read-only"]);
    }
}
