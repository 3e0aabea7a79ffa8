//! Standard MCP servers files: Claude Desktop / Cursor (`mcpServers`), VS Code (`servers`)
//! and OpenCode (`mcp`). Relative commands, arguments and cwd resolve against the file's own
//! folder; `${env:VAR}`, `{env:VAR}` and `${input:id}` become Ghostlab's `${VAR}`; literal
//! secrets are refused. Every file is read as JSONC (comments, trailing commas) unless it is
//! YAML by name. Client-only keys are accepted and reported as notes (see `mcp_dialects`).

use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

use super::agent::RemoteTransport;
use super::diagnostics::{Diagnostic, SpecError, diag, index, join, nearest};
use super::document::{job_dir, json_type};
use super::jsonc::read_json_or_yaml;
use super::mcp_dialects::{
    CLIENT_ONLY_KEYS, bare_variable, entry_notes, foreign_key_notes, inputs_by_id, normalize_refs, prompt_inputs,
    substitute_folders, tool_list, workspace_folder,
};
use super::relative_path::normalize;
use super::resolved::{McpTransport, ResolvedMcp};
use crate::util::secret_ref::{env_spelling, has_reference, is_secret_name};

/// The dialect a servers file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum McpFileFormat {
    /// `{"mcpServers": {...}}` (Claude Desktop, Cursor, most docs).
    McpServers,
    /// `{"servers": {...}}` (VS Code).
    VsCode,
    /// `{"mcp": {...}}` (OpenCode).
    Opencode,
}

const STANDARD_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "type",
    "transport",
    // Cline: `stdio` or `sse`, read like `type`.
    "transportType",
    "disabled",
    "enabled",
    "timeout",
    "description",
];
const OPENCODE_KEYS: &[&str] = &[
    "type",
    "command",
    "environment",
    "cwd",
    "url",
    "headers",
    "enabled",
    "timeout",
    "oauth",
];

/// An MCP servers file as read: its servers plus what Ghostlab could not apply itself.
#[derive(Debug, Clone)]
pub(crate) struct McpFile {
    pub(crate) servers: IndexMap<String, ResolvedMcp>,
    /// Warnings about keys and references that are not carried as written.
    pub(crate) notes: Vec<Diagnostic>,
    /// `disabledTools` per server (tools the client hides from the model).
    pub(crate) disabled_tools: IndexMap<String, Vec<String>>,
}

/// Reads every server of an MCP servers file, resolving paths against the file's folder.
pub fn read_mcp_file(path: &Path) -> Result<IndexMap<String, ResolvedMcp>, SpecError> {
    read_mcp_file_noted(path).map(|f| f.servers)
}

/// Reads an MCP servers file with its notes and disabled tools (prompted inputs become
/// `${VAR}` references).
pub(crate) fn read_mcp_file_noted(path: &Path) -> Result<McpFile, SpecError> {
    let doc = read_json_or_yaml(path)?;
    let (format, servers) = detect(path, &doc)?;
    // Without `..`: `${workspaceFolder}` and relative paths are substituted as text.
    let base = normalize(&job_dir(path));
    let inputs = prompt_inputs(&doc);
    let mut notes = Vec::new();
    let mut disabled_tools = IndexMap::new();
    let mut out = IndexMap::new();
    let mut diagnostics = Vec::new();
    let section = match format {
        McpFileFormat::McpServers => "mcpServers",
        McpFileFormat::VsCode => "servers",
        McpFileFormat::Opencode => "mcp",
    };
    let declared = inputs_by_id(&inputs);
    let mut announced: Vec<String> = Vec::new();
    for (name, entry) in servers {
        let at = join(section, name);
        if let Some(c) = super::control_chars::control_char(name) {
            let mut d = diag(
                path,
                join(section, &name.escape_debug().to_string()),
                format!("the server name holds the control character U+{:04X}", c as u32),
            );
            d.hint = Some("names are shown in terminals and reports; use printable characters only".into());
            diagnostics.push(d);
            continue;
        }
        let mut entry_notes = entry_notes(path, &base, &at, entry, &declared, &mut announced);
        if format != McpFileFormat::Opencode {
            entry_notes.extend(foreign_key_notes(path, &at, entry, STANDARD_KEYS));
        }
        // OpenCode's own `oauth` is carried (`parse_entry`); another client's is not.
        let carried = |d: &Diagnostic| format == McpFileFormat::Opencode && d.path == join(&at, "oauth");
        notes.extend(entry_notes.into_iter().filter(|d| !carried(d)));
        if let Some(t) = entry.get("timeout").and_then(Value::as_u64)
            && format != McpFileFormat::Opencode
        {
            notes.push(diag(
                path,
                join(&at, "timeout"),
                format!(
                    "read as {t} s (the editor's unit) and carried as {} ms, OpenCode's unit",
                    timeout_in_ms(format, t)
                ),
            ));
        }
        if let Some(v) = entry.get("disabledTools") {
            disabled_tools.insert(name.clone(), tool_list(v));
        }
        match parse_entry(path, &base, format, name, &at, entry) {
            Ok(server) => {
                out.insert(name.clone(), server);
            }
            Err(mut ds) => diagnostics.append(&mut ds),
        }
    }
    if diagnostics.is_empty() {
        Ok(McpFile {
            servers: out,
            notes,
            disabled_tools,
        })
    } else {
        Err(SpecError { diagnostics })
    }
}

fn detect<'a>(path: &Path, doc: &'a Value) -> Result<(McpFileFormat, &'a Map<String, Value>), SpecError> {
    for (key, format) in [
        ("mcpServers", McpFileFormat::McpServers),
        ("servers", McpFileFormat::VsCode),
        ("mcp", McpFileFormat::Opencode),
    ] {
        if let Some(section) = doc.get(key) {
            return section.as_object().map(|m| (format, m)).ok_or_else(|| {
                SpecError::one(
                    path,
                    key,
                    format!("expected a mapping of servers, found {}", json_type(section)),
                )
            });
        }
    }
    Err(SpecError::one(
        path,
        "",
        "no MCP servers found: expected a top-level `mcpServers`, `servers` or `mcp` mapping",
    ))
}

/// OpenCode's `timeout` is milliseconds; the editors that have one (Cline, Roo Code, Kilo
/// Code) count seconds: carried as written, 60 would time out after 60 ms.
fn timeout_in_ms(format: McpFileFormat, timeout: u64) -> u64 {
    match format {
        McpFileFormat::Opencode => timeout,
        McpFileFormat::McpServers | McpFileFormat::VsCode => timeout.saturating_mul(1000),
    }
}

fn parse_entry(
    file: &Path,
    base: &Path,
    format: McpFileFormat,
    name: &str,
    at: &str,
    entry: &Value,
) -> Result<ResolvedMcp, Vec<Diagnostic>> {
    let entry = &with_folders(entry, &workspace_folder(base));
    let Some(obj) = entry.as_object() else {
        return Err(vec![diag(
            file,
            at,
            format!("expected a mapping, found {}", json_type(entry)),
        )]);
    };
    let known = if format == McpFileFormat::Opencode {
        OPENCODE_KEYS
    } else {
        STANDARD_KEYS
    };
    let mut ds = Vec::new();
    for key in obj
        .keys()
        .filter(|k| !known.contains(&k.as_str()) && !CLIENT_ONLY_KEYS.contains(&k.as_str()))
    {
        let near = nearest(key, known.iter().chain(CLIENT_ONLY_KEYS).copied());
        // Another client's own setting is dropped with a note (`foreign_key_notes`); a near
        // miss of a known key is a typo that would change what runs, and OpenCode's own
        // file is as strict as OpenCode.
        if near.is_none() && format != McpFileFormat::Opencode {
            continue;
        }
        let mut d = diag(file, join(at, key), format!("unknown key `{key}`"));
        d.hint = near.map(|k| format!("did you mean `{k}`?"));
        ds.push(d);
    }
    let string = |key: &str, ds: &mut Vec<Diagnostic>| -> Option<String> {
        match obj.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                ds.push(diag(
                    file,
                    join(at, key),
                    format!("wrong type: expected a string, found {}", json_type(other)),
                ));
                None
            }
        }
    };
    let env_key = if format == McpFileFormat::Opencode {
        "environment"
    } else {
        "env"
    };
    let env = string_map(file, &join(at, env_key), obj.get(env_key), &mut ds);
    let headers = string_map(file, &join(at, "headers"), obj.get("headers"), &mut ds);
    // `${input:…}` and `${env:…}` in a URL become references as in headers and env.
    let url = string("url", &mut ds).map(|u| normalize_refs(&u));
    let oauth = match format {
        McpFileFormat::Opencode => oauth_value(file, at, obj.get("oauth"), &mut ds),
        McpFileFormat::McpServers | McpFileFormat::VsCode => None,
    };
    let kind = string("type", &mut ds)
        .or_else(|| string("transport", &mut ds))
        .or_else(|| string("transportType", &mut ds));
    let cwd = string("cwd", &mut ds).map(|c| resolve_path_arg(base, &c, true));
    let enabled = match (obj.get("enabled"), obj.get("disabled")) {
        (Some(Value::Bool(e)), _) => *e,
        (_, Some(Value::Bool(d))) => !*d,
        _ => true,
    };
    // OpenCode's `timeout` is milliseconds; the editors that have one (Cline, Roo Code, Kilo
    // Code) count seconds. Carried as written, 60 would time out after 60 ms.
    let timeout_ms = obj
        .get("timeout")
        .and_then(Value::as_u64)
        .map(|t| timeout_in_ms(format, t));

    let command: Vec<String> = match (format, obj.get("command")) {
        (McpFileFormat::Opencode, Some(Value::Array(items))) => {
            items.iter().filter_map(|v| v.as_str().map(normalize_refs)).collect()
        }
        (McpFileFormat::Opencode, Some(other)) => {
            ds.push(diag(
                file,
                join(at, "command"),
                format!("wrong type: expected a list of strings, found {}", json_type(other)),
            ));
            Vec::new()
        }
        (_, Some(Value::String(cmd))) => {
            let mut argv = vec![cmd.clone()];
            match obj.get("args") {
                Some(Value::Array(args)) => argv.extend(
                    args.iter()
                        .map(|a| a.as_str().map(normalize_refs).unwrap_or_else(|| a.to_string())),
                ),
                Some(other) => ds.push(diag(
                    file,
                    join(at, "args"),
                    format!("wrong type: expected a list of strings, found {}", json_type(other)),
                )),
                None => {}
            }
            argv
        }
        (_, Some(other)) => {
            ds.push(diag(
                file,
                join(at, "command"),
                format!("wrong type: expected a string, found {}", json_type(other)),
            ));
            Vec::new()
        }
        (_, None) => Vec::new(),
    };

    check_literal_secrets(file, &join(at, env_key), &env, &mut ds);
    check_literal_secrets(file, &join(at, "headers"), &headers, &mut ds);
    for (i, arg) in command.iter().enumerate() {
        let key = match (format, i) {
            (McpFileFormat::Opencode, _) => index(&join(at, "command"), i),
            (_, 0) => join(at, "command"),
            _ => index(&join(at, "args"), i - 1),
        };
        check_literal_token(file, &key, arg, &mut ds);
    }
    if let Some(u) = &url {
        check_literal_token(file, &join(at, "url"), u, &mut ds);
    }

    let transport = match (command.is_empty(), url) {
        (false, None) => {
            let mut argv: Vec<String> = Vec::with_capacity(command.len());
            for (i, arg) in command.iter().enumerate() {
                argv.push(resolve_path_arg(base, arg, i == 0).to_string_lossy().into_owned());
            }
            McpTransport::Stdio {
                command: argv,
                cwd,
                env,
            }
        }
        (true, Some(url)) => {
            let kind = match kind.as_deref() {
                Some("sse") => RemoteTransport::Sse,
                _ => RemoteTransport::StreamableHttp,
            };
            McpTransport::Remote { url, headers, kind }
        }
        (false, Some(_)) => {
            ds.push(diag(
                file,
                at,
                "a server has either `command` (stdio) or `url` (remote), not both",
            ));
            return Err(ds);
        }
        (true, None) => {
            ds.push(diag(file, at, "a server needs `command` (stdio) or `url` (remote)"));
            return Err(ds);
        }
    };
    if !ds.is_empty() {
        return Err(ds);
    }
    Ok(ResolvedMcp {
        name: name.to_string(),
        transport,
        enabled,
        timeout_ms,
        oauth,
        origin: (file.to_path_buf(), at.to_string()),
    })
}

/// OpenCode's `oauth` on a server: `false`, or client settings (`{}` lets OpenCode register
/// itself). Carried as written so the server behaves as in the source; a `clientSecret`
/// must be a reference, like every other secret.
fn oauth_value(file: &Path, at: &str, v: Option<&Value>, ds: &mut Vec<Diagnostic>) -> Option<Value> {
    let at = join(at, "oauth");
    match v? {
        Value::Bool(false) => Some(Value::Bool(false)),
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let Some(s) = v.as_str() else {
                    ds.push(diag(
                        file,
                        join(&at, k),
                        format!("wrong type: expected a string, found {}", json_type(v)),
                    ));
                    continue;
                };
                let s = normalize_refs(s);
                if is_secret_name(k) && !has_reference(&s) {
                    ds.push(diag(
                        file,
                        join(&at, k),
                        "a literal secret; write a reference such as `${OAUTH_CLIENT_SECRET}` and export the variable",
                    ));
                    continue;
                }
                out.insert(k.clone(), Value::String(s));
            }
            Some(Value::Object(out))
        }
        other => {
            ds.push(diag(
                file,
                at,
                format!(
                    "expected `false` or a mapping of OAuth client settings, found {}",
                    json_type(other)
                ),
            ));
            None
        }
    }
}

/// Substitutes `${workspaceFolder}` and `${userHome}` in every string of an entry.
fn with_folders(entry: &Value, workspace: &Path) -> Value {
    match entry {
        Value::String(s) => Value::String(substitute_folders(s, workspace)),
        Value::Array(a) => Value::Array(a.iter().map(|v| with_folders(v, workspace)).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), with_folders(v, workspace))).collect()),
        other => other.clone(),
    }
}

/// Reads a `{name: string}` map, converting `${env:X}` / `{env:X}` / `${input:id}` to `${X}`.
pub(crate) fn string_map(
    file: &Path,
    at: &str,
    value: Option<&Value>,
    ds: &mut Vec<Diagnostic>,
) -> IndexMap<String, String> {
    let mut out = IndexMap::new();
    match value {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (k, v) in map {
                match v {
                    Value::String(s) => {
                        out.insert(k.clone(), normalize_env_refs(s));
                    }
                    Value::Number(_) | Value::Bool(_) => {
                        out.insert(k.clone(), v.to_string());
                    }
                    other => ds.push(diag(
                        file,
                        join(at, k),
                        format!("wrong type: expected a string, found {}", json_type(other)),
                    )),
                }
            }
        }
        Some(other) => ds.push(diag(
            file,
            at,
            format!("wrong type: expected a mapping, found {}", json_type(other)),
        )),
    }
    out
}

/// Rewrites every client reference syntax (`${env:X}`, `{env:X}`, `${input:id}`,
/// `${X:-default}`) into `${X}`.
pub(crate) fn normalize_env_refs(text: &str) -> String {
    normalize_refs(text)
}

/// Refuses a value shaped like a credential (`sk-ant-…`, `ghp_…`, a bearer token) in a
/// server's argv or URL, where a secret-named `${VAR}` is refused too: both reach generated
/// configs and process listings. The value itself is never echoed.
pub(crate) fn check_literal_token(file: &Path, at: &str, value: &str, ds: &mut Vec<Diagnostic>) {
    if crate::util::token_shape::has_token_shape(value) {
        let mut d = diag(file, at, "holds a literal credential (a token-shaped value)");
        d.hint = Some(if at.ends_with("url") {
            "send it in a header written as a `${VAR}` reference, and export that variable".into()
        } else {
            "pass it through the server's environment as a `${VAR}` reference, and let the server read it there".into()
        });
        ds.push(d);
    }
}

/// Refuses literal values for keys that carry credentials: they would reach generated files.
pub(crate) fn check_literal_secrets(file: &Path, at: &str, map: &IndexMap<String, String>, ds: &mut Vec<Diagnostic>) {
    for (key, value) in map {
        let unclosed = crate::util::secret_ref::unterminated_reference(value).is_some();
        if is_secret_name(key) && !value.is_empty() && (!has_reference(value) || unclosed) {
            if let Some((message, hint)) = crate::util::secret_ref::literal_credential_message(value) {
                let mut d = diag(file, join(at, key), message);
                d.hint = Some(hint);
                ds.push(d);
                continue;
            }
            let mut d = diag(file, join(at, key), "a literal credential is not allowed here");
            d.hint = Some(match bare_variable(value) {
                Some(var) => {
                    format!("`${var}` is not expanded by MCP clients or OpenCode; write `${{{var}}}` and export {var}")
                }
                None => format!(
                    "write it as a reference, e.g. `${{{}}}`, and export that variable",
                    env_spelling(key)
                ),
            });
            ds.push(d);
        }
    }
}

/// Resolves a relative path argument (`./server.js`, `../bin/x`) against `base`; leaves bare
/// program names (`node`, `npx`) and flags alone. `is_program` also resolves `bin/x`.
pub(crate) fn resolve_path_arg(base: &Path, arg: &str, is_program: bool) -> PathBuf {
    let p = Path::new(arg);
    let relative_path =
        arg.starts_with("./") || arg.starts_with("../") || (is_program && arg.contains('/') && !p.is_absolute());
    if relative_path {
        let joined = normalize(&base.join(p));
        // Real paths, so a sandbox that binds inputs at their real location finds them even
        // when the checkout is reached through a symlink.
        joined.canonicalize().unwrap_or(joined)
    } else {
        PathBuf::from(arg)
    }
}

#[cfg(test)]
#[path = "mcp_file_tests.rs"]
mod tests;
