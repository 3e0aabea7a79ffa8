//! `{file:…}` references in a job: allowed only in agent prompts and command templates, each
//! one an input under the path policy (inside the job folder or an allowed folder, a regular
//! file, never a system file). Anywhere else OpenCode would still substitute the file's text
//! into its config, so a reference there is refused rather than passed through.

use std::path::Path;

use super::agent::Runtime;
use super::diagnostics::{Diagnostic, diag, join};
use super::file_refs::{expand_home, file_refs, mentions_file_ref};
use super::path_policy::{PathPolicy, Want};

/// Checks every reference in `rt`; one diagnostic per bad reference, at its key path.
pub(crate) fn check_file_refs(path: &Path, policy: &PathPolicy, rt: &Runtime, ds: &mut Vec<Diagnostic>) {
    for (name, def) in &rt.agents {
        if let Some(prompt) = def.prompt.as_deref() {
            check_text(
                path,
                policy,
                &join(&join("agent.runtime.agents", name), "prompt"),
                prompt,
                ds,
            );
        }
    }
    for (name, command) in &rt.commands {
        let at = join(&join("agent.runtime.commands", name), "template");
        check_text(path, policy, &at, &command.template, ds);
    }
    let mut rest = serde_json::to_value(rt).unwrap_or_default();
    if let Some(obj) = rest.as_object_mut() {
        for (section, key) in [("agents", "prompt"), ("commands", "template")] {
            for def in obj
                .get_mut(section)
                .and_then(|v| v.as_object_mut())
                .into_iter()
                .flat_map(|m| m.values_mut())
            {
                if let Some(d) = def.as_object_mut() {
                    d.remove(key);
                }
            }
        }
    }
    refuse_elsewhere(path, "agent.runtime", &rest, ds);
}

fn check_text(path: &Path, policy: &PathPolicy, at: &str, text: &str, ds: &mut Vec<Diagnostic>) {
    match file_refs(text) {
        Err(e) => ds.push(diag(path, at, format!("bad file reference: {e}"))),
        Ok(refs) => {
            for r in refs {
                let expanded = expand_home(r.path);
                policy.input(at, &expanded.to_string_lossy(), Want::Text, ds);
            }
        }
    }
}

fn refuse_elsewhere(path: &Path, at: &str, value: &serde_json::Value, ds: &mut Vec<Diagnostic>) {
    match value {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                refuse_elsewhere(path, &join(at, k), v, ds);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                refuse_elsewhere(path, &format!("{at}[{i}]"), v, ds);
            }
        }
        serde_json::Value::String(s) if mentions_file_ref(s) => {
            let mut d = diag(
                path,
                at,
                "`{file:…}` is allowed only in agent prompts and command templates",
            );
            d.hint = Some("for a credential, write a `${VAR}` reference instead".into());
            ds.push(d);
        }
        _ => {}
    }
}
