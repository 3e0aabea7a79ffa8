//! One server entry of an MCP servers file, in any of the three dialects: its keys checked,
//! its references normalised to `${VAR}`, its literal credentials refused, its paths resolved
//! against the file's folder. The reading of the whole file is `spec::mcp_file`.

use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

use super::agent_inputs::RemoteTransport;
use super::diagnostics::{Diagnostic, diag, index, join, nearest};
use super::document::json_type;
use super::mcp_dialects::{CLIENT_ONLY_KEYS, normalize_refs, substitute_folders, workspace_folder};
use super::mcp_literals::{check_literal_secrets, check_literal_token};
use super::relative_path::normalize;
use super::resolved::{McpTransport, ResolvedMcp};
use crate::util::secret_ref::{has_reference, is_secret_name};

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

/// The keys of a server entry in the `mcpServers` and VS Code dialects.
pub(super) const STANDARD_KEYS: &[&str] = &[
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
/// The keys of a server entry in OpenCode's `mcp`.
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

/// OpenCode's `timeout` is milliseconds; the editors that have one (Cline, Roo Code, Kilo
/// Code) count seconds: carried as written, 60 would time out after 60 ms.
pub(super) fn timeout_in_ms(format: McpFileFormat, timeout: u64) -> u64 {
    match format {
        McpFileFormat::Opencode => timeout,
        McpFileFormat::McpServers | McpFileFormat::VsCode => timeout.saturating_mul(1000),
    }
}

pub(super) fn parse_entry(
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
    let mut ds = unknown_keys(file, at, format, obj);
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
    let env_key = env_key(format);
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
    let timeout_ms = obj
        .get("timeout")
        .and_then(Value::as_u64)
        .map(|t| timeout_in_ms(format, t));

    let command = command_argv(file, at, format, obj, &mut ds);

    check_literal_secrets(file, &join(at, env_key), &env, &mut ds);
    check_literal_secrets(file, &join(at, "headers"), &headers, &mut ds);
    check_argv_and_url(file, at, format, &command, url.as_deref(), &mut ds);

    let transport = match (command.is_empty(), url) {
        (false, None) => {
            let argv = command.iter().enumerate();
            let argv = argv.map(|(i, arg)| resolve_path_arg(base, arg, i == 0).to_string_lossy().into_owned());
            McpTransport::Stdio {
                command: argv.collect(),
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
        enabled: enabled_of(obj),
        timeout_ms,
        oauth,
        origin: (file.to_path_buf(), at.to_string()),
    })
}

/// An unknown key of an entry: a near miss of a known key is a typo that would change what
/// runs (refused); another client's own setting is dropped with a note elsewhere
/// (`foreign_key_notes`). OpenCode's own file is as strict as OpenCode.
fn unknown_keys(file: &Path, at: &str, format: McpFileFormat, obj: &Map<String, Value>) -> Vec<Diagnostic> {
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
        if near.is_none() && format != McpFileFormat::Opencode {
            continue;
        }
        let mut d = diag(file, join(at, key), format!("unknown key `{key}`"));
        d.hint = near.map(|k| format!("did you mean `{k}`?"));
        ds.push(d);
    }
    ds
}

/// The server's argv: OpenCode's `command` list, or another dialect's `command` string plus
/// `args`; references normalised. Wrong types are diagnostics.
fn command_argv(
    file: &Path,
    at: &str,
    format: McpFileFormat,
    obj: &Map<String, Value>,
    ds: &mut Vec<Diagnostic>,
) -> Vec<String> {
    match (format, obj.get("command")) {
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
    }
}

/// Token-shaped values in argv or URL, each refused at its own key.
fn check_argv_and_url(
    file: &Path,
    at: &str,
    format: McpFileFormat,
    command: &[String],
    url: Option<&str>,
    ds: &mut Vec<Diagnostic>,
) {
    for (i, arg) in command.iter().enumerate() {
        let key = match (format, i) {
            (McpFileFormat::Opencode, _) => index(&join(at, "command"), i),
            (_, 0) => join(at, "command"),
            _ => index(&join(at, "args"), i - 1),
        };
        check_literal_token(file, &key, arg, ds);
    }
    if let Some(u) = url {
        check_literal_token(file, &join(at, "url"), u, ds);
    }
}

/// `enabled`, or the inverse of another client's `disabled`; on when neither is a boolean.
fn enabled_of(obj: &Map<String, Value>) -> bool {
    match (obj.get("enabled"), obj.get("disabled")) {
        (Some(Value::Bool(e)), _) => *e,
        (_, Some(Value::Bool(d))) => !*d,
        _ => true,
    }
}

/// The key of a server's environment in this dialect.
fn env_key(format: McpFileFormat) -> &'static str {
    if format == McpFileFormat::Opencode {
        "environment"
    } else {
        "env"
    }
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
                        out.insert(k.clone(), normalize_refs(s));
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
