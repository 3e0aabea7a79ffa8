//! `target:`, the seeds' shorthand for an MCP-only or skill-only job, read into the agent
//! shape when a job is loaded: an MCP server becomes an `agent.inputs.mcps` entry named by
//! `target.id`, a skill an `agent.inputs.skills` folder. Discovery, generation and the run then
//! use it through the one code path they already have. The block is consumed: a job Ghostlab
//! saves afterwards (discover, the lab) is written in the agent shape, with the same meaning.

use std::path::Path;

use super::agent_inputs::{McpInput, RemoteTransport};
use super::diagnostics::{Diagnostic, diag, index, join};
use super::job::{Job, Target, TargetTransport};

/// Where the target went, so a later check's diagnostic names `target.*`, the key the person
/// wrote, instead of an entry they never saw.
#[derive(Debug, Clone)]
pub(crate) struct TargetOrigin {
    /// `agent.inputs.mcps[i]` or `agent.inputs.skills[i]`.
    agent_path: String,
    skill: bool,
}

impl TargetOrigin {
    /// Renames diagnostics about the entry the target became back to `target.*`.
    pub(crate) fn rename(&self, ds: &mut [Diagnostic]) {
        for d in ds.iter_mut() {
            let Some(rest) = d.path.strip_prefix(&self.agent_path) else {
                continue;
            };
            if !(rest.is_empty() || rest.starts_with('.')) {
                continue;
            }
            d.path = if self.skill {
                "target.connection.path".into()
            } else {
                let field = rest.trim_start_matches('.');
                let head = field.split(['.', '[']).next().unwrap_or("");
                let tail = &field[head.len()..];
                match head {
                    "command" | "url" | "headers" => format!("target.connection.{head}{tail}"),
                    "environment" => format!("target.connection.env{tail}"),
                    "timeout" => "target.startup.timeout".into(),
                    "server" => "target.id".into(),
                    _ => "target".into(),
                }
            };
        }
    }
}

/// Moves `job.target` into the agent shape. On a problem the job is left as it was and every
/// problem is returned, each naming the `target.*` key and the fix.
pub(crate) fn normalise_target(file: &Path, job: &mut Job) -> Result<Option<TargetOrigin>, Vec<Diagnostic>> {
    let Some(target) = job.target.clone() else {
        return Ok(None);
    };
    let ds = problems(file, job, &target);
    if !ds.is_empty() {
        return Err(ds);
    }
    let c = &target.connection;
    let origin = if target.transport == TargetTransport::Skill {
        let path = c.path.clone().unwrap_or_default();
        // `connection.path` may name SKILL.md itself; the agent shape takes its folder.
        let folder = match path.strip_suffix("SKILL.md") {
            Some("") => ".".to_string(),
            Some(dir) => dir.trim_end_matches('/').to_string(),
            None => path,
        };
        let skills = &mut job.agent.inputs.skills;
        skills.push(folder);
        TargetOrigin {
            agent_path: index("agent.inputs.skills", skills.len() - 1),
            skill: true,
        }
    } else {
        let remote = match target.transport {
            TargetTransport::Sse => Some(RemoteTransport::Sse),
            TargetTransport::StreamableHttp => Some(RemoteTransport::StreamableHttp),
            _ => None,
        };
        let input = McpInput {
            server: Some(target.id.clone()),
            command: c.command.clone(),
            environment: c.env.clone(),
            url: c.url.clone(),
            transport: remote,
            headers: c.headers.clone(),
            timeout: target.startup.as_ref().and_then(|s| s.timeout),
            ..McpInput::default()
        };
        let mcps = &mut job.agent.inputs.mcps;
        mcps.push(input);
        TargetOrigin {
            agent_path: index("agent.inputs.mcps", mcps.len() - 1),
            skill: false,
        }
    };
    job.target = None;
    Ok(Some(origin))
}

/// What stops `target` from meaning one server or one skill.
fn problems(file: &Path, job: &Job, t: &Target) -> Vec<Diagnostic> {
    let mut ds = Vec::new();
    let transport = transport_name(t.transport);
    for (key, why) in misplaced_keys(t) {
        ds.push(diag(
            file,
            join("target", key),
            format!("a `{transport}` target {why}; remove `{key}`"),
        ));
    }
    if let Some((key, what)) = missing_key(t) {
        ds.push(diag(
            file,
            join("target", key),
            format!("a `{transport}` target needs {what}"),
        ));
    }
    if t.id.trim().is_empty() {
        ds.push(diag(file, "target.id", "must not be empty: name the server or skill"));
    }
    if t.transport != TargetTransport::Skill
        && let Some(i) = job
            .agent
            .inputs
            .mcps
            .iter()
            .position(|m| m.server.as_deref() == Some(t.id.as_str()))
    {
        ds.push(diag(
            file,
            "target.id",
            format!(
                "`{}` is also the server of agent.inputs.mcps[{i}]; keep one of them or rename the target",
                t.id
            ),
        ));
    }
    ds
}

/// The transport as the person wrote it.
fn transport_name(transport: TargetTransport) -> &'static str {
    match transport {
        TargetTransport::Stdio => "stdio",
        TargetTransport::Sse => "sse",
        TargetTransport::StreamableHttp => "streamable-http",
        TargetTransport::Skill => "skill",
    }
}

/// The keys given that this transport has no use for, each with why.
fn misplaced_keys(t: &Target) -> Vec<(&'static str, &'static str)> {
    let c = &t.connection;
    let not_a_server = "is a SKILL.md, not a server";
    let candidates = match t.transport {
        TargetTransport::Stdio => vec![
            (
                "connection.url",
                c.url.is_some(),
                "is started by `command`, not reached by a URL",
            ),
            ("connection.headers", !c.headers.is_empty(), "sends no HTTP headers"),
            ("connection.path", c.path.is_some(), "is a server, not a skill"),
        ],
        TargetTransport::Sse | TargetTransport::StreamableHttp => vec![
            (
                "connection.command",
                !c.command.is_empty(),
                "is reached by `url`, not started",
            ),
            (
                "connection.env",
                !c.env.is_empty(),
                "is not started here, so it takes no environment",
            ),
            ("connection.path", c.path.is_some(), "is a server, not a skill"),
        ],
        TargetTransport::Skill => vec![
            ("connection.command", !c.command.is_empty(), not_a_server),
            ("connection.url", c.url.is_some(), not_a_server),
            ("connection.env", !c.env.is_empty(), not_a_server),
            ("connection.headers", !c.headers.is_empty(), not_a_server),
            ("startup", t.startup.is_some(), "is not started"),
        ],
    };
    candidates
        .into_iter()
        .filter(|(_, given, _)| *given)
        .map(|(key, _, why)| (key, why))
        .collect()
}

/// The key this transport cannot do without, if it is missing, with what it should hold.
fn missing_key(t: &Target) -> Option<(&'static str, &'static str)> {
    let c = &t.connection;
    match t.transport {
        TargetTransport::Stdio if c.command.is_empty() => Some((
            "connection.command",
            "the server's argv, e.g. `command: [node, server.js]`",
        )),
        TargetTransport::Sse | TargetTransport::StreamableHttp if c.url.is_none() => Some((
            "connection.url",
            "the server's URL, e.g. `url: http://127.0.0.1:3000/mcp`",
        )),
        TargetTransport::Skill if c.path.as_deref().is_none_or(|p| p.trim().is_empty()) => Some((
            "connection.path",
            "the SKILL.md (or its folder), e.g. `path: ./skills/notes`",
        )),
        _ => None,
    }
}
