//! Starting a case's agent: the runner its backend names (mock, process, OpenCode cold or
//! warm, Codex), with its binary checked and its config written into the environment first.
//! A failure is the case's INFRA_ERROR with the reason in [`AgentStartError`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::emit::codex::emit_codex_config;
use crate::emit::{EmitOptions, write_opencode_project};
use crate::run::agents::agent_binary::AgentBinaryError;
use crate::run::agents::codex::{CodexRunner, CodexSetup};
use crate::run::agents::opencode::{OpencodeRunner, OpencodeSetup};
use crate::run::agents::opencode_mode::WarmNeedsRepository;
use crate::run::agents::opencode_warm::{OpencodeWarmRunner, WarmLink, WarmUnavailable};
use crate::run::agents::runner::AgentRunner;
use crate::run::agents::runners::{MockRunner, ProcessRunner};
use crate::run::environment::case_environment::CaseEnvironment;
use crate::spec::job::OpencodeMode;
use crate::spec::{Backend, LoadedJob};
use crate::trial::case::CaseSpec;

/// Why a case's agent could not start. The texts are the ones the verdict's reason shows.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AgentStartError {
    #[error("runtime.backend is `process` but hosts.process is not set")]
    NoProcessHost,
    #[error(transparent)]
    Binary(#[from] AgentBinaryError),
    #[error("cannot write opencode.json: {0}")]
    WriteConfig(#[source] std::io::Error),
    /// The config is written private (atomically); the sandboxed agent runs as another user.
    #[error("cannot share opencode.json: {source}")]
    ShareConfig {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Mode(#[from] WarmNeedsRepository),
    #[error(transparent)]
    Warm(#[from] WarmUnavailable),
    #[error("no Codex binary: set hosts.codex.binary or put `codex` on PATH")]
    NoCodexBinary,
    #[error(
        "the Codex CLI (0.122 and later) speaks only OpenAI's Responses API, which `ghostlab model-server` \
         does not serve; run Codex against the job's own model endpoint (without --agent-cassette)"
    )]
    CodexWithoutResponsesApi,
    /// The job's Codex config could not be made (`emit::codex` says why).
    #[error("{0}")]
    CodexConfig(String),
}

/// What starting an agent needs of the run's settings (`case_run::RunContext`).
pub(crate) struct AgentInputs<'a> {
    pub(crate) job: &'a LoadedJob,
    pub(crate) opencode_bin: Option<&'a Path>,
    pub(crate) provider_override: &'a Option<(String, Value, String)>,
    pub(crate) turn_timeout: Duration,
}

/// The agent's runner for this case; `host_note` receives why its mode differs from the
/// job's defaults, if it does.
pub(crate) fn build_runner(
    ctx: &AgentInputs<'_>,
    env: &dyn CaseEnvironment,
    case: &CaseSpec,
    host_note: &mut String,
) -> Result<Box<dyn AgentRunner>, AgentStartError> {
    let job = &ctx.job.job;
    match job.agent.runtime.backend {
        Backend::Mock => Ok(Box::new(MockRunner::new(
            job.hosts.mock.as_ref().map(|m| m.replies.clone()).unwrap_or_default(),
        ))),
        Backend::Process => process_runner(ctx, env, case),
        Backend::Opencode => opencode_runner(ctx, env, host_note),
        Backend::Codex => codex_runner(ctx, env),
    }
}

/// `hosts.process`: the job's own command, once per turn, in the environment.
fn process_runner(
    ctx: &AgentInputs<'_>,
    env: &dyn CaseEnvironment,
    case: &CaseSpec,
) -> Result<Box<dyn AgentRunner>, AgentStartError> {
    let host = ctx
        .job
        .job
        .hosts
        .process
        .as_ref()
        .ok_or(AgentStartError::NoProcessHost)?;
    let mut env_vars = credential_env(ctx.job);
    env_vars.push(("HOME".into(), env.home()));
    Ok(Box::new(ProcessRunner::new(
        env.factory(),
        host.command.clone(),
        host.prompt,
        env_vars,
        Some(env.workdir()),
        ctx.turn_timeout,
        case.id.clone(),
    )))
}

/// OpenCode, cold (one `opencode run` per turn) or warm (one server per case).
fn opencode_runner(
    ctx: &AgentInputs<'_>,
    env: &dyn CaseEnvironment,
    host_note: &mut String,
) -> Result<Box<dyn AgentRunner>, AgentStartError> {
    let job = &ctx.job.job;
    let (found, source) = crate::run::agents::agent_binary::opencode_binary(ctx.job);
    let binary = crate::run::agents::agent_binary::checked_agent_binary(ctx.opencode_bin.or(found.as_deref()), source)
        .map(|p| env.map_path(&p))?;
    write_opencode_config(ctx, env)?;
    let model = ctx
        .provider_override
        .as_ref()
        .map(|(id, _, m)| format!("{id}/{m}"))
        .or(job.agent.runtime.model.clone());
    let cold = OpencodeRunner::new(
        env.factory(),
        OpencodeSetup {
            binary,
            config: format!("{}/opencode.json", env.config_dir()),
            home: env.home(),
            workdir: env.workdir(),
            agent: job.agent.runtime.default_agent.clone(),
            model,
            env: credential_env(ctx.job),
            turn_timeout: ctx.turn_timeout,
        },
    );
    // Warm unless asked otherwise, unless this sandbox cannot keep a server between
    // turns (then cold, rather than a case that cannot start) or only through a forward,
    // and unless the workspace is not a git repository (`opencode_mode` says why).
    let choice = crate::run::agents::opencode_mode::choose(
        job.hosts.opencode.as_ref().and_then(|h| h.mode),
        env.serve_link().warm_by_default(),
        env.final_workspace().as_deref(),
    )?;
    *host_note = choice.note;
    if choice.mode == OpencodeMode::Cold {
        return Ok(Box::new(cold));
    }
    let link = WarmLink {
        link: env.serve_link(),
        home_inside: env.home(),
        home_host: env.home_host(),
        start_timeout: ctx.turn_timeout,
    };
    Ok(Box::new(OpencodeWarmRunner::new(cold, link)?))
}

/// Writes the job's opencode.json where the agent reads its config, readable by the agent.
fn write_opencode_config(ctx: &AgentInputs<'_>, env: &dyn CaseEnvironment) -> Result<(), AgentStartError> {
    let map = |p: &std::path::Path| env.map_path(p);
    let relay = |m: &crate::spec::resolved::ResolvedMcp| env.mcp_command(m);
    let opts = EmitOptions {
        map_path: &map,
        provider_override: ctx.provider_override.clone(),
        mcp_command: &relay,
    };
    let written =
        write_opencode_project(ctx.job, &env.config_dir_host(), &opts).map_err(AgentStartError::WriteConfig)?;
    // Atomic writes create private files; the sandboxed agent runs as another user.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&written, std::fs::Permissions::from_mode(0o644)).map_err(|source| {
        AgentStartError::ShareConfig {
            path: written.clone(),
            source,
        }
    })
}

/// The Codex CLI, once per turn, with the job's config in its own HOME.
fn codex_runner(ctx: &AgentInputs<'_>, env: &dyn CaseEnvironment) -> Result<Box<dyn AgentRunner>, AgentStartError> {
    let host = ctx.job.job.hosts.codex.clone().unwrap_or_default();
    let binary = crate::run::agents::agent_binary::codex_binary(ctx.job)
        .map(|p| env.map_path(&p))
        .ok_or(AgentStartError::NoCodexBinary)?;
    let map = |p: &std::path::Path| env.map_path(p);
    // Stdio servers through the relay where the environment has one, as for OpenCode.
    let relay = |m: &crate::spec::resolved::ResolvedMcp| env.mcp_command(m);
    let opts = EmitOptions {
        map_path: &map,
        provider_override: ctx.provider_override.clone(),
        mcp_command: &relay,
    };
    if ctx.provider_override.is_some() {
        return Err(AgentStartError::CodexWithoutResponsesApi);
    }
    let config = emit_codex_config(ctx.job, &opts).map_err(|e| AgentStartError::CodexConfig(e.to_string()))?;
    Ok(Box::new(CodexRunner::new(
        env.factory(),
        CodexSetup {
            binary,
            args: host.args,
            home: env.home(),
            home_host: env.home_host(),
            workdir: env.workdir(),
            config_toml: config.to_string(),
            env: credential_env(ctx.job),
            turn_timeout: ctx.turn_timeout,
        },
    )))
}

/// Values of the variables the user explicitly opted into (sandbox.credentials.env and
/// sandbox.env_allowlist). They go only into the agent's environment.
pub(crate) fn credential_env(job: &LoadedJob) -> Vec<(String, String)> {
    let sb = &job.job.sandbox;
    sb.credentials
        .env
        .iter()
        .chain(sb.env_allowlist.iter())
        .filter_map(|k| std::env::var(k).ok().map(|v| (k.clone(), v)))
        .collect()
}
