//! Starting stdio MCP servers inside a sandbox session, so untrusted server code never runs
//! on the host during discovery. The session decides the boundary; this only adapts it.

use std::sync::Arc;
use tokio::process::Command;

use super::launcher::{LaunchError, LaunchSpec, Launcher, own_process_group};
use crate::sandbox::{ExecOptions, Session};

/// Launches every server through one sandbox session (its workspace copy is their cwd unless
/// the server names another, which must then be visible inside).
pub struct SandboxLauncher {
    session: Arc<Session>,
    label: String,
}

impl SandboxLauncher {
    pub fn new(session: Arc<Session>) -> Self {
        let label = format!("{:?}", session.policy().backend).to_lowercase();
        SandboxLauncher { session, label }
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
            .command(&spec.argv, &opts)
            .map_err(|e| LaunchError::Refused(e.to_string()))?;
        own_process_group(&mut cmd);
        Ok(cmd)
    }
}

/// The launcher a job's discovery uses: a fresh session of the job's sandbox, or the host for
/// an explicit `backend: local`. Returns the session so the caller deletes it afterwards.
pub async fn launcher_for_job(
    job: &crate::spec::LoadedJob,
    log_dir: std::path::PathBuf,
) -> Result<(Arc<dyn Launcher>, Option<Arc<Session>>), String> {
    if job.job.sandbox.backend == crate::spec::SandboxBackend::Local {
        return Ok((Arc::new(super::HostLauncher), None));
    }
    let policy = crate::sandbox::SandboxPolicy::from_job(job).map_err(|e| e.to_string())?;
    let sandbox = crate::sandbox::Sandbox::open(policy, log_dir)
        .await
        .map_err(|e| e.to_string())?;
    let session = Arc::new(
        sandbox
            .session(crate::sandbox::Role::Agent)
            .await
            .map_err(|e| e.to_string())?,
    );
    Ok((Arc::new(SandboxLauncher::new(session.clone())), Some(session)))
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
