//! Case environments in an OpenShell sandbox: one sandbox per case, created from
//! `sandbox.image` with the generated policy, the workspace copy uploaded at creation and the
//! job's staged inputs uploaded below [`openshell::INPUTS_INSIDE`]; every command goes through
//! `openshell sandbox exec`.
//!
//! The sandbox sees none of the host's paths, so the host keeps mirrors: the session's HOME
//! and config folder are prepared on the host (login entries, generated opencode.json) and
//! uploaded before the agent starts ([`CaseEnvironment::push_prepared`]); the workspace and
//! HOME are downloaded back over their host mirrors after setup and after the conversation
//! ([`CaseEnvironment::pull_results`]), so the observed facts read them like any backend's.
//! The agent CLI comes from the image (never uploaded); MCP server runtimes must be in the
//! image at their real host paths. There is no bridge: OpenShell's own proxy carries egress,
//! and warm mode's server is seen from the host through `openshell forward`.

use futures::future::BoxFuture;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::run::environment::case_environment::{
    CaseEnvironment, EgressDenial, EnvironmentError, EnvironmentFactory, ServeLink, TransferError,
};
use crate::run::environment::session_env::{SessionEnvironment, SessionFlavor};
use crate::sandbox::{ExecOptions, Role, Sandbox, SandboxPolicy, Session, bwrap, openshell};
use crate::spec::resolved::ResolvedMcp;

/// Opens the OpenShell backend (its gateway must answer) and creates one sandbox per case.
pub(crate) struct OpenShellEnvironmentFactory {
    sandbox: Sandbox,
    /// The agent host's binary on the host; the image carries a program of the same name.
    agent_bins: Vec<PathBuf>,
}

impl OpenShellEnvironmentFactory {
    pub(crate) async fn open(
        policy: SandboxPolicy,
        log_dir: PathBuf,
        agent_bins: Vec<PathBuf>,
    ) -> Result<Self, crate::sandbox::SandboxError> {
        let sandbox = Sandbox::open(policy, log_dir).await?;
        Ok(OpenShellEnvironmentFactory { sandbox, agent_bins })
    }
}

impl EnvironmentFactory for OpenShellEnvironmentFactory {
    fn create<'a>(&'a self, _case_id: &'a str) -> BoxFuture<'a, Result<Box<dyn CaseEnvironment>, EnvironmentError>> {
        Box::pin(async move {
            let session = self.sandbox.session(Role::Agent).await?;
            // OpenCode's TMPDIR is `$HOME/tmp`; the HOME mirror is uploaded as it is.
            std::fs::create_dir_all(session.home_dir().join("tmp")).map_err(|source| EnvironmentError::Folder {
                what: "session HOME",
                source,
            })?;
            let staged = session
                .policy()
                .staged
                .iter()
                .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
                .collect();
            Ok(Box::new(SessionEnvironment {
                session: Arc::new(session),
                flavor: Remote {
                    agent_bins: self.agent_bins.clone(),
                    staged,
                    denials: Mutex::new(Vec::new()),
                    pulls: Mutex::new(0),
                },
            }) as Box<dyn CaseEnvironment>)
        })
    }
}

/// OpenShell's flavor: the sandbox sees none of the host's paths, so the host's mirrors are
/// uploaded and downloaded, and denials come from OpenShell's own log.
struct Remote {
    agent_bins: Vec<PathBuf>,
    /// Canonical host paths of the staged inputs.
    staged: Vec<PathBuf>,
    denials: Mutex<Vec<EgressDenial>>,
    pulls: Mutex<u32>,
}

impl Remote {
    /// Downloads `inside` and puts it in place of the host folder `mirror`.
    async fn pull(&self, session: &Session, inside: &str, mirror: &Path, n: u32) -> Result<(), TransferError> {
        let fresh = session.dir().join(format!("pull-{n}"));
        let target = fresh.join(mirror.file_name().unwrap_or_default());
        let host = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TransferError::HostFile { path, source }
        };
        std::fs::create_dir_all(&fresh).map_err(host(&fresh))?;
        session
            .download(inside, &target)
            .await
            .map_err(|source| TransferError::Sandbox {
                doing: "downloading",
                inside: inside.to_string(),
                source,
            })?;
        std::fs::remove_dir_all(mirror).map_err(host(mirror))?;
        std::fs::rename(&target, mirror).map_err(host(mirror))?;
        let _ = std::fs::remove_dir_all(&fresh);
        Ok(())
    }
}

impl SessionFlavor for Remote {
    /// Warm mode: `opencode serve` and each turn's `run --attach` are both `sandbox exec`s of
    /// this one sandbox, so they share its loopback; the host sees the server answer through
    /// `openshell forward`. Only when asked for (`warm_by_default` is false here).
    fn serve_link(&self, session: &Session) -> ServeLink {
        match session.forward_argvs() {
            Some((start, stop)) => ServeLink::Forwarded { start, stop },
            None => ServeLink::Unavailable("the `openshell` CLI was not found".into()),
        }
    }
    fn map_path(&self, host: &Path) -> String {
        let real = host.canonicalize().unwrap_or_else(|_| host.to_path_buf());
        // The agent CLI is the image's own program of the same name, never the host's.
        if self.agent_bins.iter().any(|b| b == host || b == &real)
            && let Some(name) = host.file_name()
        {
            return name.to_string_lossy().into_owned();
        }
        if self.staged.iter().any(|s| real.starts_with(s)) {
            return openshell::input_inside(&real);
        }
        // A runtime (an MCP server's package): the image carries it at its real path.
        real.to_string_lossy().into_owned()
    }
    /// Stdio MCP servers run inside the agent's sandbox here (no relay on OpenShell).
    fn mcp_command(&self, _server: &ResolvedMcp) -> Option<Vec<String>> {
        None
    }
    fn denials(&self, _session: &Session) -> Vec<EgressDenial> {
        self.denials.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
    fn scratch_dirs(&self, session: &Session) -> Vec<(String, PathBuf)> {
        vec![("HOME".into(), session.home_dir().to_path_buf())]
    }
    fn push_prepared<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, Result<(), TransferError>> {
        Box::pin(async move {
            for (host, inside) in [
                (session.home_dir(), bwrap::HOME_INSIDE),
                (session.config_dir(), bwrap::CONFIG_INSIDE),
            ] {
                session
                    .upload(host, inside)
                    .await
                    .map_err(|source| TransferError::Sandbox {
                        doing: "uploading",
                        inside: inside.to_string(),
                        source,
                    })?;
            }
            Ok(())
        })
    }
    fn pull_results<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, Result<(), TransferError>> {
        Box::pin(async move {
            let n = {
                let mut p = self.pulls.lock().unwrap_or_else(|e| e.into_inner());
                *p += 1;
                *p
            };
            let workdir = session.policy().workdir.clone();
            self.pull(session, &workdir, session.workspace_dir(), n).await?;
            // HOME only once the agent has run: before that the host mirror is the newer one
            // (the login entries and OpenCode's lock file are seeded there, then uploaded).
            if n > 1 {
                self.pull(session, bwrap::HOME_INSIDE, session.home_dir(), n).await?;
            }
            // OpenShell's own log (its proxy's decisions) goes into the session's log.
            let logs = session.logs().await.map_err(|source| TransferError::Sandbox {
                doing: "reading the log of",
                inside: "the sandbox".into(),
                source,
            })?;
            *self.denials.lock().unwrap_or_else(|e| e.into_inner()) = parse_denials(&logs);
            Ok(())
        })
    }
    /// A kept sandbox stays for debugging, without the staged login.
    fn before_delete<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if !session.policy().keep {
                return;
            }
            let auth = format!(
                "{}/{}/auth.json",
                bwrap::HOME_INSIDE,
                crate::providers::auth_file::DATA_DIR_IN_HOME
            );
            let rm = ["rm".to_string(), "-f".to_string(), auth];
            if let Err(e) = session.exec(&rm, &ExecOptions::default(), None).await {
                tracing::warn!("removing the login file from the kept openshell sandbox failed: {e}");
            }
        })
    }
}

/// `DENY CONNECT host:port` lines of OpenShell's proxy log, once each.
pub(crate) fn parse_denials(logs: &str) -> Vec<EgressDenial> {
    let mut out: Vec<EgressDenial> = Vec::new();
    for line in logs.lines() {
        let Some(rest) = line.split("DENY CONNECT ").nth(1) else {
            continue;
        };
        let target = rest.split_whitespace().next().unwrap_or("");
        let Some((host, port)) = target.rsplit_once(':') else {
            continue;
        };
        let Ok(port) = port.parse::<u16>() else {
            continue;
        };
        let at = line
            .split_whitespace()
            .next()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&chrono::Utc))
            .unwrap_or_else(chrono::Utc::now);
        if !out.iter().any(|d| d.host == host && d.port == port && d.at == at) {
            out.push(EgressDenial {
                host: host.to_string(),
                port,
                at,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denials_come_from_the_proxy_lines() {
        // The FAKE fixture (hand-written in the documented shape) plus a repeat and a bad line.
        let fixture = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openshell/logs.fake.txt"),
        )
        .unwrap();
        let last = fixture.lines().last().unwrap().to_string();
        let logs = format!("{fixture}{last}\nproxy: DENY CONNECT broken\n");
        let d = parse_denials(&logs);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!((d[0].host.as_str(), d[0].port), ("example.org", 443));
    }
}
