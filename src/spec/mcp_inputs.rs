//! Resolving `agent.inputs.mcps`: each entry from its MCP servers file (`config_ref` +
//! `server`) or inline, with unique names and no literal secrets.

use std::path::Path;

use super::agent::{McpInput, RemoteTransport};
use super::diagnostics::{Diagnostic, diag, index, join};
use super::mcp_entry::resolve_path_arg;
use super::mcp_file::read_mcp_file;
use super::mcp_literals::{check_literal_secrets, check_literal_token};
use super::relative_path::resolve_against;
use super::resolved::{McpTransport, ResolvedMcp};
use crate::util::secret_ref::{is_secret_name, referenced_vars};

/// Resolves every `agent.inputs.mcps` entry; names must be unique.
pub fn resolve_mcps(path: &Path, dir: &Path, inputs: &[McpInput], ds: &mut Vec<Diagnostic>) -> Vec<ResolvedMcp> {
    let mut out: Vec<ResolvedMcp> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let at = index("agent.inputs.mcps", i);
        let resolved = if let Some(cfg) = &input.config_ref {
            let Some(server) = &input.server else {
                ds.push(diag(
                    path,
                    join(&at, "server"),
                    "`config_ref` needs `server`: the name of the server inside that file",
                ));
                continue;
            };
            if !input.command.is_empty() || input.url.is_some() {
                ds.push(diag(
                    path,
                    &at,
                    "use either `config_ref` + `server` or an inline `command`/`url`, not both",
                ));
                continue;
            }
            let file = resolve_against(dir, cfg);
            if !file.exists() {
                ds.push(diag(
                    path,
                    join(&at, "config_ref"),
                    format!("referenced file `{cfg}` does not exist (looked for {})", file.display()),
                ));
                continue;
            }
            match read_mcp_file(&file) {
                Ok(mut servers) => match servers.shift_remove(server) {
                    Some(mut s) => {
                        if let Some(e) = input.enabled {
                            s.enabled = e;
                        }
                        s
                    }
                    None => {
                        let mut d = diag(
                            path,
                            join(&at, "server"),
                            format!("server `{server}` is not in `{cfg}`"),
                        );
                        d.hint = Some(format!(
                            "servers there: {}",
                            servers.keys().cloned().collect::<Vec<_>>().join(", ")
                        ));
                        ds.push(d);
                        continue;
                    }
                },
                Err(e) => {
                    let by = format!("referenced by {}: {}", path.display(), join(&at, "config_ref"));
                    ds.extend(e.diagnostics.into_iter().map(|mut d| {
                        // A whole-file problem (not JSON/YAML, too big, a FIFO) belongs to the
                        // key that names the file.
                        if d.path.is_empty() {
                            d.message = format!("{}: {}", d.file.display(), d.message);
                            d.file = path.to_path_buf();
                            d.path = join(&at, "config_ref");
                            return d;
                        }
                        d.hint = Some(match d.hint.take() {
                            Some(h) => format!("{h}; {by}"),
                            None => by.clone(),
                        });
                        d
                    }));
                    continue;
                }
            }
        } else {
            let Some(name) = &input.server else {
                ds.push(diag(
                    path,
                    join(&at, "server"),
                    "an inline MCP server needs `server` (its name)",
                ));
                continue;
            };
            check_literal_secrets(path, &join(&at, "environment"), &input.environment, ds);
            check_literal_secrets(path, &join(&at, "headers"), &input.headers, ds);
            for (j, arg) in input.command.iter().enumerate() {
                check_literal_token(path, &index(&join(&at, "command"), j), arg, ds);
            }
            if let Some(u) = &input.url {
                check_literal_token(path, &join(&at, "url"), u, ds);
            }
            let transport = match (input.command.is_empty(), &input.url) {
                (false, None) => McpTransport::Stdio {
                    command: input
                        .command
                        .iter()
                        .enumerate()
                        .map(|(j, a)| resolve_path_arg(dir, a, j == 0).to_string_lossy().into_owned())
                        .collect(),
                    cwd: input.cwd.as_deref().map(|c| resolve_against(dir, c)),
                    env: input.environment.clone(),
                },
                (true, Some(url)) => McpTransport::Remote {
                    url: url.clone(),
                    headers: input.headers.clone(),
                    kind: input.transport.unwrap_or(RemoteTransport::StreamableHttp),
                },
                _ => {
                    ds.push(diag(
                        path,
                        &at,
                        "an inline MCP server needs exactly one of `command` (stdio) or `url` (remote)",
                    ));
                    continue;
                }
            };
            ResolvedMcp {
                name: name.clone(),
                transport,
                enabled: input.enabled.unwrap_or(true),
                timeout_ms: input.timeout,
                oauth: None,
                origin: (path.to_path_buf(), at.clone()),
            }
        };
        if out.iter().any(|m| m.name == resolved.name) {
            ds.push(diag(
                path,
                join(&at, "server"),
                format!("two MCP servers are named `{}`", resolved.name),
            ));
            continue;
        }
        refuse_secret_arguments(path, &at, input.config_ref.is_some(), &resolved, ds);
        let mut r = resolved;
        if let Some(t) = input.timeout {
            r.timeout_ms = Some(t);
        }
        out.push(r);
    }
    out
}

/// A `${VAR}` naming a secret in a stdio server's command line would put its value on that
/// process's argv, which every process on the host can read: refused, with the way out.
fn refuse_secret_arguments(path: &Path, at: &str, from_file: bool, server: &ResolvedMcp, ds: &mut Vec<Diagnostic>) {
    let McpTransport::Stdio { command, .. } = &server.transport else {
        return;
    };
    let key = join(at, if from_file { "server" } else { "command" });
    for var in command
        .iter()
        .flat_map(|a| referenced_vars(a))
        .filter(|v| is_secret_name(v))
    {
        let mut d = diag(
            path,
            key.clone(),
            format!(
                "MCP server `{}` passes `${{{var}}}` on its command line, where any process on the host could read the value",
                server.name
            ),
        );
        d.hint = Some(format!(
            "pass it through the server's environment instead (`{var}: \"${{{var}}}\"` under its env) and let the server read it there"
        ));
        ds.push(d);
    }
}
