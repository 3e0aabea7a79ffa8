//! What MCP clients add around the standard server entry: their variable syntaxes
//! (`${env:X}`, `{env:X}`, `${input:id}`, `${workspaceFolder}`, `${VAR:-default}`), VS Code's
//! `inputs` block, and client-only keys (`disabledTools`, `autoApprove`, `alwaysAllow`,
//! `envFile`). Each becomes Ghostlab's `${VAR}` form or a note saying what is not carried.

use indexmap::IndexMap;
use regex::Regex;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use super::diagnostics::{Diagnostic, diag, join};

/// One VS Code `inputs` entry: the editor prompts for it; Ghostlab reads an environment
/// variable instead.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PromptInput {
    pub(crate) id: String,
    pub(crate) description: Option<String>,
    pub(crate) password: bool,
    /// The variable Ghostlab reads in its place.
    pub(crate) variable: String,
}

/// Reads VS Code's top-level `inputs` list.
pub(crate) fn prompt_inputs(doc: &Value) -> Vec<PromptInput> {
    let Some(items) = doc.get("inputs").and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|i| {
            let id = i.get("id")?.as_str()?.to_string();
            Some(PromptInput {
                variable: input_variable(&id),
                description: i.get("description").and_then(Value::as_str).map(str::to_string),
                password: i.get("password").and_then(Value::as_bool).unwrap_or(false),
                id,
            })
        })
        .collect()
}

/// The environment variable that stands for `${input:<id>}`: the id the user wrote, in the
/// usual variable spelling (`github-token` → `GITHUB_TOKEN`).
pub(crate) fn input_variable(id: &str) -> String {
    let mut name = crate::util::secret_ref::env_spelling(id);
    if name.chars().next().is_none_or(|c| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}

static INPUT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\$\{input:([^}]+)\}").expect("valid regex"));
static BRACED_ENV: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(^|[^$])\{env:([A-Za-z_][A-Za-z0-9_]*)\}").expect("valid regex"));
static DEFAULTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*):-[^}]*\}").expect("valid regex"));
static BARE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\$([A-Za-z_][A-Za-z0-9_]*)").expect("valid regex"));

/// Rewrites every client reference syntax into Ghostlab's `${VAR}`:
/// `${env:X}` (VS Code, Cursor) and `{env:X}` (OpenCode) → `${X}`; `${input:id}` → the
/// input's variable; `${VAR:-default}` (Claude Code) → `${VAR}` (the default is not carried).
pub(crate) fn normalize_refs(text: &str) -> String {
    let text = text.replace("${env:", "${");
    let text = BRACED_ENV.replace_all(&text, "$1$${$2}");
    let text = INPUT.replace_all(&text, |c: &regex::Captures| format!("${{{}}}", input_variable(&c[1])));
    DEFAULTED.replace_all(&text, "$${$1}").into_owned()
}

/// True when `text` uses `${VAR:-default}`, whose default Ghostlab does not carry.
pub(crate) fn has_default(text: &str) -> bool {
    DEFAULTED.is_match(text)
}

/// A shell-style `$VAR` the user wrote (MCP clients do not expand it), for a precise hint.
pub(crate) fn bare_variable(text: &str) -> Option<String> {
    let stripped = text.replace("${", "");
    BARE.captures(&stripped).map(|c| c[1].to_string())
}

/// The folder VS Code and Cursor mean by `${workspaceFolder}`: the parent of `.vscode` or
/// `.cursor`, else the file's own folder.
pub(crate) fn workspace_folder(base: &Path) -> PathBuf {
    match base.file_name().and_then(|n| n.to_str()) {
        Some(".vscode" | ".cursor" | ".roo" | ".kilocode") => base.parent().unwrap_or(base).to_path_buf(),
        _ => base.to_path_buf(),
    }
}

/// Substitutes the editor variables that name folders: `${workspaceFolder}`, `${userHome}`.
pub(crate) fn substitute_folders(text: &str, workspace: &Path) -> String {
    text.replace("${workspaceFolder}", &workspace.to_string_lossy())
        .replace("${userHome}", "${HOME}")
}

/// Client-only keys of an entry that Ghostlab accepts and reports.
pub(crate) const CLIENT_ONLY_KEYS: &[&str] = &[
    "disabledTools",
    "autoApprove",
    "alwaysAllow",
    "envFile",
    // Roo Code / Kilo Code: restart the server when these files change (an editor's job).
    "watchPaths",
];

/// Notes for the keys of another client's server entry that neither Ghostlab nor OpenCode
/// knows and that are no near miss of one (those stay errors): each is dropped, and said so.
pub(crate) fn foreign_key_notes(file: &Path, at: &str, entry: &Value, known: &[&str]) -> Vec<Diagnostic> {
    /// Keys named one by one; a flood of stray keys ends in one line, not thousands.
    const NAMED: usize = 10;
    let Some(obj) = entry.as_object() else {
        return Vec::new();
    };
    let dropped: Vec<&String> = obj
        .keys()
        .filter(|k| !known.contains(&k.as_str()) && !CLIENT_ONLY_KEYS.contains(&k.as_str()))
        .filter(|k| crate::spec::diagnostics::nearest(k, known.iter().chain(CLIENT_ONLY_KEYS).copied()).is_none())
        .collect();
    let mut out: Vec<Diagnostic> = dropped
        .iter()
        .take(NAMED)
        .map(|k| {
            diag(
                file,
                join(at, k),
                format!(
                    "not carried: `{k}` is another client's setting that OpenCode has no key for; the server runs without it"
                ),
            )
        })
        .collect();
    if dropped.len() > NAMED {
        out.push(diag(
            file,
            at,
            format!(
                "… and {} more keys of another client, not carried",
                dropped.len() - NAMED
            ),
        ));
    }
    out
}

/// Tool names listed under a client-only key, when it is a list of strings.
pub(crate) fn tool_list(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// Notes for the client-only keys of one server entry.
pub(crate) fn client_key_notes(
    file: &Path,
    base: &Path,
    at: &str,
    obj: &serde_json::Map<String, Value>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(v) = obj.get("disabledTools") {
        let tools = tool_list(v);
        out.push(diag(
            file,
            join(at, "disabledTools"),
            format!(
                "the client hides {} from the model; `ghostlab init` carries this as `permission: deny` for each tool, a job that only references this file does not",
                names(&tools)
            ),
        ));
    }
    for key in ["autoApprove", "alwaysAllow"] {
        if let Some(v) = obj.get(key) {
            out.push(diag(
                file,
                join(at, key),
                format!(
                    "not carried: a client approval list ({}); OpenCode runs MCP tools without asking unless `permission` says `ask`",
                    names(&tool_list(v))
                ),
            ));
        }
    }
    if obj.contains_key("watchPaths") {
        out.push(diag(
            file,
            join(at, "watchPaths"),
            "not carried: the editor restarts the server when these files change; a Ghostlab run starts it once per case",
        ));
    }
    if let Some(Value::String(env_file)) = obj.get("envFile") {
        let path = base.join(substitute_folders(env_file, &workspace_folder(base)));
        let vars = env_file_names(&path);
        let what = if vars.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                vars.iter().map(|v| format!("${{{v}}}")).collect::<Vec<_>>().join(", ")
            )
        };
        out.push(diag(
            file,
            join(at, "envFile"),
            format!(
                "not carried: Ghostlab does not read values from `{env_file}`; export its variables{what} or add them to `env` as `${{VAR}}` references"
            ),
        ));
    }
    out
}

/// The variable names an env file defines (values are never read into Ghostlab's memory
/// beyond this line split).
fn env_file_names(path: &Path) -> Vec<String> {
    let Ok(text) = crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::Config) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| {
            let l = l.trim().trim_start_matches("export ");
            let (name, _) = l.split_once('=')?;
            let name = name.trim();
            (!name.is_empty() && !name.starts_with('#') && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .then(|| name.to_string())
        })
        .collect()
}

fn names(tools: &[String]) -> String {
    if tools.is_empty() {
        "no tools".into()
    } else {
        tools.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
    }
}

/// Every note about one server entry: client-only keys, `oauth`, prompted inputs (each
/// announced once per file) and `${VAR:-default}` defaults.
pub(crate) fn entry_notes(
    path: &Path,
    base: &Path,
    at: &str,
    entry: &Value,
    declared: &IndexMap<&str, &PromptInput>,
    announced: &mut Vec<String>,
) -> Vec<Diagnostic> {
    let mut notes = Vec::new();
    if let Some(obj) = entry.as_object() {
        notes.extend(client_key_notes(path, base, at, obj));
        if let Some(Value::Object(_)) = obj.get("oauth") {
            notes.push(diag(
                path,
                join(at, "oauth"),
                "not carried: OAuth sign-in cannot run unattended in a sandbox; Ghostlab sends `headers` only (put a token reference there)",
            ));
        }
    }
    for id in entry_inputs(entry) {
        if announced.contains(&id) {
            continue;
        }
        announced.push(id.clone());
        let var = input_variable(&id);
        let what = match declared.get(id.as_str()) {
            Some(i) => format!(
                "{}{}",
                i.description
                    .as_deref()
                    .map(|d| format!(" \"{d}\""))
                    .unwrap_or_default(),
                if i.password { " (a password)" } else { "" }
            ),
            None => " (not declared under `inputs`)".into(),
        };
        notes.push(diag(
            path,
            at,
            format!(
                "VS Code prompts for input `{id}`{what}; Ghostlab reads it from the environment variable `${{{var}}}` instead: export {var}"
            ),
        ));
    }
    if has_default(&entry.to_string()) {
        notes.push(diag(
            path,
            at,
            "a `${VAR:-default}` default is not carried: Ghostlab reads `${VAR}` and fails closed when it is unset",
        ));
    }
    notes
}

/// The inputs whose `${input:…}` a map of strings refers to.
pub(crate) fn used_inputs<'a>(values: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        for c in INPUT.captures_iter(v) {
            if !out.contains(&c[1].to_string()) {
                out.push(c[1].to_string());
            }
        }
    }
    out
}

/// Input ids referenced anywhere in an entry (`env`, `headers`, `args`, `url`).
pub(crate) fn entry_inputs(entry: &Value) -> Vec<String> {
    let mut strings: Vec<&str> = Vec::new();
    collect_strings(entry, &mut strings);
    used_inputs(strings.into_iter())
}

fn collect_strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

/// Map of input id → its declaration, for notes.
pub(crate) fn inputs_by_id(inputs: &[PromptInput]) -> IndexMap<&str, &PromptInput> {
    inputs.iter().map(|i| (i.id.as_str(), i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_syntax_becomes_a_reference() {
        assert_eq!(normalize_refs("Bearer ${env:TOKEN}"), "Bearer ${TOKEN}");
        assert_eq!(normalize_refs("{env:TOKEN}"), "${TOKEN}");
        assert_eq!(normalize_refs("${TOKEN}"), "${TOKEN}");
        assert_eq!(normalize_refs("Bearer ${input:github-token}"), "Bearer ${GITHUB_TOKEN}");
        assert_eq!(normalize_refs("${API_URL:-https://x}"), "${API_URL}");
    }

    #[test]
    fn bare_variables_are_found_for_hints() {
        assert_eq!(bare_variable("$GH_PAT").as_deref(), Some("GH_PAT"));
        assert_eq!(bare_variable("Bearer $TOKEN").as_deref(), Some("TOKEN"));
        assert_eq!(bare_variable("plain"), None);
    }

    #[test]
    fn workspace_folder_is_above_editor_folders() {
        assert_eq!(workspace_folder(Path::new("/p/.vscode")), PathBuf::from("/p"));
        assert_eq!(workspace_folder(Path::new("/p")), PathBuf::from("/p"));
        assert_eq!(substitute_folders("${workspaceFolder}/x", Path::new("/p")), "/p/x");
    }

    #[test]
    fn input_ids_become_variable_names() {
        assert_eq!(input_variable("perplexity-key"), "PERPLEXITY_KEY");
        assert_eq!(input_variable("1x"), "_1X");
    }
}
