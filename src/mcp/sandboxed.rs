//! Starting stdio MCP servers inside a sandbox session, so untrusted server code never runs
//! on the host during discovery. The session decides the boundary, narrowed to what listing a
//! server's tools needs ([`discovery_scope`]); this only adapts it.

use std::sync::Arc;
use tokio::process::Command;

use super::launcher::{LaunchError, LaunchSpec, Launcher, own_process_group};
use crate::sandbox::{Area, Capability, ExecOptions, HostPort, Scope, Session};
use crate::spec::SandboxBackend;

/// What a server may use while Ghostlab lists its tools: its command's runtimes and inputs
/// (read-only, as in the session), the workspace copy and uploads read-only, its own HOME and
/// TMPDIR (package managers cache there), only the hosts `sandbox.allow` declares — not the
/// remote MCP hosts, which discovery reaches from the host itself — and no credentials (a
/// server gets its own declared `environment`), no agent config, no other server's socket.
pub fn discovery_scope(session: Scope, declared_hosts: &[HostPort]) -> Scope {
    session
        .read_only(Area::Workspace)
        .read_only(Area::Uploads)
        .without(Capability::Credentials)
        .without(Capability::AgentConfig)
        .without(Capability::McpRelay)
        .allow_only(declared_hosts)
}

/// Launches every server through one sandbox session, each command seeing only `scope` of it
/// (its workspace copy is their cwd unless the server names another, which must then be
/// visible inside).
pub struct SandboxLauncher {
    session: Arc<Session>,
    scope: Scope,
    label: String,
}

impl SandboxLauncher {
    /// A launcher whose commands see the whole session.
    pub fn new(session: Arc<Session>) -> Self {
        let scope = session.scope();
        Self::scoped(session, scope)
    }

    /// A launcher whose commands see only `scope` (refused at launch unless it lies within
    /// the session's).
    pub fn scoped(session: Arc<Session>, scope: Scope) -> Self {
        let label = format!("{:?}", session.policy().backend).to_lowercase();
        SandboxLauncher { session, scope, label }
    }

    /// The session, for its log and its deletion after discovery.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }
}

impl Launcher for SandboxLauncher {
    fn label(&self) -> &str {
        &self.label
    }

    fn prepare(&self, spec: &LaunchSpec) -> Result<Command, LaunchError> {
        if spec.argv.is_empty() {
            return Err(LaunchError::EmptyCommand);
        }
        let opts = ExecOptions {
            workdir: spec.cwd.as_ref().map(|c| c.to_string_lossy().into_owned()),
            env: spec.env.clone(),
            timeout: None,
        };
        let mut cmd = self
            .session
            .command_in(&self.scope, &spec.argv, &opts)
            .map_err(|e| LaunchError::Refused(e.to_string()))?;
        own_process_group(&mut cmd);
        Ok(cmd)
    }
}

/// The launcher a job's discovery uses: a fresh session of the job's sandbox cut to
/// [`discovery_scope`], or the host for an explicit `backend: local`. The session's policy
/// already holds the scope's network and credentials (every backend enforces those); under
/// bubblewrap each server's command also gets the scope's read-only workspace and private
/// folders, which OpenShell cannot draw per command. Returns the session so the caller
/// deletes it afterwards.
pub async fn launcher_for_job(
    job: &crate::spec::LoadedJob,
    log_dir: std::path::PathBuf,
) -> Result<(Arc<dyn Launcher>, Option<Arc<Session>>), String> {
    if job.job.sandbox.backend == crate::spec::SandboxBackend::Local {
        return Ok((Arc::new(super::HostLauncher), None));
    }
    let policy = crate::sandbox::SandboxPolicy::from_job(job).map_err(|e| e.to_string())?;
    let declared = crate::sandbox::policy::declared_allow_hosts(job);
    let policy = discovery_scope(Scope::of_policy(&policy), &declared)
        .narrow_policy(&policy)
        .map_err(|e| e.to_string())?;
    let sandbox = crate::sandbox::Sandbox::open(policy, log_dir)
        .await
        .map_err(|e| e.to_string())?;
    let session = Arc::new(
        sandbox
            .session(crate::sandbox::Role::Agent)
            .await
            .map_err(|e| e.to_string())?,
    );
    let launcher = if session.policy().backend == SandboxBackend::Bubblewrap {
        SandboxLauncher::scoped(session.clone(), discovery_scope(session.scope(), &declared))
    } else {
        SandboxLauncher::new(session.clone())
    };
    Ok((Arc::new(launcher), Some(session)))
}

/// Deletes a discovery session once every client holding it is gone.
pub async fn close_session(session: Option<Arc<Session>>) {
    if let Some(s) = session {
        match Arc::try_unwrap(s) {
            Ok(s) => {
                if let Err(e) = s.delete().await {
                    tracing::warn!("discovery sandbox delete failed: {e}");
                }
            }
            Err(_) => tracing::warn!("discovery sandbox still referenced; it ends when dropped"),
        }
    }
}
