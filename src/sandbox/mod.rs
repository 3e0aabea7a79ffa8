//! Sandboxes that fail closed: one policy model ([`SandboxPolicy`]), one session per runner
//! role ([`Session`]), and three backends — bubblewrap (default on Linux), OpenShell (only when
//! its gateway answers) and local (explicit, unisolated, never chosen automatically).
//!
//! Nothing here ever falls back to a weaker backend, binds the user's checkout writable, or
//! writes an environment value to an argv, a log or a file other than the child's env.

pub(crate) mod beneath;
pub(crate) mod bridge;
pub mod bwrap;
pub(crate) mod bwrap_data;
pub(crate) mod cgroup;
pub(crate) mod denials;
pub mod doctor;
pub(crate) mod etc;
pub(crate) mod exec;
pub mod files;
pub(crate) mod hidden_usage;
pub(crate) mod inputs;
pub(crate) mod limits;
pub(crate) mod log;
pub(crate) mod mcp_link;
pub(crate) mod mcp_staging;
pub(crate) mod openshell;
mod openshell_policy;
pub mod policy;
mod policy_job;
pub(crate) mod procs;
pub(crate) mod proxy;
pub(crate) mod proxy_http;
pub mod reaper;
pub(crate) mod scope;
pub mod scratch;
pub(crate) mod seccomp;
pub(crate) mod session;
pub(crate) mod session_sweep;
pub mod storage_watch;
pub mod test_resolve;
pub mod watch_exec;
pub(crate) mod watch_filter;
pub(crate) mod watch_memory;
pub mod watch_network;
pub(crate) mod watch_shim;
pub(crate) mod watch_supervisor;

pub use denials::Denial;
pub use exec::ExecOutput;
pub use policy::{HostPort, NetworkPolicy, Role, SandboxPolicy};
pub(crate) use scope::Capability;
pub use scope::{Area, Scope};
pub use session::{ExecOptions, Session};

use std::path::PathBuf;

use crate::spec::SandboxBackend;
use session::SessionConfig;

/// Everything that can go wrong in a sandbox.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The policy cannot be enforced as written.
    #[error("sandbox policy: {0}")]
    Policy(String),
    /// The backend cannot run on this machine; never answered by a fallback.
    #[error("sandbox backend unavailable: {0}")]
    Unavailable(String),
    /// The backend's tool failed.
    #[error("sandbox backend: {0}")]
    Backend(String),
    /// The seccomp filter could not be built.
    #[error("seccomp filter: {0}")]
    Seccomp(String),
    /// A process could not be started or awaited.
    #[error("cannot run the sandboxed command: {0}")]
    Spawn(String),
    /// A host file operation failed.
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    /// The session was already deleted.
    #[error("the sandbox session was already deleted")]
    Deleted,
}

/// A sandbox for one job: its policy, checked backend and where logs go; hands out sessions.
#[derive(Debug, Clone)]
pub struct Sandbox {
    policy: SandboxPolicy,
    cfg: SessionConfig,
}

impl Sandbox {
    /// Checks that the policy's backend really works here (a failed probe is an error, never
    /// a fallback) and returns a sandbox that creates sessions logging into `log_dir`.
    pub async fn open(policy: SandboxPolicy, log_dir: PathBuf) -> Result<Sandbox, SandboxError> {
        Self::open_with(policy, log_dir, helper_exe()).await
    }

    /// Like [`Sandbox::open`] with an explicit bridge executable (the ghostlab binary; tests
    /// pass it because their own executable is a test harness).
    pub async fn open_with(
        policy: SandboxPolicy,
        log_dir: PathBuf,
        bridge_exe: Option<PathBuf>,
    ) -> Result<Sandbox, SandboxError> {
        start_cleanup(bridge_exe.as_deref());
        let openshell_bin = openshell::locate();
        let probe = probe_once(policy.backend).await;
        if !probe.works {
            return Err(SandboxError::Unavailable(format!(
                "{}: {}",
                probe.backend, probe.detail
            )));
        }
        Ok(Sandbox {
            policy,
            cfg: SessionConfig {
                log_dir,
                bridge_exe,
                openshell_bin,
            },
        })
    }

    /// The policy sessions enforce.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// Creates a fresh session for `role`.
    pub async fn session(&self, role: Role) -> Result<Session, SandboxError> {
        Session::create(self.policy.clone(), role, self.cfg.clone()).await
    }
}

/// Backends whose probe already succeeded in this process.
static PROBED: std::sync::Mutex<Vec<SandboxBackend>> = std::sync::Mutex::new(Vec::new());

/// The ghostlab executable that runs inside the sandbox (network watch, egress bridge, MCP
/// relay connector): this process's own when it is the `ghostlab` binary. A test harness is
/// not; with the `test-hooks` feature it uses the `ghostlab` binary cargo built beside it.
/// `None` makes every bubblewrap command refuse to run (the watch is not optional).
pub(crate) fn helper_exe() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    if reaper::this_binary_is_ghostlab() {
        return Some(exe);
    }
    if cfg!(feature = "test-hooks") {
        // target/debug/deps/<harness> → target/debug/ghostlab
        let built = exe.parent()?.parent()?.join("ghostlab");
        return built.is_file().then_some(built);
    }
    None
}

/// The backend's probe, run once per process: a success is remembered (every session still
/// runs under the full profile, so a backend that breaks later fails its commands, closed);
/// a failure is not, so the next open probes again. OpenShell is asked every time: a remote
/// gateway can go away between runs of one process, and its probe is small next to a create.
async fn probe_once(backend: SandboxBackend) -> doctor::Probe {
    let known = PROBED.lock().map(|p| p.contains(&backend)).unwrap_or(false);
    if known {
        return doctor::Probe::ok(backend_name(backend), "probed earlier in this process");
    }
    let probe = match backend {
        SandboxBackend::Bubblewrap => doctor::probe_bubblewrap().await,
        SandboxBackend::Openshell => doctor::probe_openshell().await,
        SandboxBackend::Local => doctor::Probe::ok("local", "no isolation (explicitly selected)"),
    };
    if probe.works
        && backend != SandboxBackend::Openshell
        && let Ok(mut p) = PROBED.lock()
    {
        p.push(backend);
    }
    probe
}

fn backend_name(backend: SandboxBackend) -> &'static str {
    match backend {
        SandboxBackend::Bubblewrap => "bubblewrap",
        SandboxBackend::Openshell => "openshell",
        SandboxBackend::Local => "local",
    }
}

/// Once per process, before its first sandbox or local environment: sweeps what killed
/// Ghostlab processes left, installs the signal handler that ends live sessions, and starts
/// the reaper (with `exe`, the ghostlab executable) that cleans up after this process's SIGKILL.
pub(crate) fn start_cleanup(exe: Option<&std::path::Path>) {
    let Some(mut notes) = session_sweep::start_once() else {
        return;
    };
    match exe {
        // A test harness or bench as the executable: the next start sweeps instead.
        Some(exe) if !reaper::can_run(exe) => {}
        Some(exe) => {
            if let Err(e) = reaper::spawn(exe) {
                notes.push(format!("no reaper ({e}); a SIGKILL is cleaned up by the next start"));
            }
        }
        None => notes.push("no reaper (no ghostlab executable); a SIGKILL is cleaned up by the next start".into()),
    }
    for note in notes {
        tracing::warn!("{note}");
    }
}
