//! The OpenCode project config (`opencode.json`) for a job's agent.
//!
//! Keys mirror OpenCode 1:1. Secrets stay references: every `${VAR}` becomes OpenCode's
//! `{env:VAR}`, so the value only ever exists in the agent process's environment.
//! Host paths pass through a mapping so the same job can be emitted for the host or for a
//! sandbox that sees its inputs at other paths.

use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

use crate::spec::agent::{AgentDef, Permission, PermissionRule};
use crate::spec::file_refs::{expand_home, map_file_refs, mentions_file_ref};
use crate::spec::resolved::{LoadedJob, McpTransport, ResolvedMcp, prompt_file};
use crate::util::secret_ref::to_opencode_env;

/// OpenCode's tool-listing timeout for a relayed stdio server without its own `timeout`.
pub(crate) const RELAYED_TIMEOUT_MS: u64 = 30_000;

/// How host paths and the model provider appear in the emitted config.
pub(crate) struct EmitOptions<'a> {
    /// Maps a host path to the path the agent host will see.
    pub(crate) map_path: &'a dyn Fn(&Path) -> String,
    /// Replaces `agent.runtime.provider` and `model` (used to point a run at a local
    /// model server); `None` keeps the job's own.
    pub(crate) provider_override: Option<(String, Value, String)>,
    /// The command that replaces a stdio server's own (a sandbox relay that runs the server
    /// outside the agent's process namespace, with the server's environment); `None` keeps it.
    pub(crate) mcp_command: &'a dyn Fn(&ResolvedMcp) -> Option<Vec<String>>,
}

impl Default for EmitOptions<'_> {
    fn default() -> Self {
        EmitOptions {
            map_path: &|p: &Path| p.to_string_lossy().into_owned(),
            provider_override: None,
            mcp_command: &|_: &ResolvedMcp| None,
        }
    }
}

/// Builds the OpenCode config value for `loaded`.
pub(crate) fn emit_opencode_config(loaded: &LoadedJob, opts: &EmitOptions<'_>) -> Value {
    let rt = &loaded.job.agent.runtime;
    let map = |rel: &str| (opts.map_path)(&loaded.resolve(rel));
    let mut cfg = Map::new();
    // Keep runs hermetic: no sharing, no self-update.
    cfg.insert("share".into(), json!("disabled"));
    cfg.insert("autoupdate".into(), json!(false));
    let (model, provider) = match &opts.provider_override {
        Some((id, provider, model)) => (Some(format!("{id}/{model}")), Some((id.clone(), provider.clone()))),
        None => (rt.model.clone(), None),
    };
    // `${VAR}` in a model id stays a reference: OpenCode substitutes `{env:VAR}` itself.
    if let Some(m) = &model {
        cfg.insert("model".into(), json!(to_opencode_env(m)));
    }
    let small = if opts.provider_override.is_some() {
        model.clone()
    } else {
        rt.small_model.clone()
    };
    if let Some(m) = small {
        cfg.insert("small_model".into(), json!(to_opencode_env(&m)));
    }
    if let Some(a) = &rt.default_agent {
        cfg.insert("default_agent".into(), json!(a));
    }
    if let Some(d) = rt.subagent_depth {
        cfg.insert("subagent_depth".into(), json!(d));
    }
    // Globs are expanded here (sorted), so the agent gets exactly the files the run manifest
    // lists.
    let instructions: Vec<String> = loaded.instruction_files().iter().map(|p| (opts.map_path)(p)).collect();
    if !instructions.is_empty() {
        cfg.insert("instructions".into(), Value::from(instructions));
    }
    if let Some(skills) = skills_value(loaded, &map) {
        cfg.insert("skills".into(), skills);
    }
    if !rt.agents.is_empty() {
        let agents: Map<String, Value> = rt
            .agents
            .iter()
            .map(|(name, def)| (name.clone(), agent_value(def, &map)))
            .collect();
        cfg.insert("agent".into(), Value::Object(agents));
    }
    if !rt.tools.is_empty() {
        cfg.insert("tools".into(), json!(rt.tools));
    }
    if let Some(p) = &rt.permission {
        cfg.insert("permission".into(), permission_value(p));
    }
    if !rt.commands.is_empty() {
        // A template's `{file:…}` stays a reference, pointed at where the agent sees the file.
        let mut commands = rt.commands.clone();
        for c in commands.values_mut() {
            c.template = map_file_refs(&c.template, &mut |p| map(&expand_home(p).to_string_lossy()));
        }
        let commands = serde_json::to_value(&commands).expect("commands serialize");
        cfg.insert("command".into(), model_refs(commands));
    }
    match provider {
        Some((id, value)) => {
            cfg.insert("provider".into(), json!({ id: value }));
        }
        None if !rt.provider.is_empty() => {
            let value = serde_json::to_value(&rt.provider).expect("providers serialize");
            cfg.insert("provider".into(), env_refs(value));
        }
        None => {}
    }
    if !rt.plugins.is_empty() {
        // A local plugin file is named by an absolute file URL where the agent sees it.
        let plugins: Vec<_> = rt
            .plugins
            .iter()
            .map(|p| match p.local_file() {
                Some(file) => p.with_spec(format!("file://{}", map(file))),
                None => p.clone(),
            })
            .collect();
        cfg.insert("plugin".into(), json!(plugins));
    }
    if let Value::Object(settings) = serde_json::to_value(&rt.settings).expect("settings serialize") {
        for (key, value) in settings {
            cfg.insert(key, env_refs(value));
        }
    }
    if !loaded.mcps.is_empty() {
        let mcp: Map<String, Value> = loaded
            .mcps
            .iter()
            .map(|server| (server.name.clone(), mcp_entry(server, opts)))
            .collect();
        cfg.insert("mcp".into(), Value::Object(mcp));
    }
    Value::Object(cfg)
}

/// `skills`: the runtime's and the job's skill folders (once each, where the agent sees them)
/// and the skill URLs; `None` when there are neither.
fn skills_value(loaded: &LoadedJob, map: &dyn Fn(&str) -> String) -> Option<Value> {
    let rt = &loaded.job.agent.runtime;
    let skill_paths: Vec<String> = rt
        .skills
        .paths
        .iter()
        .chain(loaded.job.agent.inputs.skills.iter())
        .map(|p| map(p))
        .fold(Vec::new(), |mut acc, p| {
            if !acc.contains(&p) {
                acc.push(p);
            }
            acc
        });
    if skill_paths.is_empty() && rt.skills.urls.is_empty() {
        return None;
    }
    let mut skills = Map::new();
    if !skill_paths.is_empty() {
        skills.insert("paths".into(), json!(skill_paths));
    }
    if !rt.skills.urls.is_empty() {
        skills.insert("urls".into(), json!(rt.skills.urls));
    }
    Some(Value::Object(skills))
}

/// One MCP server as OpenCode takes it: through the relay (a stdio server under bubblewrap),
/// as a local command, or remote; references stay `{env:VAR}` for OpenCode to resolve.
fn mcp_entry(server: &ResolvedMcp, opts: &EmitOptions<'_>) -> Value {
    let mut entry = Map::new();
    let relayed = match &server.transport {
        McpTransport::Stdio { .. } => (opts.mcp_command)(server),
        McpTransport::Remote { .. } => None,
    };
    match &server.transport {
        McpTransport::Stdio { .. } if relayed.is_some() => {
            // The server's cwd and environment stay with the relay, outside this file.
            entry.insert("type".into(), json!("local"));
            entry.insert("command".into(), json!(relayed));
            // Each connection starts a sandbox of its own before the server itself:
            // give tool listing more than OpenCode's 5 s default unless the job says.
            if server.timeout_ms.is_none() {
                entry.insert("timeout".into(), json!(RELAYED_TIMEOUT_MS));
            }
        }
        McpTransport::Stdio { command, cwd, env } => {
            entry.insert("type".into(), json!("local"));
            let argv: Vec<String> = command
                .iter()
                .map(|a| {
                    if Path::new(a).is_absolute() && Path::new(a).exists() {
                        (opts.map_path)(Path::new(a))
                    } else {
                        // A `${VAR}` argument stays a reference OpenCode resolves.
                        to_opencode_env(a)
                    }
                })
                .collect();
            entry.insert("command".into(), json!(argv));
            if let Some(c) = cwd {
                entry.insert("cwd".into(), json!((opts.map_path)(c)));
            }
            if !env.is_empty() {
                let env: Map<String, Value> = env
                    .iter()
                    .map(|(k, v)| (k.clone(), json!(to_opencode_env(v))))
                    .collect();
                entry.insert("environment".into(), Value::Object(env));
            }
        }
        McpTransport::Remote { url, headers, .. } => {
            entry.insert("type".into(), json!("remote"));
            entry.insert("url".into(), json!(to_opencode_env(url)));
            // `oauth` as the source wrote it (`false`, `{}`, client settings); none
            // added, so the server behaves as it does in the person's own OpenCode.
            if let Some(oauth) = &server.oauth {
                entry.insert("oauth".into(), oauth_value(oauth));
            }
            if !headers.is_empty() {
                let h: Map<String, Value> = headers
                    .iter()
                    .map(|(k, v)| (k.clone(), json!(to_opencode_env(v))))
                    .collect();
                entry.insert("headers".into(), Value::Object(h));
            }
        }
    }
    entry.insert("enabled".into(), json!(server.enabled));
    if let Some(t) = server.timeout_ms {
        entry.insert("timeout".into(), json!(t));
    }
    Value::Object(entry)
}

fn agent_value(def: &AgentDef, map: &dyn Fn(&str) -> String) -> Value {
    let mut v = serde_json::to_value(def).expect("agent serializes");
    if let (Some(obj), Some(prompt)) = (v.as_object_mut(), def.prompt.as_deref()) {
        if mentions_file_ref(prompt) {
            obj.insert(
                "prompt".into(),
                json!(map_file_refs(prompt, &mut |p| map(&expand_home(p).to_string_lossy()))),
            );
        } else if let Some(file) = prompt_file(prompt) {
            obj.insert("prompt".into(), json!(format!("{{file:{}}}", map(file))));
        }
        if let Some(p) = &def.permission {
            obj.insert("permission".into(), permission_value(p));
        }
    }
    if let (Some(obj), Some(model)) = (v.as_object_mut(), def.model.as_deref()) {
        obj.insert("model".into(), json!(to_opencode_env(model)));
    }
    v
}

/// `oauth` with `${VAR}` references in OpenCode's `{env:VAR}` form.
fn oauth_value(oauth: &Value) -> Value {
    match oauth {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().map_or(v.clone(), |s| json!(to_opencode_env(s)))))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Rewrites `${VAR}` in each entry's `model` (command maps) into `{env:VAR}`.
fn model_refs(mut value: Value) -> Value {
    if let Some(map) = value.as_object_mut() {
        for entry in map.values_mut().filter_map(Value::as_object_mut) {
            if let Some(Value::String(m)) = entry.get("model") {
                let m = to_opencode_env(m);
                entry.insert("model".into(), json!(m));
            }
        }
    }
    value
}

fn permission_value(p: &Permission) -> Value {
    match p {
        Permission::All(a) => json!(a),
        Permission::PerTool(map) => Value::Object(
            map.iter()
                .map(|(tool, rule)| {
                    let v = match rule {
                        PermissionRule::Action(a) => json!(a),
                        PermissionRule::Patterns(pats) => json!(pats),
                    };
                    (tool.clone(), v)
                })
                .collect(),
        ),
    }
}

/// Rewrites `${VAR}` into `{env:VAR}` in every string of a value.
fn env_refs(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(to_opencode_env(&s)),
        Value::Array(items) => Value::Array(items.into_iter().map(env_refs).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, env_refs(v))).collect()),
        other => other,
    }
}

/// Writes `<out>/opencode.json` atomically and returns its path.
pub(crate) fn write_opencode_project(
    loaded: &LoadedJob,
    out: &Path,
    opts: &EmitOptions<'_>,
) -> std::io::Result<PathBuf> {
    let path = out.join("opencode.json");
    crate::util::write_json_atomic(&path, &emit_opencode_config(loaded, opts))?;
    Ok(path)
}
