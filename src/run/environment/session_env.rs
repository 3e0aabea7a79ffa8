//! The case environment of a sandbox session, whatever the backend: the paths and command
//! factory every session has in common, once. What differs between bubblewrap (host folders
//! bound in, an MCP relay, a bridge for warm mode) and OpenShell (uploads, downloads, the
//! gateway's log) is a [`SessionFlavor`].

use futures::future::BoxFuture;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::run::environment::case_environment::{CaseEnvironment, EgressDenial, ServeLink, TransferError};
use crate::run::environment::spawn::{CommandError, CommandFactory, CommandSpec};
use crate::run::environment::workspace_keep::KeepBy;
use crate::sandbox::{ExecOptions, Session, bwrap};
use crate::spec::resolved::ResolvedMcp;

/// What one backend does differently with its session.
pub(super) trait SessionFlavor: Send + Sync + 'static {
    fn serve_link(&self, session: &Session) -> ServeLink;
    fn map_path(&self, host: &Path) -> String;
    fn mcp_command(&self, server: &ResolvedMcp) -> Option<Vec<String>>;
    fn denials(&self, session: &Session) -> Vec<EgressDenial>;
    fn scratch_dirs(&self, session: &Session) -> Vec<(String, PathBuf)>;
    fn push_prepared<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, Result<(), TransferError>>;
    fn pull_results<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, Result<(), TransferError>>;
    /// Runs before the session is deleted (stop helpers, clean a kept sandbox).
    fn before_delete<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, ()>;
}

/// One case's session and its backend's flavor.
pub(super) struct SessionEnvironment<F> {
    pub(crate) session: Arc<Session>,
    pub(crate) flavor: F,
}

/// Every command of the case starts through the session (`bwrap …` or `openshell sandbox exec …`).
struct SessionCommands(Arc<Session>);

fn backend_name(session: &Session) -> String {
    format!("{:?}", session.policy().backend).to_lowercase()
}

impl CommandFactory for SessionCommands {
    fn label(&self) -> String {
        backend_name(&self.0)
    }

    fn command(&self, spec: &CommandSpec) -> Result<tokio::process::Command, CommandError> {
        let opts = ExecOptions {
            workdir: spec.workdir.clone(),
            env: spec.env.iter().cloned().collect(),
            timeout: None,
        };
        Ok(self.0.command(&spec.argv, &opts)?)
    }
}

impl<F: SessionFlavor> CaseEnvironment for SessionEnvironment<F> {
    fn backend(&self) -> String {
        backend_name(&self.session)
    }
    fn take_programs(&self) -> crate::sandbox::watch_exec::CommandLog {
        self.session.take_commands()
    }
    fn watch_fault(&self) -> Option<String> {
        self.session.watch_fault()
    }
    fn factory(&self) -> Arc<dyn CommandFactory> {
        Arc::new(SessionCommands(self.session.clone()))
    }
    fn workdir(&self) -> String {
        self.session.policy().workdir.clone()
    }
    fn home(&self) -> String {
        bwrap::HOME_INSIDE.to_string()
    }
    fn home_host(&self) -> PathBuf {
        self.session.home_dir().to_path_buf()
    }
    fn serve_link(&self) -> ServeLink {
        self.flavor.serve_link(&self.session)
    }
    fn config_dir_host(&self) -> PathBuf {
        self.session.config_dir().to_path_buf()
    }
    fn config_dir(&self) -> String {
        bwrap::CONFIG_INSIDE.to_string()
    }
    fn map_path(&self, host: &Path) -> String {
        self.flavor.map_path(host)
    }
    fn mcp_command(&self, server: &ResolvedMcp) -> Option<Vec<String>> {
        self.flavor.mcp_command(server)
    }
    fn final_workspace(&self) -> Option<PathBuf> {
        Some(self.session.workspace_dir().to_path_buf())
    }
    /// Copied: the sandboxed agent's files may belong to another user, its processes live until
    /// the session's delete, and a kept session keeps its workspace.
    fn keep_final_workspace_by(&self) -> KeepBy {
        KeepBy::Copy
    }
    fn denials(&self) -> Vec<EgressDenial> {
        self.flavor.denials(&self.session)
    }
    fn scratch_dirs(&self) -> Vec<(String, PathBuf)> {
        self.flavor.scratch_dirs(&self.session)
    }
    fn push_prepared(&self) -> BoxFuture<'_, Result<(), TransferError>> {
        self.flavor.push_prepared(&self.session)
    }
    fn pull_results(&self) -> BoxFuture<'_, Result<(), TransferError>> {
        self.flavor.pull_results(&self.session)
    }
    fn fetch<'a>(&'a self, inside: &'a str, local: &'a Path) -> BoxFuture<'a, Result<(), TransferError>> {
        Box::pin(async move {
            self.session
                .download(inside, local)
                .await
                .map_err(|source| TransferError::Sandbox {
                    doing: "downloading",
                    inside: inside.to_string(),
                    source,
                })
        })
    }
    fn close(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            let this = *self;
            this.flavor.before_delete(&this.session).await;
            let backend = backend_name(&this.session);
            match Arc::try_unwrap(this.session) {
                Ok(session) => {
                    if let Err(e) = session.delete().await {
                        tracing::warn!("{backend} sandbox session delete failed: {e}");
                    }
                }
                Err(_) => {
                    tracing::warn!(
                        "{backend} sandbox session still in use at close; it ends when its last user drops it"
                    )
                }
            }
        })
    }
}
