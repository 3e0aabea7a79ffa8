//! Case environments inside a real sandbox session (bubblewrap): the agent CLI, its stdio MCP
//! servers, setup steps and the workspace's own scripts all start through the session, so
//! every process of the case runs under the job's policy.
//!
//! Inputs are staged copies shown read-only at their real host paths, so paths in the emitted
//! config stay valid; the generated config lives in the session (`/sandbox/config` inside),
//! readable by the sandbox user wherever the job's folder is. OpenShell sandboxes see none of the
//! host's paths: [`open_factory`] hands them to `crate::run::environment::openshell_env`, which uploads instead.

use futures::future::BoxFuture;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::run::environment::case_environment::{
    CaseEnvironment, EgressDenial, EnvironmentError, EnvironmentFactory, ServeLink, TransferError,
};
use crate::run::environment::mcp_relay::{McpRelay, relay_scope};
use crate::run::environment::session_env::{SessionEnvironment, SessionFlavor};
use crate::sandbox::{HostPort, Role, Sandbox, SandboxPolicy, Session};
use crate::spec::SandboxBackend;
use crate::spec::resolved::ResolvedMcp;

/// Why a sandboxed backend's environments could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The backend's probe failed (never a fallback to another backend).
    #[error(transparent)]
    Sandbox(#[from] crate::sandbox::SandboxError),
    #[error("internal: OpenShell environments are opened by `open_factory`")]
    OpenshellOutsideOpenFactory,
}

/// The environments of a sandboxed backend: OpenShell's (uploads, `sandbox exec`) or the
/// local sandbox's (bubblewrap). `agent_bins` are the agent host's binaries on the host, which
/// an OpenShell image carries under the same name.
pub(crate) async fn open_factory(
    policy: SandboxPolicy,
    log_dir: PathBuf,
    extra_read_only: Vec<PathBuf>,
    agent_bins: Vec<PathBuf>,
    mcps: Vec<ResolvedMcp>,
    server_hosts: Vec<HostPort>,
) -> Result<Arc<dyn EnvironmentFactory>, OpenError> {
    if policy.backend == SandboxBackend::Openshell {
        let f = crate::run::environment::openshell_env::OpenShellEnvironmentFactory::open(policy, log_dir, agent_bins)
            .await?;
        return Ok(Arc::new(f));
    }
    Ok(Arc::new(
        SandboxEnvironmentFactory::open(policy, log_dir, extra_read_only, mcps, server_hosts).await?,
    ))
}

/// Opens one sandbox for the job and creates one agent session per case.
pub(crate) struct SandboxEnvironmentFactory {
    sandbox: Sandbox,
    /// The job's MCP servers; stdio ones are relayed (see `crate::run::environment::mcp_relay`).
    mcps: Vec<ResolvedMcp>,
    /// The hosts a relayed server may reach (the session's, less the agent's model endpoints).
    server_hosts: Vec<HostPort>,
}

impl SandboxEnvironmentFactory {
    /// Checks the backend (a failed probe is an error, never a fallback).
    /// `extra_read_only` are host paths the agent host needs (its package folder); they are
    /// bound, not copied.
    pub(crate) async fn open(
        mut policy: SandboxPolicy,
        log_dir: PathBuf,
        extra_read_only: Vec<PathBuf>,
        mcps: Vec<ResolvedMcp>,
        server_hosts: Vec<HostPort>,
    ) -> Result<Self, OpenError> {
        if policy.backend == SandboxBackend::Openshell {
            return Err(OpenError::OpenshellOutsideOpenFactory);
        }
        policy.read_only.extend(extra_read_only);
        policy.read_only.sort();
        policy.read_only.dedup();
        let sandbox = Sandbox::open(policy, log_dir).await?;
        Ok(SandboxEnvironmentFactory {
            sandbox,
            mcps,
            server_hosts,
        })
    }
}

impl EnvironmentFactory for SandboxEnvironmentFactory {
    fn create<'a>(&'a self, _case_id: &'a str) -> BoxFuture<'a, Result<Box<dyn CaseEnvironment>, EnvironmentError>> {
        Box::pin(async move {
            let session = Arc::new(self.sandbox.session(Role::Agent).await?);
            let scope = relay_scope(session.scope(), &self.server_hosts);
            let relay = McpRelay::start(&session, &self.mcps, scope)?;
            Ok(Box::new(SessionEnvironment {
                session,
                flavor: BoundFolders { relay },
            }) as Box<dyn CaseEnvironment>)
        })
    }
}

/// The local sandbox's flavor: the agent sees the host folders themselves, stdio MCP servers
/// are relayed, and warm mode's server and turns meet through the bridge program.
struct BoundFolders {
    relay: Option<McpRelay>,
}

impl SessionFlavor for BoundFolders {
    fn serve_link(&self, session: &Session) -> ServeLink {
        match session.helper_exe() {
            Some(exe) => ServeLink::Bridged {
                exe: exe.to_string_lossy().into_owned(),
            },
            None => ServeLink::Unavailable(
                "this sandbox session has no bridge program (it has no network allowlist, so no model endpoint either)"
                    .into(),
            ),
        }
    }
    fn map_path(&self, host: &Path) -> String {
        host.to_string_lossy().into_owned()
    }
    fn mcp_command(&self, server: &ResolvedMcp) -> Option<Vec<String>> {
        self.relay.as_ref().and_then(|r| r.command_for(&server.name))
    }
    fn denials(&self, session: &Session) -> Vec<EgressDenial> {
        session
            .denials()
            .into_iter()
            .map(|d| EgressDenial {
                host: d.host,
                port: d.port,
                at: chrono::DateTime::parse_from_rfc3339(&d.time)
                    .map(|t| t.with_timezone(&chrono::Utc))
                    .unwrap_or_else(|_| chrono::Utc::now()),
            })
            .collect()
    }
    fn scratch_dirs(&self, session: &Session) -> Vec<(String, PathBuf)> {
        crate::run::environment::observe_files::session_scratch(session.home_dir(), session.dir())
    }
    /// The agent sees the host folders themselves: nothing to send or bring back.
    fn push_prepared<'a>(&'a self, _session: &'a Session) -> BoxFuture<'a, Result<(), TransferError>> {
        Box::pin(async { Ok(()) })
    }
    fn pull_results<'a>(&'a self, _session: &'a Session) -> BoxFuture<'a, Result<(), TransferError>> {
        Box::pin(async { Ok(()) })
    }
    fn before_delete<'a>(&'a self, _session: &'a Session) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(r) = &self.relay {
                r.stop();
            }
        })
    }
}
