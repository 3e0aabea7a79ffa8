//! Importing an existing OpenCode project (`opencode.json` / `opencode.jsonc`, or its folder).

use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

use super::{job_with_agent, slug};
use crate::spec::diagnostics::{SpecError, diag, nearest};
use crate::spec::job::{JOB_VERSION, Job};
use crate::spec::load::{job_dir, schema_diagnostics};
use crate::spec::mcp_file::normalize_env_refs;
use crate::spec::{Agent, McpInput};

/// OpenCode keys Ghostlab mirrors, and the job.yaml key each lands in.
const MIRRORED: &[(&str, &str)] = &[
    ("model", "model"),
    ("small_model", "small_model"),
    ("default_agent", "default_agent"),
    ("subagent_depth", "subagent_depth"),
    ("instructions", "instructions"),
    ("skills", "skills"),
    ("agent", "agents"),
    ("tools", "tools"),
    ("permission", "permission"),
    ("command", "commands"),
    ("provider", "provider"),
    ("plugin", "plugins"),
];

/// Valid OpenCode keys that do not describe the agent's behaviour under test; they are
/// reported as dropped, never silently.
const NOT_MIRRORED: &[&str] = &[
    "$schema",
    "shell",
    "logLevel",
    "server",
    "references",
    "reference",
    "watcher",
    "snapshot",
    "share",
    "autoshare",
    "autoupdate",
    "disabled_providers",
    "enabled_providers",
    "username",
    "mode",
    "formatter",
    "lsp",
    "layout",
    "attachment",
    "enterprise",
    "tool_output",
    "compaction",
    "experimental",
];

/// Finds the config file of a project folder, or returns the file itself.
pub fn project_config_file(source: &Path) -> Result<PathBuf, SpecError> {
    if source.is_file() {
        return Ok(source.to_path_buf());
    }
    for name in ["opencode.json", "opencode.jsonc"] {
        let p = source.join(name);
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(SpecError::one(
        source,
        "",
        "no opencode.json or opencode.jsonc in this folder",
    ))
}

/// Builds a job from an OpenCode project; the project folder becomes the workspace and its
/// `mcp` entries become `config_ref` inputs pointing back at the config file.
pub fn from_opencode_project(source: &Path, dst_dir: &Path) -> Result<Job, SpecError> {
    let file = project_config_file(source)?;
    let text =
        std::fs::read_to_string(&file).map_err(|e| SpecError::one(&file, "", format!("cannot read the file: {e}")))?;
    let doc: Value = serde_json::from_str(&strip_json_comments(&text)).map_err(|e| {
        SpecError::one(
            &file,
            "",
            format!("malformed JSON at line {} column {}: {e}", e.line(), e.column()),
        )
    })?;
    let Some(obj) = doc.as_object() else {
        return Err(SpecError::one(&file, "", "expected a JSON object at the top level"));
    };
    let mut ds = Vec::new();
    let mut runtime = Map::new();
    let mut dropped = Vec::new();
    for (key, value) in obj {
        if let Some((_, ours)) = MIRRORED.iter().find(|(k, _)| k == key) {
            runtime.insert((*ours).to_string(), normalize_refs(value.clone()));
        } else if NOT_MIRRORED.contains(&key.as_str()) {
            dropped.push(key.clone());
        } else if key != "mcp" {
            let mut d = diag(
                &file,
                key.as_str(),
                format!("unknown OpenCode key `{key}` (OpenCode would silently ignore it)"),
            );
            let all = MIRRORED
                .iter()
                .map(|(k, _)| *k)
                .chain(NOT_MIRRORED.iter().copied())
                .chain(["mcp"]);
            d.hint = nearest(key, all).map(|k| format!("did you mean `{k}`?"));
            ds.push(d);
        }
    }
    // OpenCode accepts `maxSteps` as the older name of `steps`.
    if let Some(Value::Object(agents)) = runtime.get_mut("agents") {
        for def in agents.values_mut().filter_map(Value::as_object_mut) {
            if let Some(v) = def.remove("maxSteps") {
                def.entry("steps").or_insert(v);
            }
        }
    }
    let wrapped = json!({ "version": JOB_VERSION, "agent": { "id": "x", "runtime": runtime } });
    for mut d in schema_diagnostics(&file, crate::spec::schema::job_schema(), &wrapped) {
        d.path = source_path(&d.path);
        ds.push(d);
    }
    if !ds.is_empty() {
        return Err(SpecError { diagnostics: ds });
    }
    let runtime =
        serde_json::from_value(Value::Object(runtime)).map_err(|e| SpecError::one(&file, "", e.to_string()))?;
    let project_dir = job_dir(&file);
    let name = project_dir
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("agent")
        .to_string();
    let mut agent = Agent {
        id: slug(&name),
        name: Some(name),
        runtime,
        workspace: Some(".".into()),
        ..Agent::default()
    };
    if let Some(Value::Object(mcp)) = obj.get("mcp") {
        let file_name = file
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("opencode.json")
            .to_string();
        agent.inputs.mcps = mcp
            .keys()
            .map(|server| McpInput {
                config_ref: Some(format!("./{file_name}")),
                server: Some(server.clone()),
                ..McpInput::default()
            })
            .collect();
    }
    super::rebase_agent(&mut agent, &project_dir, dst_dir);
    if !dropped.is_empty() {
        tracing::info!(file = %file.display(), keys = ?dropped, "OpenCode keys not mirrored into job.yaml");
    }
    Ok(job_with_agent(agent))
}

/// Maps a job path back to the OpenCode file's own key path.
fn source_path(path: &str) -> String {
    let rest = path.strip_prefix("agent.runtime.").unwrap_or(path);
    for (theirs, ours) in MIRRORED {
        if let Some(tail) = rest.strip_prefix(ours) {
            return format!("{theirs}{tail}");
        }
    }
    rest.to_string()
}

fn normalize_refs(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(normalize_env_refs(&s)),
        Value::Array(a) => Value::Array(a.into_iter().map(normalize_refs).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, normalize_refs(v))).collect()),
        other => other,
    }
}

/// Removes `//` and `/* */` comments and trailing commas outside strings (JSONC → JSON).
pub fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    if n == '\n' {
                        out.push('\n');
                    }
                    prev = n;
                }
            }
            (',', _) => {
                let rest: String = chars.clone().take_while(|c| c.is_whitespace()).collect();
                let next = chars.clone().nth(rest.chars().count());
                if !matches!(next, Some('}') | Some(']')) {
                    out.push(',');
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_comments_and_trailing_commas() {
        let t = "{\n // c\n \"a\": \"x//y\", /* b */ \"b\": [1,2,],\n}";
        let v: Value = serde_json::from_str(&strip_json_comments(t)).unwrap();
        assert_eq!(v, json!({"a": "x//y", "b": [1, 2]}));
    }

    #[test]
    fn source_paths_use_opencode_names() {
        assert_eq!(
            source_path("agent.runtime.agents.release.temprature"),
            "agent.release.temprature"
        );
        assert_eq!(source_path("agent.runtime.commands.x"), "command.x");
    }
}
