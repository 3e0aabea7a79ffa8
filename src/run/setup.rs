//! Assembling a `RunContext` from a job: the agent's model endpoint (optionally a local
//! scripted model server), the sandbox environments, the emulator and the judge.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::judge::llm_judge::{Judge, LlmJudge, OfflineJudge};
use crate::llm::cassette::Cassette;
use crate::llm::model_server::{RunningServer, ServerOptions, start};
use crate::redact::Redactor;
use crate::run::agents::agent_binary::{codex_binary, opencode_binary};
use crate::run::case::case_run::RunContext;
use crate::run::case::emulator::{LlmEmulator, OfflineEmulator, UserEmulator};
use crate::run::environment::case_environment::{EnvironmentFactory, LocalEnvironmentFactory};
use crate::sandbox::{HostPort, NetworkPolicy, SandboxPolicy};
use crate::spec::resolved::host_port;
use crate::spec::{Backend, LoadedJob, SandboxBackend};

/// Why a run's context could not be assembled. Each keeps what it is about.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The cassette for the agent's scripted model.
    #[error("{0}")]
    Cassette(#[from] crate::llm::cassette::CassetteError),
    #[error("cannot start the model server: {0}")]
    ModelServer(std::io::Error),
    #[error("{0}")]
    SandboxPolicy(#[from] crate::sandbox::SandboxError),
    /// A model provider of the agent has no credential the sandbox would receive, or its plan
    /// could not be put into effect.
    #[error("{0}")]
    Providers(String),
    /// The run's record of the provider plan (`providers.json`) could not be written.
    #[error(transparent)]
    ProvidersRecord(#[from] crate::run::environment::provider_home::ProvidersRecordError),
    /// The sandbox environments could not be opened.
    #[error(transparent)]
    Environments(crate::run::environment::sandbox_env::OpenError),
    /// A model role of `generation` (`generation.emulator`, `generation.judge`).
    /// Secret variables whose values cannot be masked safely (too short, too common).
    #[error("{}: {}", job.display(), list.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    UnmaskableSecrets {
        job: std::path::PathBuf,
        list: Vec<crate::redact::declared::UnmaskableSecret>,
    },
    #[error("{key}: {source}")]
    Role {
        key: &'static str,
        source: crate::llm::LlmError,
    },
}

/// The provider id Ghostlab uses for a local scripted model.
pub(crate) const LOCAL_PROVIDER: &str = "ghostlab";

/// A local model server standing in for the agent's model, and the override pointing at it.
pub(crate) struct AgentModel {
    pub(crate) server: RunningServer,
    pub(crate) provider: (String, Value, String),
    /// The cassette served, absolute: kept out of the agent's workspace copy.
    pub(crate) cassette: PathBuf,
}

/// Starts `ghostlab model-server` in-process for the agent, serving `cassette`.
pub(crate) async fn start_agent_model(cassette: &Path) -> Result<AgentModel, SetupError> {
    let c = Cassette::load(cassette)?;
    let server = start(c, ServerOptions::default())
        .await
        .map_err(SetupError::ModelServer)?;
    let config = json!({
        "npm": "@ai-sdk/openai-compatible",
        "name": "Ghostlab scripted model",
        "options": { "baseURL": server.base_url(), "apiKey": "ghostlab-local" },
        "models": { "scripted": { "name": "scripted", "tool_call": true, "limit": { "context": 128000, "output": 4096 } } }
    });
    Ok(AgentModel {
        server,
        provider: (LOCAL_PROVIDER.into(), config, "scripted".into()),
        cassette: std::path::absolute(cassette).unwrap_or_else(|_| cassette.to_path_buf()),
    })
}

/// The `host:port` endpoints the agent's model needs: the override's, or the base URLs of the
/// job's own providers.
pub(crate) fn model_endpoints(job: &LoadedJob, provider: Option<&(String, Value, String)>) -> Vec<String> {
    let urls: Vec<String> = match provider {
        Some((_, cfg, _)) => cfg
            .pointer("/options/baseURL")
            .and_then(Value::as_str)
            .map(str::to_string)
            .into_iter()
            .collect(),
        None => job
            .job
            .agent
            .runtime
            .provider
            .values()
            .filter_map(|p| p.options.get("baseURL").and_then(Value::as_str).map(str::to_string))
            .collect(),
    };
    urls.iter().filter_map(|u| host_port(u)).collect()
}

/// Environments for the job's backend. The agent's model endpoints are always reachable
/// (through the enforcing proxy); nothing else is added.
pub(crate) async fn environments(
    job: &LoadedJob,
    run_dir: &Path,
    endpoints: &[String],
    opencode_bin: Option<&Path>,
    agent_cassette: Option<&Path>,
) -> Result<Arc<dyn EnvironmentFactory>, SetupError> {
    // The job's own files and the agent's cassette never reach the agent's copy.
    let mut exclude = job.own_paths();
    exclude.extend(agent_cassette.map(Path::to_path_buf));
    if job.job.sandbox.backend == SandboxBackend::Local {
        return Ok(Arc::new(LocalEnvironmentFactory {
            workspace: job.workspace(),
            exclude,
        }));
    }
    let run = crate::run::store::run_dir::RunDir::new(run_dir);
    let mut policy = SandboxPolicy::from_job(job)?;
    policy.workspace_exclude = exclude;
    // What the job declares (its `allow`, its remote MCP hosts): all a relayed server reaches.
    let server_hosts = policy.allowlist().to_vec();
    let extra: Vec<HostPort> = endpoints.iter().filter_map(|e| HostPort::parse(e)).collect();
    if !extra.is_empty() {
        policy.network = match policy.network {
            NetworkPolicy::Disabled => NetworkPolicy::Allowlist(extra),
            NetworkPolicy::Allowlist(mut list) => {
                for hp in extra {
                    if !list.contains(&hp) {
                        list.push(hp);
                    }
                }
                NetworkPolicy::Allowlist(list)
            }
            other => other,
        };
    }
    // The agent host's own package (binary and its files) must be visible inside, even when
    // it lives under a folder the sandbox masks (a checkout in /tmp, say).
    let host_bin = match job.job.agent.runtime.backend {
        Backend::Codex => codex_binary(job),
        _ => opencode_bin.map(Path::to_path_buf),
    };
    let agent_bins: Vec<PathBuf> = host_bin.iter().cloned().collect();
    let extra_ro = host_bin.map(|b| host_package_paths(&b, &job.dir)).unwrap_or_default();
    crate::run::environment::sandbox_env::open_factory(
        policy,
        run.logs(),
        extra_ro,
        agent_bins,
        job.mcps.clone(),
        server_hosts,
    )
    .await
    .map_err(SetupError::Environments)
}

/// What the agent host's binary needs visible inside: its package folder (bound at its real
/// path) and the binary as the command names it, so the host symlinks on that way (a
/// `node_modules` linked elsewhere, a `bin/` link) are recreated inside and the command
/// resolves. Never the job's own folder: then the binary alone is bound.
fn host_package_paths(bin: &Path, job_dir: &Path) -> Vec<PathBuf> {
    let real = bin.canonicalize().unwrap_or_else(|_| bin.to_path_buf());
    let Some(package) = real.parent().and_then(Path::parent) else {
        return vec![real];
    };
    let mut out = vec![if job_dir.starts_with(package) {
        real.clone()
    } else {
        package.to_path_buf()
    }];
    if bin != real {
        out.push(bin.to_path_buf());
    }
    out
}

/// The user emulator for `generation.emulator`.
pub(crate) fn emulator(job: &LoadedJob) -> Result<Arc<dyn UserEmulator>, SetupError> {
    match crate::llm::role_model(&job.job.generation, &job.job.generation.emulator, &job.dir).map_err(|source| {
        SetupError::Role {
            key: "generation.emulator",
            source,
        }
    })? {
        Some(llm) => Ok(Arc::new(LlmEmulator::new(llm))),
        None => Ok(Arc::new(OfflineEmulator)),
    }
}

/// One command's timeout: `sandbox.timeout`, five minutes when unset.
fn turn_timeout(job: &LoadedJob) -> Duration {
    job.job
        .sandbox
        .timeout
        .as_deref()
        .and_then(crate::util::units::parse_duration)
        .unwrap_or(Duration::from_secs(300))
}

/// The judge for `generation.judge`, its whole answer bounded (`judge_bound`).
pub(crate) fn judge(job: &LoadedJob) -> Result<Arc<dyn Judge>, SetupError> {
    let inner = unbounded_judge(job)?;
    Ok(Arc::new(crate::run::case::judge_bound::BoundedJudge::for_run(
        inner,
        turn_timeout(job),
    )))
}

fn unbounded_judge(job: &LoadedJob) -> Result<Arc<dyn Judge>, SetupError> {
    match crate::llm::role_model(&job.job.generation, &job.job.generation.judge, &job.dir).map_err(|source| {
        SetupError::Role {
            key: "generation.judge",
            source,
        }
    })? {
        Some(llm) => Ok(Arc::new(LlmJudge::new(llm))),
        None => Ok(Arc::new(OfflineJudge)),
    }
}

/// Everything `run_suite` needs.
pub(crate) async fn context(
    job: LoadedJob,
    run_dir: &Path,
    agent_model: Option<&AgentModel>,
    sinks: crate::trial::Sinks,
) -> Result<RunContext, SetupError> {
    // Before anything starts: a secret that cannot be masked would leak into every artifact
    // (or mask ordinary words in them).
    let unmaskable = crate::redact::declared::unmaskable_secrets(&job);
    if !unmaskable.is_empty() {
        return Err(SetupError::UnmaskableSecrets {
            job: job.file.clone(),
            list: unmaskable,
        });
    }
    let opencode_bin = opencode_binary(&job).0;
    let provider = agent_model.map(|m| m.provider.clone());
    // The real agent on its real model: credentials checked first (fail fast), then exactly the
    // hosts its providers need.
    let plan = match job.job.agent.runtime.backend {
        Backend::Opencode => Some(
            crate::providers::prepare(&job, provider.as_ref(), opencode_bin.as_deref())
                .await
                .map_err(|e| SetupError::Providers(e.to_string()))?,
        ),
        _ => None,
    };
    let endpoints = match &plan {
        Some(p) => p.hosts(),
        None => model_endpoints(&job, provider.as_ref()),
    };
    let cassette = agent_model.map(|m| m.cassette.as_path());
    let mut environments = environments(&job, run_dir, &endpoints, opencode_bin.as_deref(), cassette).await?;
    let mut redactor = Redactor::for_job(&job);
    if let Some(p) = &plan {
        environments =
            crate::run::environment::provider_home::apply_provider_plan(p, &job, run_dir, environments, &mut redactor)?;
    }
    let timeout = turn_timeout(&job);
    Ok(RunContext {
        redactor,
        emulator: emulator(&job)?,
        judge: judge(&job)?,
        environments,
        opencode_bin,
        provider_override: provider,
        turn_timeout: timeout,
        case_grace: crate::run::case::case_bound::CASE_GRACE,
        sinks,
        job,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_reached_through_a_symlink_is_bound_at_its_package_and_kept_as_named() {
        let d = tempfile::tempdir().unwrap();
        let store = d.path().join("store/opencode-linux-x64");
        std::fs::create_dir_all(store.join("bin")).unwrap();
        std::fs::write(store.join("bin/opencode"), "").unwrap();
        std::os::unix::fs::symlink(d.path().join("store"), d.path().join("node_modules")).unwrap();
        let named = d.path().join("node_modules/opencode-linux-x64/bin/opencode");
        let real = store.canonicalize().unwrap();
        assert_eq!(
            host_package_paths(&named, &d.path().join("job")),
            vec![real.clone(), named.clone()]
        );
        // Without a symlink on the way, the package alone.
        let direct = real.join("bin/opencode");
        assert_eq!(host_package_paths(&direct, &d.path().join("job")), vec![real.clone()]);
        // A binary inside the job's own folder: the binary, never the folder.
        assert_eq!(host_package_paths(&direct, &real.join("jobs/a")), vec![direct.clone()]);
    }
}
