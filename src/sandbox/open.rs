//! Opening a sandbox: the backend's probe (once per process), the clean-up every process
//! starts with, the ghostlab executable that runs inside, and the handle that hands out
//! sessions.

use std::path::PathBuf;

use super::doctor;
use super::error::SandboxError;
use super::openshell;
use super::policy::{Role, SandboxPolicy};
use super::reaper;
use super::session::{Session, SessionConfig};
use super::session_sweep;
use crate::spec::SandboxBackend;

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
        Self::open_with(policy, log_dir, reaper::helper_exe()).await
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
