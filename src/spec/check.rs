//! Semantic checks after the schema: referenced files exist and obey the path policy, MCP
//! servers resolve, secrets are references, rates are fractions, combinations make sense.
//! Every problem is collected; `check_job` only calls one focused check per concern.

use std::path::Path;

use super::agent::Runtime;
use super::check_file_refs::check_file_refs;
use super::check_sandbox::{check_network, check_sandbox};
use super::diagnostics::{Diagnostic, SpecError, diag, in_range, index, join};
use super::document::job_dir;
use super::instructions::{check_instruction, expand_entry, is_glob, is_url};
use super::job::Job;
use super::limits::{
    GENERATED_COUNT, MCP_TIMEOUT_MS, PASS_K, SETUP_TIMEOUT_SECS, STEPS, SUBAGENT_DEPTH, TEMPERATURE, TOP_P,
};
use super::mcp_literals::check_literal_secrets;
use super::path_policy::{PathPolicy, Want};
use super::resolved::{LoadedJob, prompt_file};
use super::review::{Gates, Generation, ModelProvider};
use super::rules::gate_rules;
use crate::util::secret_ref::has_reference;

use super::mcp_inputs::resolve_mcps;

/// OpenCode's built-in agents, valid as `default_agent` without a definition.
const BUILTIN_AGENTS: &[&str] = &["build", "plan", "general", "explore"];

/// Runs every semantic check and resolves MCP servers.
pub(crate) fn check_job(path: &Path, mut job: Job) -> Result<LoadedJob, SpecError> {
    let dir = job_dir(path);
    let file = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut ds: Vec<Diagnostic> = Vec::new();
    // `target:` first, so every check below sees the shape the run will use.
    let origin = super::target::normalise_target(path, &mut job).unwrap_or_else(|problems| {
        ds.extend(problems);
        None
    });
    let policy = PathPolicy::new(path, &dir, &job.paths.outside_job, &mut ds);

    check_agent_inputs(path, &policy, &job, &mut ds);
    check_agent_defs(path, &policy, &job.agent.runtime, &mut ds);
    check_file_refs(path, &policy, &job.agent.runtime, &mut ds);
    check_provider_secrets(path, &job.agent.runtime, &mut ds);
    for (i, input) in job.agent.inputs.mcps.iter().enumerate() {
        if let Some(cfg) = &input.config_ref {
            policy.contained(&join(&index("agent.inputs.mcps", i), "config_ref"), cfg, &mut ds);
        }
    }
    let mcps = resolve_mcps(path, &dir, &job.agent.inputs.mcps, &mut ds);
    check_network(path, &job.sandbox, &mut ds);
    check_sandbox(path, &policy, &job.sandbox, &mut ds);
    check_setup(path, &job, &mut ds);
    check_generation(path, &policy, &job.generation, &mut ds);
    check_gates(path, &job.review.gates, &mut ds);
    if let Some(t) = &job.target
        && let Some(p) = &t.connection.path
    {
        policy.input("target.connection.path", p, Want::Any, &mut ds);
    }
    policy.state_dir(&job.paths.state_dir, &mut ds);
    if let Some(o) = &origin {
        o.rename(&mut ds);
    }

    if ds.is_empty() {
        Ok(LoadedJob { job, file, dir, mcps })
    } else {
        Err(SpecError { diagnostics: ds })
    }
}

/// The agent's id, instructions, skills, assets and workspace.
fn check_agent_inputs(path: &Path, policy: &PathPolicy, job: &Job, ds: &mut Vec<Diagnostic>) {
    let rt = &job.agent.runtime;
    if job.agent.id.trim().is_empty() {
        ds.push(diag(path, "agent.id", "must not be empty"));
    }
    for (i, f) in rt.instructions.iter().enumerate() {
        let at = index("agent.runtime.instructions", i);
        if is_glob(f) || is_url(f) {
            // A glob must match; every file it matches is held to the same path policy.
            check_instruction(path, &job_dir(path), &at, f, ds);
            for matched in expand_entry(&job_dir(path), f) {
                policy.input(&at, &matched.to_string_lossy(), Want::Text, ds);
            }
        } else {
            policy.input(&at, f, Want::Text, ds);
        }
    }
    for (i, s) in rt.skills.paths.iter().enumerate() {
        check_skill(path, policy, &index("agent.runtime.skills.paths", i), s, ds);
    }
    for (i, s) in job.agent.inputs.skills.iter().enumerate() {
        check_skill(path, policy, &index("agent.inputs.skills", i), s, ds);
    }
    for (i, a) in job.agent.inputs.assets.iter().enumerate() {
        policy.input(&index("agent.inputs.assets", i), a, Want::Any, ds);
    }
    for (i, file) in rt
        .plugins
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, p.local_file()?)))
    {
        policy.input(&index("agent.runtime.plugins", i), file, Want::Text, ds);
    }
    if let Some(ws) = &job.agent.workspace {
        policy.workspace(ws, ds);
    }
}

fn check_skill(file: &Path, policy: &PathPolicy, at: &str, rel: &str, ds: &mut Vec<Diagnostic>) {
    let before = ds.len();
    let Some(p) = policy.input(at, rel, Want::Dir, ds) else {
        if let Some(d) = ds.get_mut(before)
            && d.message.starts_with("referenced folder")
        {
            d.message = d.message.replacen("referenced folder", "referenced skill folder", 1);
        }
        return;
    };
    if !p.join("SKILL.md").is_file() {
        ds.push(diag(file, at, format!("skill folder `{rel}` has no SKILL.md")));
        return;
    }
    let skill_md = p.join("SKILL.md");
    policy.input(at, &skill_md.to_string_lossy(), Want::Text, ds);
}

/// Each `agent.runtime.agents.<name>`: prompt file, sampling ranges, steps; and `default_agent`.
fn check_agent_defs(path: &Path, policy: &PathPolicy, rt: &Runtime, ds: &mut Vec<Diagnostic>) {
    for (name, def) in &rt.agents {
        let at = join("agent.runtime.agents", name);
        // `{file:…}` references are checked with the others (`check_file_refs`).
        if let Some(file) = def
            .prompt
            .as_deref()
            .filter(|p| !p.contains("{file:"))
            .and_then(prompt_file)
        {
            policy.input(&join(&at, "prompt"), file, Want::Text, ds);
        }
        for (key, v, bounds) in [
            ("temperature", def.temperature, TEMPERATURE),
            ("top_p", def.top_p, TOP_P),
        ] {
            if let Some(v) = v.filter(|v| !bounds.contains(*v)) {
                ds.push(diag(path, join(&at, key), format!("{v} is out of range {bounds}")));
            }
        }
        if let Some(steps) = def.steps {
            in_range(path, &join(&at, "steps"), u64::from(steps), STEPS, ds);
        }
    }
    if let Some(depth) = rt.subagent_depth {
        in_range(
            path,
            "agent.runtime.subagent_depth",
            u64::from(depth),
            SUBAGENT_DEPTH,
            ds,
        );
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
}

/// Provider options whose names say "credential" must be `${VAR}` references.
fn check_provider_secrets(path: &Path, rt: &Runtime, ds: &mut Vec<Diagnostic>) {
    for (id, provider) in &rt.provider {
        let at = join(&join("agent.runtime.provider", id), "options");
        for (key, value) in &provider.options {
            if let Some(text) = value.as_str()
                && crate::util::secret_ref::is_secret_name(key)
                && !text.is_empty()
                && !has_reference(text)
            {
                let (message, hint) = crate::util::secret_ref::literal_credential_message(text).unwrap_or_else(|| {
                    (
                        "a literal credential is not allowed here".into(),
                        "write it as a reference such as `${OPENAI_API_KEY}`".into(),
                    )
                });
                let mut d = diag(path, join(&at, key), message);
                d.hint = Some(hint);
                ds.push(d);
            }
        }
    }
}

/// Setup steps: a command and a timeout in a sane range.
fn check_setup(path: &Path, job: &Job, ds: &mut Vec<Diagnostic>) {
    for (i, step) in job.setup.iter().enumerate() {
        let at = index("setup", i);
        if step.run.is_empty() || step.run[0].trim().is_empty() {
            ds.push(diag(
                path,
                join(&at, "run"),
                "needs a command (the first word is empty)",
            ));
        }
        for (j, word) in step.run.iter().enumerate() {
            if word.contains('\0') {
                ds.push(diag(
                    path,
                    index(&join(&at, "run"), j),
                    "holds a NUL byte, which no command line can carry",
                ));
            }
        }
        if let Some(t) = step.timeout {
            in_range(path, &join(&at, "timeout"), t, SETUP_TIMEOUT_SECS, ds);
        }
    }
    for (i, input) in job.agent.inputs.mcps.iter().enumerate() {
        if let Some(t) = input.timeout {
            in_range(
                path,
                &join(&index("agent.inputs.mcps", i), "timeout"),
                t,
                MCP_TIMEOUT_MS,
                ds,
            );
        }
    }
    if let Some(t) = job
        .target
        .as_ref()
        .and_then(|t| t.startup.as_ref())
        .and_then(|s| s.timeout)
    {
        in_range(path, "target.startup.timeout", t, MCP_TIMEOUT_MS, ds);
    }
}

/// The proposer, emulator and judge roles: credentials, cassettes, models, counts.
fn check_generation(path: &Path, policy: &PathPolicy, g: &Generation, ds: &mut Vec<Diagnostic>) {
    for (role, m) in [
        ("proposer", &g.proposer),
        ("emulator", &g.emulator),
        ("judge", &g.judge),
    ] {
        let at = join("generation", role);
        if let Some(key) = &m.api_key
            && (!has_reference(key) || crate::util::secret_ref::unterminated_reference(key).is_some())
        {
            let (message, hint) = crate::util::secret_ref::literal_credential_message(key).unwrap_or_else(|| {
                (
                    "a literal credential is not allowed here".into(),
                    "use a `${VAR}` reference or `ghostlab auth set`".into(),
                )
            });
            let mut d = diag(path, join(&at, "api_key"), message);
            d.hint = Some(hint);
            ds.push(d);
        }
        check_literal_secrets(path, &join(&at, "headers"), &m.headers, ds);
        match m.provider {
            ModelProvider::Replay => match &m.cassette {
                Some(c) => {
                    policy.input(&join(&at, "cassette"), c, Want::File, ds);
                }
                None => ds.push(diag(
                    path,
                    join(&at, "cassette"),
                    "`provider: replay` needs a cassette file",
                )),
            },
            ModelProvider::Record => match &m.cassette {
                Some(c) => policy.output(&join(&at, "cassette"), c, ds),
                None => ds.push(diag(
                    path,
                    join(&at, "cassette"),
                    "`provider: record` needs a cassette path to write",
                )),
            },
            _ => {}
        }
        let needs_model = match m.provider {
            ModelProvider::Openai => true,
            ModelProvider::Record => m.cassette.is_some(),
            _ => false,
        };
        if needs_model && m.model.is_none() {
            ds.push(diag(
                path,
                join(&at, "model"),
                "an OpenAI-compatible provider needs `model`",
            ));
        }
        if matches!(m.provider, ModelProvider::Anthropic) && m.model.is_none() {
            ds.push(diag(path, join(&at, "model"), "`provider: anthropic` needs `model`"));
        }
        if let Some(t) = m.temperature.filter(|t| !TEMPERATURE.contains(*t)) {
            ds.push(diag(
                path,
                join(&at, "temperature"),
                format!("{t} is out of range {TEMPERATURE}"),
            ));
        }
    }
    if let Some(n) = g.personas {
        in_range(path, "generation.personas", u64::from(n), GENERATED_COUNT, ds);
    }
    if let Some(n) = g.scenarios_per_persona {
        in_range(
            path,
            "generation.scenarios_per_persona",
            u64::from(n),
            GENERATED_COUNT,
            ds,
        );
    }
}

/// Gate rates are fractions; pass^k needs a sane k.
fn check_gates(path: &Path, g: &Gates, ds: &mut Vec<Diagnostic>) {
    for b in gate_rules(g) {
        ds.push(diag(path, join("review.gates", &b.key), b.message));
    }
    if let Some(pk) = g.pass_k.as_ref().filter(|pk| pk.k > 0) {
        in_range(path, "review.gates.pass_k.k", u64::from(pk.k), PASS_K, ds);
    }
}
