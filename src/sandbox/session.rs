//! One role's sandbox session: created with a private copy of the workspace, runs commands
//! under the policy, moves files in and out, keeps the role's log, and on delete ends every
//! process it started and removes its folder (unless `keep`).
//!
//! A session never binds the user's checkout writable and never puts an environment value on
//! an argv or into its log.

use indexmap::IndexMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::SandboxError;
use super::bwrap::{Layout, map_inside};
use super::cgroup::CgroupSet;
use super::denials::Denial;
use super::limits::sandbox_uid;
use super::log::SessionLog;
use super::openshell;
use super::policy::{NetworkPolicy, Role, SandboxPolicy};
use super::procs;
use super::proxy::EgressProxy;
use super::scratch::{self, ScratchBound};
use super::session_sweep;

#[path = "session_command.rs"]
mod command;
#[path = "session_io.rs"]
mod io;
#[path = "session_openshell.rs"]
mod openshell_ops;
#[path = "session_prepare.rs"]
mod prepare;
#[path = "session_storage.rs"]
mod storage;
use super::inputs::check_program;
use crate::spec::SandboxBackend;

/// PATH inside the sandbox unless the allowlist copies the host's.
use super::inputs::SANDBOX_PATH;

/// Per-command options.
#[derive(Debug, Clone, Default)]
pub struct ExecOptions {
    /// Start folder inside the sandbox; the policy's workdir when `None`.
    pub workdir: Option<String>,
    /// Extra environment for this command only (values go only into the child's environment).
    pub env: IndexMap<String, String>,
    /// Wall-clock limit for `exec`; the policy's when `None`.
    pub timeout: Option<Duration>,
}

/// Settings a session is created with besides the policy.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Folder for `sandbox-<role>-<session>.log`.
    pub(crate) log_dir: PathBuf,
    /// The executable that implements `__egress-bridge` (the ghostlab binary).
    pub(crate) bridge_exe: Option<PathBuf>,
    /// The `openshell` program for the OpenShell backend.
    pub(crate) openshell_bin: Option<PathBuf>,
}

/// A live sandbox session for one role.
#[derive(Debug)]
pub struct Session {
    id: String,
    policy: SandboxPolicy,
    layout: Layout,
    log: SessionLog,
    proxy: Option<EgressProxy>,
    bridge_exe: Option<PathBuf>,
    openshell_bin: Option<PathBuf>,
    /// Host processes run as this uid:gid (bubblewrap as root drops to the sandbox user).
    owner: Option<(u32, u32)>,
    /// Tree-wide limits, when cgroups are writable.
    cgroups: Option<CgroupSet>,
    /// How HOME and TMPDIR are bounded (set while preparing).
    scratch: ScratchBound,
    /// With a measured bound: the watcher that enforces it while commands run.
    storage_watch: Option<super::storage_watch::StorageWatch>,
    /// Egress proxies of commands whose scope allows fewer hosts than the session (one per
    /// distinct allowlist, started on first use).
    scoped_proxies: std::sync::Mutex<Vec<ScopedProxy>>,
    /// Direct network attempts the watch of bubblewrap commands refused (`watch_supervisor`).
    watch: super::watch_supervisor::WatchLog,
    /// Staged inputs too large to show by content, bound instead (each logged once).
    bound_inputs: std::sync::Mutex<std::collections::HashSet<PathBuf>>,
    deleted: bool,
}

/// One narrowed allowlist's proxy and the folder of its socket.
#[derive(Debug)]
struct ScopedProxy {
    allow: Vec<super::HostPort>,
    dir: PathBuf,
    proxy: EgressProxy,
}

impl Session {
    /// Creates the session: folder, workspace copy, uploads, log, proxy, and (OpenShell) the
    /// remote sandbox.
    pub async fn create(policy: SandboxPolicy, role: Role, cfg: SessionConfig) -> Result<Session, SandboxError> {
        let id = format!("{}-{:08x}", role.as_str(), rand::random::<u32>());
        let dir = tempfile::Builder::new()
            .prefix(&format!("ghostlab-sandbox-{id}-"))
            .tempdir()
            .map_err(|e| SandboxError::Io("creating the session folder".into(), e))?
            .keep();
        let layout = Layout::new(&dir);
        // Owner first, so a crash at any later point leaves a folder the next start sweeps.
        // Atomically: another Ghostlab process sweeping at this instant must never read a
        // half-written stamp and take this live session for a dead one. Not fsynced: the
        // stamp matters only while this boot's processes run.
        super::log::replace_unsynced(
            &dir.join(session_sweep::OWNER_FILE),
            session_sweep::owner_stamp().as_bytes(),
        )
        .map_err(|e| SandboxError::Io("writing the session owner file".into(), e))?;
        if policy.keep {
            std::fs::write(dir.join(session_sweep::KEEP_FILE), "keep: true\n")
                .map_err(|e| SandboxError::Io("writing the session keep marker".into(), e))?;
        }
        session_sweep::register(&dir, &id);
        let mut secrets: Vec<String> = policy.env_values.values().cloned().collect();
        secrets.extend(policy.env_allowlist.iter().filter_map(|k| std::env::var(k).ok()));
        // One file per session (`sandbox-agent-1a2b3c4d.log`): a run has many sessions per role.
        let log_path = cfg.log_dir.join(format!("sandbox-{id}.log"));
        let header = format!(
            "session {id} created: backend {:?}, root filesystem {}, workdir {}, network {}, limits {:?}",
            policy.backend,
            policy.root_filesystem.as_str(),
            policy.workdir,
            describe_network(&policy.network),
            policy.limits
        );
        let log = SessionLog::create(&log_path, &header, secrets)
            .map_err(|e| SandboxError::Io(format!("writing {}", log_path.display()), e))?;
        let owner = (policy.backend == SandboxBackend::Bubblewrap && sandbox_uid().2).then(|| {
            let (u, g, _) = sandbox_uid();
            (u, g)
        });
        let mut session = Session {
            id,
            layout,
            log,
            proxy: None,
            bridge_exe: cfg.bridge_exe,
            openshell_bin: cfg.openshell_bin,
            owner,
            cgroups: None,
            scratch: ScratchBound::Measured,
            storage_watch: None,
            scoped_proxies: std::sync::Mutex::new(Vec::new()),
            watch: Default::default(),
            bound_inputs: Default::default(),
            deleted: false,
            policy,
        };
        if let Err(e) = session.prepare().await {
            session.log.note(&format!("session creation failed: {e}"));
            session.release_scratch();
            session_sweep::unregister(&session.layout.dir);
            if let Some(cg) = session.cgroups.take()
                && let Err(e) = cg.remove()
            {
                session.log.note(&e.to_string());
            }
            let _ = std::fs::remove_dir_all(&session.layout.dir);
            session.deleted = true;
            return Err(e);
        }
        Ok(session)
    }

    /// The session id (also the OpenShell sandbox name).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The policy this session enforces.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// The host folder of the workspace copy.
    pub fn workspace_dir(&self) -> &Path {
        &self.layout.workspace
    }

    /// The session's private HOME on the host.
    pub fn home_dir(&self) -> &Path {
        &self.layout.home
    }

    /// The host folder shown read-only at [`super::bwrap::CONFIG_INSIDE`] (generated agent config).
    pub fn config_dir(&self) -> &Path {
        &self.layout.config
    }

    /// The ghostlab executable as bound inside this session, when it is (it is the egress
    /// bridge, so only sessions with an allowlist have it).
    pub(crate) fn helper_exe(&self) -> Option<&Path> {
        self.proxy.as_ref().and(self.bridge_exe.as_deref())
    }

    /// The ghostlab executable as shown inside a bubblewrap session (the MCP relay's
    /// connector runs it).
    pub(crate) fn relay_exe(&self) -> Option<&Path> {
        (self.policy.backend == SandboxBackend::Bubblewrap)
            .then_some(self.bridge_exe.as_deref())
            .flatten()
    }

    /// The host folder for the MCP relay's sockets (shown at `bwrap::MCP_SOCKETS_INSIDE`).
    pub fn mcp_socket_dir(&self) -> &Path {
        &self.layout.mcp
    }

    /// The uid:gid sandboxed processes run as on the host, when Ghostlab drops root.
    pub(crate) fn owner(&self) -> Option<(u32, u32)> {
        self.owner
    }

    /// Writes `line` to the session's log (redacted like every line).
    pub(crate) fn note(&self, line: &str) {
        self.log.note(line);
    }

    /// The host folder of the whole session.
    pub fn dir(&self) -> &Path {
        &self.layout.dir
    }

    /// The path of `sandbox-<role>-<session>.log`.
    pub fn log_path(&self) -> &Path {
        self.log.path()
    }

    /// Network attempts refused: by the egress proxies (the session's and those of narrowed
    /// scopes) and, for bubblewrap commands, direct ones the network watch caught.
    pub fn denials(&self) -> Vec<Denial> {
        let mut all = self.proxy.as_ref().map(|p| p.denials()).unwrap_or_default();
        let scoped = self.scoped_proxies.lock().unwrap_or_else(|p| p.into_inner());
        all.extend(scoped.iter().flat_map(|s| s.proxy.denials()));
        all.extend(self.watch.denials.lock().unwrap_or_else(|p| p.into_inner()).all());
        all
    }

    /// Programs the session's bubblewrap commands started since the last call (the watch's
    /// record), and how many could not be kept or read.
    pub fn take_commands(&self) -> super::watch_exec::CommandLog {
        std::mem::take(&mut *self.watch.commands.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Why the watch could not see what the session's processes did, if it could not (their
    /// memory was not readable): the session's record is then incomplete.
    pub fn watch_fault(&self) -> Option<String> {
        self.watch.blind.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Ends every process of the session and removes its folder unless `keep`.
    pub async fn delete(mut self) -> Result<(), SandboxError> {
        self.deleted = true;
        self.storage_watch.take();
        self.watch.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let killed = procs::kill_session(&self.layout.dir, &self.id);
        self.proxy.take();
        self.scoped_proxies.lock().unwrap_or_else(|p| p.into_inner()).clear();
        if self.policy.keep {
            for d in self.layout.bounded().into_iter().chain([&self.layout.inputs]) {
                if let Err(e) = scratch::preserve_then_unmount(d) {
                    self.log
                        .note(&format!("keeping {}: {e}; its tmpfs is unmounted", d.display()));
                    scratch::unmount(d);
                }
            }
        }
        self.release_scratch();
        let mut result = Ok(());
        if let Some(cg) = self.cgroups.take() {
            let removed = tokio::task::spawn_blocking(move || cg.remove())
                .await
                .map_err(|e| SandboxError::Spawn(e.to_string()))?;
            if let Err(e) = removed {
                self.log.note(&e.to_string());
                result = Err(SandboxError::Backend(e.to_string()));
            }
        }
        if self.policy.backend == SandboxBackend::Openshell && !self.policy.keep {
            result = self.run_openshell(&openshell::delete_args(&self.id)).await.map(|_| ());
        }
        if self.policy.keep {
            self.log.note(&format!(
                "session deleted ({killed} launcher processes killed); KEPT at {} (keep: true)",
                self.layout.dir.display()
            ));
        } else {
            self.log
                .note(&format!("session deleted ({killed} launcher processes killed)"));
            let dir = self.layout.dir.clone();
            tokio::task::spawn_blocking(move || std::fs::remove_dir_all(&dir))
                .await
                .map_err(|e| SandboxError::Spawn(e.to_string()))?
                .map_err(|e| SandboxError::Io("removing the session folder".into(), e))?;
        }
        session_sweep::unregister(&self.layout.dir);
        // The log's one fsync (its lines were written without one).
        self.log
            .sync()
            .map_err(|e| SandboxError::Io(format!("writing {}", self.log.path().display()), e))?;
        result
    }

    /// Waits until `sandbox-<role>-<session>.log` on disk holds every line so far.
    pub fn flush_log(&self) -> Result<(), SandboxError> {
        self.log
            .flush()
            .map_err(|e| SandboxError::Io(format!("writing {}", self.log.path().display()), e))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A session dropped without delete must still leave no process behind.
        self.watch.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if !self.deleted {
            procs::kill_session(&self.layout.dir, &self.id);
            if let Some(cg) = self.cgroups.take()
                && let Err(e) = cg.remove()
            {
                self.log.note(&e.to_string());
            }
            self.release_scratch();
            // The folder stays (a dropped session may be inspected); the owner file lets the
            // next start sweep it once this process is gone.
            session_sweep::unregister(&self.layout.dir);
        }
    }
}

fn describe_network(n: &NetworkPolicy) -> String {
    match n {
        NetworkPolicy::Disabled => "disabled".into(),
        NetworkPolicy::Allowlist(l) => {
            format!(
                "allowlist [{}]",
                l.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(", ")
            )
        }
        NetworkPolicy::OpenShellPolicy(p) => format!("openshell policy {}", p.display()),
    }
}
