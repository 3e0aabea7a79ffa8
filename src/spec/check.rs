//! Semantic checks after the schema: referenced files exist, MCP servers resolve, secrets are
//! references, rates are fractions, combinations make sense. Every problem is collected.

use std::path::Path;

use super::agent::{McpInput, RemoteTransport};
use super::diagnostics::{Diagnostic, SpecError, diag, index, join};
use super::job::Job;
use super::load::job_dir;
use super::mcp_file::{check_literal_secrets, read_mcp_file, resolve_path_arg};
use super::resolved::{LoadedJob, McpTransport, ResolvedMcp, prompt_file, resolve_against};
use super::review::ModelProvider;
use super::sandbox::NetworkMode;
use crate::util::secret_ref::has_reference;

/// OpenCode's built-in agents, valid as `default_agent` without a definition.
const BUILTIN_AGENTS: &[&str] = &["build", "plan", "general", "explore"];

#[derive(Clone, Copy)]
enum Kind {
    File,
    Dir,
    Any,
}

/// Runs every semantic check and resolves MCP servers.
pub fn check_job(path: &Path, job: Job) -> Result<LoadedJob, SpecError> {
    let dir = job_dir(path);
    let file = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut ds: Vec<Diagnostic> = Vec::new();
    let exists = |ds: &mut Vec<Diagnostic>, at: String, rel: &str, kind: Kind| {
        let p = resolve_against(&dir, rel);
        let ok = match kind {
            Kind::File => p.is_file(),
            Kind::Dir => p.is_dir(),
            Kind::Any => p.exists(),
        };
        if !ok {
            let what = match kind {
                Kind::File => "file",
                Kind::Dir => "folder",
                Kind::Any => "path",
            };
            ds.push(diag(
                path,
                at,
                format!("referenced {what} `{rel}` does not exist (looked for {})", p.display()),
            ));
        }
    };

    let rt = &job.agent.runtime;
    if job.agent.id.trim().is_empty() {
        ds.push(diag(path, "agent.id", "must not be empty"));
    }
    for (i, f) in rt.instructions.iter().enumerate() {
        exists(&mut ds, index("agent.runtime.instructions", i), f, Kind::File);
    }
    for (i, s) in rt.skills.paths.iter().enumerate() {
        check_skill(path, &dir, &index("agent.runtime.skills.paths", i), s, &mut ds);
    }
    for (i, s) in job.agent.inputs.skills.iter().enumerate() {
        check_skill(path, &dir, &index("agent.inputs.skills", i), s, &mut ds);
    }
    for (i, a) in job.agent.inputs.assets.iter().enumerate() {
        exists(&mut ds, index("agent.inputs.assets", i), a, Kind::Any);
    }
    if let Some(ws) = &job.agent.workspace {
        exists(&mut ds, "agent.workspace".into(), ws, Kind::Dir);
    }
    for (name, def) in &rt.agents {
        let at = join("agent.runtime.agents", name);
        if let Some(file) = def.prompt.as_deref().and_then(prompt_file) {
            exists(&mut ds, join(&at, "prompt"), file, Kind::File);
        }
        for (key, v) in [("temperature", def.temperature), ("top_p", def.top_p)] {
            if let Some(v) = v.filter(|v| !(0.0..=2.0).contains(v)) {
                ds.push(diag(path, join(&at, key), format!("{v} is out of range 0..=2")));
            }
        }
    }
    if let Some(agent) = &rt.default_agent
        && !rt.agents.contains_key(agent)
        && !BUILTIN_AGENTS.contains(&agent.as_str())
    {
        let mut d = diag(
            path,
            "agent.runtime.default_agent",
            format!("agent `{agent}` is not defined in agent.runtime.agents"),
        );
        let names: Vec<&str> = rt
            .agents
            .keys()
            .map(String::as_str)
            .chain(BUILTIN_AGENTS.iter().copied())
            .collect();
        d.hint = Some(format!("defined: {}", names.join(", ")));
        ds.push(d);
    }
    for (id, provider) in &rt.provider {
        let at = join(&join("agent.runtime.provider", id), "options");
        for (key, value) in &provider.options {
            if let Some(text) = value.as_str()
                && crate::util::secret_ref::is_secret_name(key)
                && !text.is_empty()
                && !has_reference(text)
            {
                let mut d = diag(path, join(&at, key), "a literal credential is not allowed here");
                d.hint = Some("write it as a reference such as `${OPENAI_API_KEY}`".into());
                ds.push(d);
            }
        }
    }

    let mcps = resolve_mcps(path, &dir, &job.agent.inputs.mcps, &mut ds);

    let sb = &job.sandbox;
    match sb.network {
        NetworkMode::Allowlist if sb.allow.is_empty() => {
            ds.push(diag(
                path,
                "sandbox.allow",
                "`network: allowlist` needs at least one `host:port` entry",
            ));
        }
        NetworkMode::Policy if sb.policy.is_none() => {
            ds.push(diag(
                path,
                "sandbox.policy",
                "`network: policy` needs an OpenShell policy file",
            ));
        }
        NetworkMode::Disabled if !sb.allow.is_empty() => {
            ds.push(diag(
                path,
                "sandbox.allow",
                "entries are ignored while `network: disabled`; set `network: allowlist`",
            ));
        }
        _ => {}
    }
    for (i, entry) in sb.allow.iter().enumerate() {
        let valid = entry
            .rsplit_once(':')
            .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0));
        if !valid {
            ds.push(diag(
                path,
                index("sandbox.allow", i),
                format!("`{entry}` is not `host:port`"),
            ));
        }
    }
    if let Some(policy) = &sb.policy {
        exists(&mut ds, "sandbox.policy".into(), policy, Kind::File);
    }
    for (i, up) in sb.uploads.iter().enumerate() {
        exists(&mut ds, join(&index("sandbox.uploads", i), "src"), &up.src, Kind::Any);
    }
    if !sb.workdir.starts_with('/') {
        ds.push(diag(
            path,
            "sandbox.workdir",
            "must be an absolute path inside the sandbox",
        ));
    }
    for (key, text) in [("memory", &sb.memory), ("file_size", &sb.file_size)] {
        if let Some(t) = text
            && crate::util::units::parse_bytes(t).is_none()
        {
            ds.push(diag(
                path,
                join("sandbox", key),
                format!("`{t}` is not a size such as `512MiB` or `2GiB`"),
            ));
        }
    }
    if let Some(t) = &sb.timeout
        && crate::util::units::parse_duration(t).is_none()
    {
        ds.push(diag(
            path,
            "sandbox.timeout",
            format!("`{t}` is not a duration such as `90s` or `10m`"),
        ));
    }

    for (role, m) in [
        ("proposer", &job.generation.proposer),
        ("emulator", &job.generation.emulator),
        ("judge", &job.generation.judge),
    ] {
        let at = join("generation", role);
        if let Some(key) = &m.api_key
            && !has_reference(key)
        {
            let mut d = diag(path, join(&at, "api_key"), "a literal credential is not allowed here");
            d.hint = Some("use a `${VAR}` reference or `ghostlab auth set`".into());
            ds.push(d);
        }
        check_literal_secrets(path, &join(&at, "headers"), &m.headers, &mut ds);
        match m.provider {
            ModelProvider::Replay => match &m.cassette {
                Some(c) => exists(&mut ds, join(&at, "cassette"), c, Kind::File),
                None => ds.push(diag(
                    path,
                    join(&at, "cassette"),
                    "`provider: replay` needs a cassette file",
                )),
            },
            ModelProvider::Record if m.cassette.is_none() => {
                ds.push(diag(
                    path,
                    join(&at, "cassette"),
                    "`provider: record` needs a cassette path to write",
                ));
            }
            ModelProvider::Openai | ModelProvider::Record if m.model.is_none() => {
                ds.push(diag(
                    path,
                    join(&at, "model"),
                    "an OpenAI-compatible provider needs `model`",
                ));
            }
            ModelProvider::Anthropic if m.model.is_none() => {
                ds.push(diag(path, join(&at, "model"), "`provider: anthropic` needs `model`"));
            }
            _ => {}
        }
    }

    let g = &job.review.gates;
    for (key, v) in [
        ("min_pass_rate", g.min_pass_rate),
        ("max_inconclusive_rate", g.max_inconclusive_rate),
        ("max_infra_error_rate", g.max_infra_error_rate),
    ] {
        if let Some(v) = v.filter(|v| !(0.0..=1.0).contains(v)) {
            ds.push(diag(
                path,
                join("review.gates", key),
                format!("{v} is not a fraction in 0..=1"),
            ));
        }
    }
    if let Some(pk) = &g.pass_k {
        if pk.k == 0 {
            ds.push(diag(path, "review.gates.pass_k.k", "must be at least 1"));
        }
        if !(0.0..=1.0).contains(&pk.min_rate) {
            ds.push(diag(
                path,
                "review.gates.pass_k.min_rate",
                format!("{} is not a fraction in 0..=1", pk.min_rate),
            ));
        }
    }
    if let Some(t) = &job.target
        && let Some(p) = &t.connection.path
    {
        exists(&mut ds, "target.connection.path".into(), p, Kind::Any);
    }

    if ds.is_empty() {
        Ok(LoadedJob { job, file, dir, mcps })
    } else {
        Err(SpecError { diagnostics: ds })
    }
}

fn check_skill(file: &Path, dir: &Path, at: &str, rel: &str, ds: &mut Vec<Diagnostic>) {
    let p = resolve_against(dir, rel);
    if !p.is_dir() {
        ds.push(diag(
            file,
            at,
            format!(
                "referenced skill folder `{rel}` does not exist (looked for {})",
                p.display()
            ),
        ));
    } else if !p.join("SKILL.md").is_file() {
        ds.push(diag(file, at, format!("skill folder `{rel}` has no SKILL.md")));
    }
}

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
            if !file.is_file() {
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
        let mut r = resolved;
        if let Some(t) = input.timeout {
            r.timeout_ms = Some(t);
        }
        out.push(r);
    }
    out
}
