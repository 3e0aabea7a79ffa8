//! Step 12's resolved view: what the run will really use, beyond job.yaml as written — the
//! OpenCode config the agent gets (instruction globs expanded, `${VAR}` as `{env:VAR}`, MCP
//! servers resolved), the sandbox's network and opened hosts, and what differs from the
//! config the lab imported (keys added, dropped or changed).

use serde_json::Value;
use std::path::Path;

use crate::spec::LoadedJob;

/// Lines shown at most for the differences: a long diff is summarised.
const DIFF_LINES: usize = 40;

/// The emitted opencode.json, pretty-printed, and the notes that resolve the rest.
pub(crate) struct Resolved {
    pub(crate) opencode_json: String,
    pub(crate) notes: Vec<String>,
}

/// Resolves `loaded` for the preview; `source` is the imported config file, if any.
pub(crate) fn resolve(loaded: &LoadedJob, source: Option<&Path>) -> Resolved {
    let emitted = crate::emit::emit_opencode_config(loaded, &crate::emit::EmitOptions::default());
    let opencode_json = serde_json::to_string_pretty(&emitted).unwrap_or_default();
    let mut notes = Vec::new();
    let files = loaded.instruction_files();
    let listed = loaded.job.agent.runtime.instructions.len();
    notes.push(format!(
        "Instructions: {listed} entr{} in job.yaml resolve to {} file(s){}",
        if listed == 1 { "y" } else { "ies" },
        files.len(),
        if files.is_empty() {
            String::new()
        } else {
            format!(
                ": {}",
                files
                    .iter()
                    .map(|f| f.strip_prefix(&loaded.dir).unwrap_or(f).display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    ));
    let sb = &loaded.job.sandbox;
    // The policy's own lists: `allow` only under `network: allowlist`, declared remote MCP
    // hosts in every mode, then the model endpoints the run adds.
    let mut hosts: Vec<String> = crate::sandbox::policy::declared_allow_hosts(loaded)
        .into_iter()
        .chain(crate::sandbox::policy::declared_remote_hosts(loaded))
        .map(|h| h.to_string())
        .collect();
    hosts.extend(crate::providers::endpoints::preview_hosts(&loaded.job));
    // The words job.yaml uses, not the enums' names.
    let word = |v: serde_json::Result<Value>| v.ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
    notes.push(format!(
        "Sandbox: {}, network {}; reachable: {}",
        word(serde_json::to_value(sb.backend)),
        word(serde_json::to_value(sb.network)),
        if hosts.is_empty() {
            "nothing".to_string()
        } else {
            hosts.join(", ")
        }
    ));
    notes.push(format!(
        "MCP servers: {}",
        if loaded.mcps.is_empty() {
            "none".to_string()
        } else {
            loaded
                .mcps
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        }
    ));
    if let Some(path) = source {
        match crate::spec::jsonc::read_jsonc_document(path) {
            Ok(original) => {
                let mut diff = Vec::new();
                key_diff(&original, &emitted, "", &mut diff);
                if diff.is_empty() {
                    notes.push(format!("Against {}: no key differs.", path.display()));
                } else {
                    notes.push(format!("Against {} ({} difference(s)):", path.display(), diff.len()));
                    let more = diff.len().saturating_sub(DIFF_LINES);
                    notes.extend(diff.into_iter().take(DIFF_LINES));
                    if more > 0 {
                        notes.push(format!("  … and {more} more"));
                    }
                }
            }
            Err(e) => notes.push(format!("Cannot compare with {}: {e}", path.display())),
        }
    }
    Resolved { opencode_json, notes }
}

/// Dotted paths that were added (`+`), dropped (`-`) or changed (`~`) from `before` to `after`.
/// Values are never shown: a dropped literal could be a credential.
pub(crate) fn key_diff(before: &Value, after: &Value, at: &str, out: &mut Vec<String>) {
    let here = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            for (k, bv) in b {
                match a.get(k) {
                    Some(av) => key_diff(bv, av, &here(k), out),
                    None => out.push(format!("  - {} (not carried)", here(k))),
                }
            }
            for k in a.keys().filter(|k| !b.contains_key(*k)) {
                out.push(format!("  + {} (added)", here(k)));
            }
        }
        (b, a) if b != a => out.push(format!(
            "  ~ {} (changed)",
            if at.is_empty() { "(document)" } else { at }
        )),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_diff_names_added_dropped_and_changed_paths_without_values() {
        let before = json!({
            "$schema": "https://opencode.ai/config.json",
            "model": "a/b",
            "mcp": { "gh": { "type": "local", "command": ["gh-mcp"], "environment": { "TOKEN": "sk-live-secret" } } },
            "permission": { "bash": "ask" }
        });
        let after = json!({
            "model": "a/c",
            "mcp": { "gh": { "type": "local", "command": ["gh-mcp"] } },
            "permission": { "bash": "ask", "edit": "allow" }
        });
        let mut d = Vec::new();
        key_diff(&before, &after, "", &mut d);
        assert_eq!(
            d,
            [
                "  - $schema (not carried)",
                "  ~ model (changed)",
                "  - mcp.gh.environment (not carried)",
                "  + permission.edit (added)",
            ]
        );
        assert!(d.iter().all(|l| !l.contains("sk-live")), "values are never shown");
        let mut same = Vec::new();
        key_diff(&after, &after, "", &mut same);
        assert!(same.is_empty());
    }
}
