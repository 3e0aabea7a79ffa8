//! Resolving `agent.inputs.mcps`: each entry from its MCP servers file (`config_ref` +
//! `server`) or inline, with unique names and no literal secrets.

use std::path::Path;

use super::agent_inputs::{McpInput, RemoteTransport};
use super::diagnostics::{Diagnostic, diag, index, join};
use super::mcp_entry::resolve_path_arg;
use super::mcp_file::read_mcp_file;
use super::mcp_literals::{check_literal_secrets, check_literal_token};
use super::relative_path::resolve_against;
use super::resolved::{McpTransport, ResolvedMcp};
use crate::util::secret_ref::{is_secret_name, referenced_vars};

/// Resolves every `agent.inputs.mcps` entry; names must be unique.
pub(crate) fn resolve_mcps(path: &Path, dir: &Path, inputs: &[McpInput], ds: &mut Vec<Diagnostic>) -> Vec<ResolvedMcp> {
    let mut out: Vec<ResolvedMcp> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let entry = Entry {
            path,
            dir,
            at: index("agent.inputs.mcps", i),
        };
        let resolved = match &input.config_ref {
            Some(cfg) => entry.referenced_server(input, cfg, ds),
            None => entry.inline(input, ds),
        };
        let Some(mut resolved) = resolved else { continue };
        if out.iter().any(|m| m.name == resolved.name) {
            ds.push(diag(
                path,
                join(&entry.at, "server"),
                format!("two MCP servers are named `{}`", resolved.name),
            ));
            continue;
        }
        refuse_secret_arguments(path, &entry.at, input.config_ref.is_some(), &resolved, ds);
        if let Some(t) = input.timeout {
            resolved.timeout_ms = Some(t);
        }
        out.push(resolved);
    }
    out
}

/// One `agent.inputs.mcps` entry: the spec file, its folder (relative paths resolve against
/// it) and the entry's key path.
struct Entry<'a> {
    path: &'a Path,
    dir: &'a Path,
    at: String,
}

impl Entry<'_> {
    /// `config_ref` + `server`: the named server of an MCP servers file. `None` once the
    /// reason is in `ds`.
    fn referenced_server(&self, input: &McpInput, cfg: &str, ds: &mut Vec<Diagnostic>) -> Option<ResolvedMcp> {
        let (path, at) = (self.path, &self.at);
        let Some(server) = &input.server else {
            ds.push(diag(
                path,
                join(at, "server"),
                "`config_ref` needs `server`: the name of the server inside that file",
            ));
            return None;
        };
        if !input.command.is_empty() || input.url.is_some() {
            ds.push(diag(
                path,
                at,
                "use either `config_ref` + `server` or an inline `command`/`url`, not both",
            ));
            return None;
        }
        let file = resolve_against(self.dir, cfg);
        if !file.exists() {
            ds.push(diag(
                path,
                join(at, "config_ref"),
                format!("referenced file `{cfg}` does not exist (looked for {})", file.display()),
            ));
            return None;
        }
        let mut servers = match read_mcp_file(&file) {
            Ok(servers) => servers,
            Err(e) => {
                ds.extend(e.diagnostics.into_iter().map(|d| self.referenced(d)));
                return None;
            }
        };
        let Some(mut s) = servers.shift_remove(server) else {
            let mut d = diag(path, join(at, "server"), format!("server `{server}` is not in `{cfg}`"));
            d.hint = Some(format!(
                "servers there: {}",
                servers.keys().cloned().collect::<Vec<_>>().join(", ")
            ));
            ds.push(d);
            return None;
        };
        if let Some(e) = input.enabled {
            s.enabled = e;
        }
        Some(s)
    }

    /// A problem of the referenced file, told from this entry: a whole-file problem (not
    /// JSON/YAML, too big, a FIFO) belongs to the key that names the file; any other keeps
    /// its place and says who referenced it.
    fn referenced(&self, mut d: Diagnostic) -> Diagnostic {
        let key = join(&self.at, "config_ref");
        if d.path.is_empty() {
            d.message = format!("{}: {}", d.file.display(), d.message);
            d.file = self.path.to_path_buf();
            d.path = key;
            return d;
        }
        let by = format!("referenced by {}: {key}", self.path.display());
        d.hint = Some(match d.hint.take() {
            Some(h) => format!("{h}; {by}"),
            None => by,
        });
        d
    }

    /// An inline server: `server` names it, exactly one of `command` or `url` runs it, and no
    /// value holds a literal secret. `None` once the reason is in `ds`.
    fn inline(&self, input: &McpInput, ds: &mut Vec<Diagnostic>) -> Option<ResolvedMcp> {
        let (path, at) = (self.path, &self.at);
        let Some(name) = &input.server else {
            ds.push(diag(
                path,
                join(at, "server"),
                "an inline MCP server needs `server` (its name)",
            ));
            return None;
        };
        check_literal_secrets(path, &join(at, "environment"), &input.environment, ds);
        check_literal_secrets(path, &join(at, "headers"), &input.headers, ds);
        for (j, arg) in input.command.iter().enumerate() {
            check_literal_token(path, &index(&join(at, "command"), j), arg, ds);
        }
        if let Some(u) = &input.url {
            check_literal_token(path, &join(at, "url"), u, ds);
        }
        let Some(transport) = self.inline_transport(input) else {
            ds.push(diag(
                path,
                at,
                "an inline MCP server needs exactly one of `command` (stdio) or `url` (remote)",
            ));
            return None;
        };
        Some(ResolvedMcp {
            name: name.clone(),
            transport,
            enabled: input.enabled.unwrap_or(true),
            timeout_ms: input.timeout,
            oauth: None,
            origin: (path.to_path_buf(), at.clone()),
        })
    }

    /// Stdio from `command` (paths resolved against the spec's folder) or remote from `url`;
    /// `None` when neither or both are given.
    fn inline_transport(&self, input: &McpInput) -> Option<McpTransport> {
        let dir = self.dir;
        match (input.command.is_empty(), &input.url) {
            (false, None) => Some(McpTransport::Stdio {
                command: input
                    .command
                    .iter()
                    .enumerate()
                    .map(|(j, a)| resolve_path_arg(dir, a, j == 0).to_string_lossy().into_owned())
                    .collect(),
                cwd: input.cwd.as_deref().map(|c| resolve_against(dir, c)),
                env: input.environment.clone(),
            }),
            (true, Some(url)) => Some(McpTransport::Remote {
                url: url.clone(),
                headers: input.headers.clone(),
                kind: input.transport.unwrap_or(RemoteTransport::StreamableHttp),
            }),
            _ => None,
        }
    }
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
