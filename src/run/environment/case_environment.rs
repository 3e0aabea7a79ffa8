//! Where a case's agent runs: a `CaseEnvironment` gives the runner a `CommandFactory`, the
//! paths the agent sees, and afterwards the final workspace and the denied egress attempts.
//!
//! Sandbox backends implement it (`crate::sandbox`); `LocalEnvironment` is the explicit,
//! unsandboxed `backend: local` (a workspace copy in a temp folder, the host's programs).

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::run::environment::spawn::{CommandFactory, HostCommandFactory};
use crate::run::environment::workspace_keep::KeepBy;
use crate::sandbox::files::{CopyBudget, copy_tree, copy_tree_within};

/// One attempt the sandbox refused.
#[derive(Debug, Clone, PartialEq)]
pub struct EgressDenial {
    pub host: String,
    pub port: u16,
    pub at: DateTime<Utc>,
}

/// A prepared place for one case's agent.
pub trait CaseEnvironment: Send + Sync {
    /// `bubblewrap`, `openshell`, `local`: recorded in the report's provenance.
    fn backend(&self) -> String;
    fn factory(&self) -> Arc<dyn CommandFactory>;
    /// The workspace copy, as the agent sees it.
    fn workdir(&self) -> String;
    /// A private writable HOME, as the agent sees it.
    fn home(&self) -> String;
    /// The same HOME on the host (for rendezvous sockets between the agent's processes).
    fn home_host(&self) -> PathBuf;
    /// How a later command reaches a server an earlier command of this case started.
    fn serve_link(&self) -> ServeLink;
    /// A host folder whose files the agent sees at `config_dir()` (read-only is fine).
    fn config_dir_host(&self) -> PathBuf;
    fn config_dir(&self) -> String;
    /// Maps a host input path (instructions, skills, MCP servers) to the agent's view.
    fn map_path(&self, host: &Path) -> String;
    /// The command the agent host runs instead of a stdio MCP server's own, when the
    /// environment runs that server outside the agent's processes (a sandbox relay).
    ///
    /// No default for this and the hooks below: a wrapping environment that forgot to forward
    /// one silently ran MCP servers inside the agent's processes.
    fn mcp_command(&self, server: &crate::spec::resolved::ResolvedMcp) -> Option<Vec<String>>;
    /// The workspace copy on the host after the conversation (for file checks).
    fn final_workspace(&self) -> Option<PathBuf>;
    /// How the run keeps `final_workspace`: moved when it is a folder the harness made, owns
    /// and removes at close, else copied.
    fn keep_final_workspace_by(&self) -> KeepBy;
    /// Egress attempts refused so far.
    fn denials(&self) -> Vec<EgressDenial>;
    /// Programs the agent's processes started since the last call, as the sandbox's watch saw
    /// them (`sandbox::watch_exec`); empty where nothing watches (local, OpenShell).
    fn take_programs(&self) -> crate::sandbox::watch_exec::CommandLog;
    /// Why the watch could not see what the agent's processes did (their memory was not
    /// readable), if so: the case is then an infrastructure error, not judged.
    fn watch_fault(&self) -> Option<String>;
    /// Host folders the agent can write besides the workspace, labelled as the agent sees
    /// them (`HOME`, `TMPDIR`); inspected for outside writes before the environment is removed.
    fn scratch_dirs(&self) -> Vec<(String, PathBuf)>;
    /// Sends what the host prepared after creation (generated config, seeded HOME) to where
    /// the agent reads it. Nothing to do where the agent sees the host folders themselves.
    fn push_prepared(&self) -> BoxFuture<'_, Result<(), TransferError>>;
    /// Brings the workspace (and, after the agent ran, HOME) back to `final_workspace` and
    /// `scratch_dirs` on the host. Nothing to do where those are the folders the agent uses.
    fn pull_results(&self) -> BoxFuture<'_, Result<(), TransferError>>;
    /// Copies `inside` (a path as this environment's commands see it) to `local` on the host,
    /// which must not exist yet: `sandbox.download`.
    fn fetch<'a>(&'a self, inside: &'a str, local: &'a Path) -> BoxFuture<'a, Result<(), TransferError>>;
    /// Stops everything still running and removes the environment (unless kept).
    fn close(self: Box<Self>) -> BoxFuture<'static, ()>;
}

/// How a long-running agent server (OpenCode's warm mode) is reached by the case's later
/// commands.
#[derive(Debug, Clone, PartialEq)]
pub enum ServeLink {
    /// Every command shares the host's loopback (`backend: local`).
    SharedLoopback,
    /// Every command has its own network namespace; the bridge program (`exe`, the ghostlab
    /// executable as the agent sees it) joins them through a unix socket in the case's HOME.
    Bridged { exe: String },
    /// Every command of the case runs in one sandbox and shares its loopback (OpenShell: one
    /// container per sandbox, each `sandbox exec` inside it); the host sees the server only
    /// through a port forward. `start` and `stop` are host argvs, `{port}` standing for the port.
    Forwarded { start: Vec<String>, stop: Vec<String> },
    /// Not possible here, and why.
    Unavailable(String),
}

impl ServeLink {
    /// Whether warm mode is the default here. On a forward it must be asked for
    /// (`hosts.opencode.mode: warm`): it is verified only against the FAKE `openshell`.
    pub(crate) fn warm_by_default(&self) -> bool {
        matches!(self, ServeLink::SharedLoopback | ServeLink::Bridged { .. })
    }
}

/// Why a case's environment could not be made. Each keeps what it is about.
#[derive(Debug, thiserror::Error)]
pub enum EnvironmentError {
    /// The sandbox could not open a session for the case.
    #[error(transparent)]
    Sandbox(#[from] crate::sandbox::SandboxError),
    /// A host folder the environment needs (the workspace copy, the session HOME).
    #[error("{what}: {source}")]
    Folder {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// The relay of the stdio MCP servers could not start.
    #[error(transparent)]
    McpRelay(#[from] crate::run::environment::mcp_relay::RelayError),
    /// The agent's provider login could not be staged (`providers::auth_file` says why).
    #[error("{0}")]
    Credentials(String),
    /// The run's record of staged logins (`providers.json`) could not be written.
    #[error("{}: {source}", run_dir.display())]
    ProvidersRecord {
        run_dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Why moving files between the host and a case's environment failed (sending the prepared
/// config and HOME, bringing results back, `sandbox.download`). Each keeps its cause.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// A host-side file operation on the environment's mirror folders.
    #[error("{}: {source}", path.display())]
    HostFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The sandbox failed an upload, a download or its log.
    #[error("{doing} {inside}: {source}")]
    Sandbox {
        doing: &'static str,
        inside: String,
        #[source]
        source: crate::sandbox::SandboxError,
    },
    /// A path the environment does not hold (`backend: local` copies only from its own folder).
    #[error("{inside} is not in the local environment's workspace or HOME")]
    Outside { inside: String },
    /// Copying a path out of a local environment.
    #[error("copying {inside}: {source}")]
    Copy {
        inside: String,
        #[source]
        source: std::io::Error,
    },
}

/// Creates environments, one per case and role.
pub trait EnvironmentFactory: Send + Sync {
    fn create<'a>(&'a self, case_id: &'a str) -> BoxFuture<'a, Result<Box<dyn CaseEnvironment>, EnvironmentError>>;
}

/// `backend: local`: no isolation, chosen explicitly. The workspace is still a copy and HOME
/// is a fresh temp folder, so the user's checkout and home are not touched by the agent's
/// config and state — but the agent's tools can reach anything the user can.
pub struct LocalEnvironment {
    root: tempfile::TempDir,
    /// Whether a command factory was handed out, so a process of this case may still live.
    commands_made: AtomicBool,
}

impl LocalEnvironment {
    /// Copies `workspace` (if any) into a fresh temp folder.
    pub fn create(workspace: Option<&Path>) -> std::io::Result<Self> {
        Self::create_without(workspace, &[])
    }

    /// [`Self::create`], leaving `exclude` (absolute paths) out of the copy.
    pub(crate) fn create_without(workspace: Option<&Path>, exclude: &[PathBuf]) -> std::io::Result<Self> {
        let root = tempfile::Builder::new()
            .prefix(crate::sandbox::session_sweep::LOCAL_PREFIX)
            .tempdir()?;
        // Owned, so a later start (or this process's reaper) removes it after a SIGKILL, and
        // registered, so SIGTERM/SIGINT remove it before exiting.
        std::fs::write(
            root.path().join(crate::sandbox::session_sweep::OWNER_FILE),
            crate::sandbox::session_sweep::owner_stamp(),
        )?;
        crate::sandbox::session_sweep::register(root.path(), "");
        let ws = root.path().join("workspace");
        match workspace {
            Some(src) => {
                let src = std::path::absolute(src)?;
                let mut unbounded = CopyBudget {
                    bytes: u64::MAX,
                    entries: u64::MAX,
                };
                let keep = |p: &Path, _: &std::fs::Metadata| !exclude.iter().any(|x| p == x);
                copy_tree_within(&src, &ws, &mut unbounded, &keep)?
            }
            None => std::fs::create_dir_all(&ws)?,
        }
        // Each made directly: the root is new, so `create_dir_all` would only add a failed try.
        std::fs::create_dir(root.path().join("home"))?;
        std::fs::create_dir(root.path().join("home/tmp"))?;
        // `config/` is made by the first file written there (the agent's generated config);
        // a folder per case that no agent needs costs an inode allocation and a removal.
        Ok(LocalEnvironment {
            root,
            commands_made: AtomicBool::new(false),
        })
    }
}

impl Drop for LocalEnvironment {
    fn drop(&mut self) {
        // Before the folder itself goes (the `TempDir` field drops after this).
        crate::sandbox::session_sweep::unregister(self.root.path());
    }
}

impl CaseEnvironment for LocalEnvironment {
    fn backend(&self) -> String {
        "local".into()
    }
    fn take_programs(&self) -> crate::sandbox::watch_exec::CommandLog {
        Default::default()
    }
    fn watch_fault(&self) -> Option<String> {
        None
    }
    fn factory(&self) -> Arc<dyn CommandFactory> {
        self.commands_made.store(true, Ordering::Relaxed);
        Arc::new(HostCommandFactory)
    }
    fn workdir(&self) -> String {
        self.root.path().join("workspace").to_string_lossy().into_owned()
    }
    fn home(&self) -> String {
        self.root.path().join("home").to_string_lossy().into_owned()
    }
    fn home_host(&self) -> PathBuf {
        self.root.path().join("home")
    }
    fn serve_link(&self) -> ServeLink {
        ServeLink::SharedLoopback
    }
    fn config_dir_host(&self) -> PathBuf {
        self.root.path().join("config")
    }
    fn config_dir(&self) -> String {
        self.config_dir_host().to_string_lossy().into_owned()
    }
    fn map_path(&self, host: &Path) -> String {
        host.to_string_lossy().into_owned()
    }
    fn final_workspace(&self) -> Option<PathBuf> {
        Some(self.root.path().join("workspace"))
    }
    /// Moved; checked for processes the agent left running when any command ran here.
    fn keep_final_workspace_by(&self) -> KeepBy {
        KeepBy::Move {
            processes_may_remain: self.commands_made.load(Ordering::Relaxed),
        }
    }
    fn denials(&self) -> Vec<EgressDenial> {
        Vec::new()
    }
    fn mcp_command(&self, _server: &crate::spec::resolved::ResolvedMcp) -> Option<Vec<String>> {
        None
    }
    fn scratch_dirs(&self) -> Vec<(String, PathBuf)> {
        vec![("HOME".into(), self.home_host())]
    }
    fn push_prepared(&self) -> BoxFuture<'_, Result<(), TransferError>> {
        Box::pin(async { Ok(()) })
    }
    fn pull_results(&self) -> BoxFuture<'_, Result<(), TransferError>> {
        Box::pin(async { Ok(()) })
    }
    /// Only from the environment's own folder: a `local` run has no sandbox to read from.
    fn fetch<'a>(&'a self, inside: &'a str, local: &'a Path) -> BoxFuture<'a, Result<(), TransferError>> {
        Box::pin(async move {
            let path = Path::new(inside);
            let climbs = path.components().any(|c| c == std::path::Component::ParentDir);
            if !path.starts_with(self.root.path()) || climbs {
                return Err(TransferError::Outside {
                    inside: inside.to_string(),
                });
            }
            copy_tree(path, local).map_err(|source| TransferError::Copy {
                inside: inside.to_string(),
                source,
            })
        })
    }
    fn close(self: Box<Self>) -> BoxFuture<'static, ()> {
        // Removing the folder waits on the file system: not on a runtime worker.
        Box::pin(async move {
            let _ = crate::util::blocking::off_runtime(move || {
                drop(self);
                Ok(())
            })
            .await;
        })
    }
}

/// Creates a `LocalEnvironment` per case (explicit `backend: local`).
pub struct LocalEnvironmentFactory {
    pub workspace: Option<PathBuf>,
    /// Absolute paths left out of the copy (the job's own files).
    pub exclude: Vec<PathBuf>,
}

impl EnvironmentFactory for LocalEnvironmentFactory {
    fn create<'a>(&'a self, _case_id: &'a str) -> BoxFuture<'a, Result<Box<dyn CaseEnvironment>, EnvironmentError>> {
        let (workspace, exclude) = (self.workspace.clone(), self.exclude.clone());
        Box::pin(async move {
            crate::sandbox::start_cleanup(std::env::current_exe().ok().as_deref());
            crate::util::blocking::off_runtime(move || LocalEnvironment::create_without(workspace.as_deref(), &exclude))
                .await
                .map(|e| Box::new(e) as Box<dyn CaseEnvironment>)
                .map_err(|source| EnvironmentError::Folder {
                    what: "cannot prepare the local workspace copy",
                    source,
                })
        })
    }
}

#[cfg(test)]
#[path = "case_environment_tests.rs"]
mod tests;
