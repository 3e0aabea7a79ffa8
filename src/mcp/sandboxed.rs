//! Starting stdio MCP servers inside a sandbox session, so untrusted server code never runs
//! on the host during discovery. The session decides the boundary, narrowed to what listing a
//! server's tools needs ([`discovery_scope`]); this only adapts it.

use std::path::PathBuf;
use std::sync::Arc;
use tokio::process::Command;

use super::launcher::{LaunchError, LaunchSpec, Launcher, own_process_group};
use crate::sandbox::inputs::resolve_program;
use crate::sandbox::scope::Widens;
use crate::sandbox::{Area, Capability, ExecOptions, HostPort, Scope, Session};
use crate::spec::SandboxBackend;

/// What a server may use while Ghostlab lists its tools: its command's runtimes and inputs
/// (read-only, as in the session), the workspace copy and uploads read-only, its own HOME and
/// TMPDIR (package managers cache there), only the hosts `sandbox.allow` declares — not the
/// remote MCP hosts, which discovery reaches from the host itself — and no credentials (a
/// server gets its own declared `environment`), no agent config, no other server's socket.
pub(crate) fn discovery_scope(session: Scope, declared_hosts: &[HostPort]) -> Scope {
    session
        .read_only(Area::Workspace)
        .read_only(Area::Uploads)
        .without(Capability::Credentials)
        .without(Capability::AgentConfig)
        .without(Capability::McpRelay)
        .allow_only(declared_hosts)
}

/// The paths a server's own command names: its absolute arguments (its script, a config file),
/// its cwd and the program it runs, each as written and as its real path.
fn own_paths(spec: &LaunchSpec) -> Vec<PathBuf> {
    let mut named: Vec<PathBuf> = spec
        .argv
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .collect();
    named.extend(spec.cwd.clone());
    named.extend(spec.argv.first().and_then(|c| resolve_program(c)));
    let real: Vec<PathBuf> = named.iter().filter_map(|p| p.canonicalize().ok()).collect();
    named.extend(real);
    named
}

/// `scope` cut to one server: of the job's inputs and runtimes it shows, only those the
/// server's command names, the folders holding them (its script's folder, its package) and
/// what lies under them. The job's other inputs — instructions, skills, assets, other servers'
/// files — are hidden from a server while it is listed.
pub(crate) fn server_scope(scope: Scope, spec: &LaunchSpec) -> Result<Scope, Widens> {
    let own = own_paths(spec);
    let wanted: Vec<PathBuf> = scope
        .paths()
        .map(|(p, _)| p.to_path_buf())
        .filter(|p| own.iter().any(|q| q.starts_with(p) || p.starts_with(q)))
        .collect();
    scope.keep_paths(&wanted)
}

/// Launches every server through one sandbox session, each command seeing only `scope` of it
/// (its workspace copy is their cwd unless the server names another, which must then be
/// visible inside) — and, when `per_server` is set, only its own part of that
/// ([`server_scope`]; bubblewrap draws a view per command, OpenShell cannot).
pub(crate) struct SandboxLauncher {
    session: Arc<Session>,
    scope: Scope,
    per_server: bool,
    label: String,
}

impl SandboxLauncher {
    /// A launcher whose commands see the whole session.
    pub(crate) fn new(session: Arc<Session>) -> Self {
        let scope = session.scope();
        Self::scoped(session, scope)
    }

    /// A launcher whose commands see only `scope` (refused at launch unless it lies within
    /// the session's).
    pub(crate) fn scoped(session: Arc<Session>, scope: Scope) -> Self {
        let label = format!("{:?}", session.policy().backend).to_lowercase();
        SandboxLauncher {
            session,
            scope,
            per_server: false,
            label,
        }
    }

    /// A launcher whose commands each see only their own part of `scope` ([`server_scope`]).
    pub(crate) fn per_server(session: Arc<Session>, scope: Scope) -> Self {
        SandboxLauncher {
            per_server: true,
            ..Self::scoped(session, scope)
        }
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
        let scope = if self.per_server {
            server_scope(self.scope.clone(), spec)?
        } else {
            self.scope.clone()
        };
        let mut cmd = self.session.command_in(&scope, &spec.argv, &opts)?;
        own_process_group(&mut cmd);
        Ok(cmd)
    }
}

/// Why discovery's sandbox could not be opened: the job's policy, its narrowing to the
/// discovery scope, or the backend itself (each names what failed).
#[derive(Debug, thiserror::Error)]
pub(crate) enum DiscoverySandboxError {
    #[error(transparent)]
    Sandbox(#[from] crate::sandbox::SandboxError),
    #[error(transparent)]
    Scope(#[from] crate::sandbox::scope::Widens),
}

/// The launcher a job's discovery uses: a fresh session of the job's sandbox cut to
/// [`discovery_scope`], or the host for an explicit `backend: local`. The session's policy
/// already holds the scope's network and credentials (every backend enforces those); under
/// bubblewrap each server's command also gets the scope's read-only workspace and private
/// folders, and sees only its own inputs of the job ([`server_scope`]), which OpenShell
/// cannot draw per command (there every server sees the discovery session's inputs). Returns
/// the session so the caller
/// deletes it afterwards.
pub(crate) async fn launcher_for_job(
    job: &crate::spec::LoadedJob,
    log_dir: std::path::PathBuf,
) -> Result<(Arc<dyn Launcher>, Option<Arc<Session>>), DiscoverySandboxError> {
    if job.job.sandbox.backend == crate::spec::SandboxBackend::Local {
        return Ok((Arc::new(super::HostLauncher), None));
    }
    let policy = crate::sandbox::SandboxPolicy::from_job(job)?;
    let declared = crate::sandbox::policy::declared_allow_hosts(job);
    let policy = discovery_scope(Scope::of_policy(&policy), &declared).narrow_policy(&policy)?;
    let sandbox = crate::sandbox::Sandbox::open(policy, log_dir).await?;
    let session = Arc::new(sandbox.session(crate::sandbox::Role::Agent).await?);
    let launcher = if session.policy().backend == SandboxBackend::Bubblewrap {
        SandboxLauncher::per_server(session.clone(), discovery_scope(session.scope(), &declared))
    } else {
        SandboxLauncher::new(session.clone())
    };
    Ok((Arc::new(launcher), Some(session)))
}

/// Deletes a discovery session once every client holding it is gone.
pub(crate) async fn close_session(session: Option<Arc<Session>>) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxPolicy;

    /// A session scope showing `staged` inputs and `runtimes` (real temp paths).
    fn session(staged: &[&Path], runtimes: &[&Path]) -> Scope {
        let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        p.staged = staged.iter().map(|x| x.to_path_buf()).collect();
        p.read_only = runtimes.iter().map(|x| x.to_path_buf()).collect();
        Scope::of_policy(&p)
    }

    fn spec(argv: &[&str], cwd: Option<&Path>) -> LaunchSpec {
        LaunchSpec {
            argv: argv.iter().map(|s| s.to_string()).collect(),
            env: Default::default(),
            cwd: cwd.map(Path::to_path_buf),
        }
    }

    fn shown(s: &Scope) -> Vec<PathBuf> {
        s.paths().map(|(p, _)| p.to_path_buf()).collect()
    }

    use std::path::Path;

    #[test]
    fn a_server_keeps_its_script_folder_and_package_and_loses_the_rest() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        for f in ["srv/server.mjs", "other/notes.md", "pkg/node_modules/tool/bin/tool.js"] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "").unwrap();
        }
        let (srv, notes, nm) = (
            root.join("srv"),
            root.join("other/notes.md"),
            root.join("pkg/node_modules"),
        );
        let whole = session(&[&srv, &notes], &[&nm]);
        let script = root.join("srv/server.mjs");
        let own = server_scope(whole.clone(), &spec(&["node", script.to_str().unwrap()], None)).unwrap();
        assert_eq!(shown(&own), vec![srv.clone()], "its script's folder only");
        let tool = root.join("pkg/node_modules/tool/bin/tool.js");
        let packaged = server_scope(whole.clone(), &spec(&["node", tool.to_str().unwrap()], None)).unwrap();
        assert_eq!(shown(&packaged), vec![nm.clone()], "its package's node_modules only");
        // A server that names none of the job's paths (`npx -y pkg`) sees none of them.
        let bare = server_scope(whole.clone(), &spec(&["npx", "-y", "some-server"], None)).unwrap();
        assert!(shown(&bare).is_empty(), "{:?}", shown(&bare));
        // Its cwd counts as its own; a path that only shares a name prefix does not.
        let with_cwd = server_scope(whole.clone(), &spec(&["node", "x.mjs"], Some(&root.join("other")))).unwrap();
        assert_eq!(shown(&with_cwd), vec![notes.clone()]);
        let prefix = root.join("srv-old/server.mjs");
        let near = server_scope(whole, &spec(&["node", prefix.to_str().unwrap()], None)).unwrap();
        assert!(shown(&near).is_empty(), "{:?}", shown(&near));
    }

    #[test]
    fn a_server_scope_never_shows_more_than_its_parent() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("srv")).unwrap();
        let whole = session(&[&root.join("srv")], &[]);
        // Naming a folder above what the session shows keeps only what the session shows.
        let wide = server_scope(whole.clone(), &spec(&["node", "/"], None)).unwrap();
        assert!(wide.is_within(&whole));
        assert_eq!(shown(&wide), vec![root.join("srv")]);
    }
}
