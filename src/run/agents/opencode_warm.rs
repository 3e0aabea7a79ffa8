//! OpenCode's warm mode: one `opencode serve` per case, and every turn a short
//! `opencode run --attach` against it, so the agent host boots once instead of once per turn.
//!
//! Both run through the case's `CommandFactory`, so both are inside the sandbox. In a sandbox
//! every command has its own network namespace: the server's loopback port is exposed on a
//! unix socket in the case's HOME by the bridge program, and each turn's command turns that
//! socket back into a loopback port of its own (see `sandbox::bridge`). The host only checks
//! readiness through the same socket. With `backend: local` all of them share the host's
//! loopback and no bridge is needed.

use futures::future::BoxFuture;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::run::agents::opencode::OpencodeRunner;
use crate::run::agents::opencode_serve::{Probe, ServeProcess, free_port};
use crate::run::agents::runner::{AgentRunner, RunnerError, TurnOutput};
use crate::run::environment::case_environment::ServeLink;
use crate::run::environment::spawn::CommandSpec;

/// The socket's file name in the case's HOME.
const SOCKET_NAME: &str = "opencode-serve.sock";

/// Where the server is reached, fixed when the runner is made.
#[derive(Debug, Clone)]
pub(crate) struct WarmLink {
    pub(crate) link: ServeLink,
    /// The case's HOME as the agent sees it, and on the host.
    pub(crate) home_inside: String,
    pub(crate) home_host: PathBuf,
    /// Longest wait for the server to answer after it starts.
    pub(crate) start_timeout: Duration,
}

pub(crate) struct OpencodeWarmRunner {
    inner: OpencodeRunner,
    link: WarmLink,
    port: u16,
    server: Option<ServeProcess>,
    /// The host's view of the server where the turns reach it inside a remote sandbox.
    forward: Option<crate::run::environment::serve_forward::ForwardGuard>,
}

/// This environment cannot join a kept server and its clients; `why` is the environment's own
/// reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hosts.opencode.mode warm is not possible here: {why}")]
pub(crate) struct WarmUnavailable {
    pub(crate) why: String,
}

impl OpencodeWarmRunner {
    /// Fails at once when this environment cannot join the server and its clients.
    pub(crate) fn new(inner: OpencodeRunner, link: WarmLink) -> Result<Self, WarmUnavailable> {
        if let ServeLink::Unavailable(why) = &link.link {
            return Err(WarmUnavailable { why: why.clone() });
        }
        Ok(OpencodeWarmRunner {
            inner,
            link,
            port: 0,
            server: None,
            forward: None,
        })
    }

    fn socket_inside(&self) -> String {
        format!("{}/{SOCKET_NAME}", self.link.home_inside)
    }

    fn socket_host(&self) -> PathBuf {
        self.link.home_host.join(SOCKET_NAME)
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The server's argv: `opencode serve`, under the bridge that exposes its port.
    pub(crate) fn serve_argv(&self) -> Vec<String> {
        let s = self.inner.setup();
        let serve = [
            s.binary.clone(),
            "serve".into(),
            "--port".into(),
            self.port.to_string(),
            "--hostname".into(),
            "127.0.0.1".into(),
        ];
        self.bridged(
            format!("--expose={}=127.0.0.1:{}", self.socket_inside(), self.port),
            serve.to_vec(),
        )
    }

    /// One turn's argv: `opencode run --attach`, under the bridge that reaches the server.
    pub(crate) fn turn_argv(&self, message: &str) -> Vec<String> {
        let s = self.inner.setup();
        let mut run = vec![
            s.binary.clone(),
            "run".into(),
            "--attach".into(),
            self.url(),
            "--dir".into(),
            s.workdir.clone(),
        ];
        run.extend(self.inner.run_flags(message));
        self.bridged(
            format!("--forward=127.0.0.1:{}={}", self.port, self.socket_inside()),
            run,
        )
    }

    /// A turn's environment: the agent's, plus loopback exempted from the egress proxy (the
    /// server is on this command's own loopback, never the host's).
    fn client_env(&self) -> Vec<(String, String)> {
        let mut env = self.inner.env();
        for key in ["NO_PROXY", "no_proxy"] {
            env.push((key.into(), "127.0.0.1,localhost".into()));
        }
        env
    }

    fn bridged(&self, link_flag: String, argv: Vec<String>) -> Vec<String> {
        match &self.link.link {
            ServeLink::Bridged { exe } => {
                let mut a = vec![exe.clone(), "__egress-bridge".into(), link_flag, "--".into()];
                a.extend(argv);
                a
            }
            _ => argv,
        }
    }

    async fn start(&mut self) -> Result<(), RunnerError> {
        self.port = free_port().map_err(|e| RunnerError::Start(format!("no free port for opencode serve: {e}")))?;
        let _ = std::fs::remove_file(self.socket_host());
        let spec = CommandSpec {
            argv: self.serve_argv(),
            env: self.inner.env(),
            workdir: Some(self.inner.setup().workdir.clone()),
        };
        let cmd = self
            .inner
            .factory()
            .command(&spec)
            .map_err(|e| RunnerError::Start(e.to_string()))?;
        self.server = Some(ServeProcess::spawn(cmd)?);
        self.forward = crate::run::environment::serve_forward::open(&self.link.link, self.port)
            .await
            .map_err(|e| RunnerError::Start(e.to_string()))?;
        self.wait_ready().await
    }

    /// Polls until the server answers HTTP, it exits, or the start timeout passes.
    async fn wait_ready(&mut self) -> Result<(), RunnerError> {
        let deadline = Instant::now() + self.link.start_timeout;
        loop {
            if let Some(err) = self.server_gone() {
                return Err(err);
            }
            let probe = match &self.link.link {
                ServeLink::Bridged { .. } => Probe::Unix(self.socket_host()),
                _ => Probe::Tcp(self.port),
            };
            if tokio::task::spawn_blocking(move || probe.answers())
                .await
                .unwrap_or(false)
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                let detail = self.server_output();
                self.stop();
                return Err(RunnerError::Start(format!(
                    "opencode serve did not answer within {} s: {detail}",
                    self.link.start_timeout.as_secs()
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// An error when the server process has exited.
    fn server_gone(&mut self) -> Option<RunnerError> {
        let server = self.server.as_mut()?;
        let status = server.exited()?;
        let detail = self.server_output();
        self.server = None;
        Some(RunnerError::Crashed {
            code: status.code().unwrap_or(-1),
            detail: format!("opencode serve exited: {detail}"),
        })
    }

    fn server_output(&self) -> String {
        self.server.as_ref().map(ServeProcess::output).unwrap_or_default()
    }

    fn stop(&mut self) {
        self.forward.take();
        if let Some(server) = self.server.take() {
            server.kill();
        }
        let _ = std::fs::remove_file(self.socket_host());
    }
}

impl AgentRunner for OpencodeWarmRunner {
    fn label(&self) -> String {
        "opencode (warm: serve + run --attach)".into()
    }

    fn turn<'a>(&'a mut self, _turn: u32, message: &'a str) -> BoxFuture<'a, Result<TurnOutput, RunnerError>> {
        Box::pin(async move {
            let mut start_ms = 0;
            if self.server.is_none() {
                let started = Instant::now();
                self.start().await?;
                start_ms = started.elapsed().as_millis() as u64;
            }
            let spec = CommandSpec {
                argv: self.turn_argv(message),
                env: self.client_env(),
                workdir: Some(self.inner.setup().workdir.clone()),
            };
            let result = self.inner.run_turn(spec).await;
            // A server that died during the turn explains the turn's failure better.
            if let Some(err) = self.server_gone() {
                return Err(err);
            }
            result.map(|out| TurnOutput { start_ms, ..out })
        })
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(server) = self.server.as_mut() {
                server.stop_and_wait().await;
            }
            self.stop();
        })
    }
}

impl Drop for OpencodeWarmRunner {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::agents::opencode::OpencodeSetup;
    use crate::run::environment::spawn::HostCommandFactory;
    use std::sync::Arc;

    fn runner(link: ServeLink) -> Result<OpencodeWarmRunner, WarmUnavailable> {
        let setup = OpencodeSetup {
            binary: "/opt/opencode".into(),
            config: "/cfg/opencode.json".into(),
            home: "/sandbox/home".into(),
            workdir: "/sandbox/workspace".into(),
            agent: Some("release".into()),
            model: None,
            env: Vec::new(),
            turn_timeout: Duration::from_secs(30),
        };
        let mut r = OpencodeWarmRunner::new(
            OpencodeRunner::new(Arc::new(HostCommandFactory), setup),
            WarmLink {
                link,
                home_inside: "/sandbox/home".into(),
                home_host: PathBuf::from("/tmp/session/home"),
                start_timeout: Duration::from_secs(5),
            },
        )?;
        r.port = 4321;
        Ok(r)
    }

    #[test]
    fn in_a_sandbox_server_and_turns_meet_through_the_bridge_socket() {
        let r = runner(ServeLink::Bridged {
            exe: "/opt/ghostlab".into(),
        })
        .unwrap();
        assert_eq!(
            r.serve_argv().join(" "),
            "/opt/ghostlab __egress-bridge --expose=/sandbox/home/opencode-serve.sock=127.0.0.1:4321 -- \
             /opt/opencode serve --port 4321 --hostname 127.0.0.1"
        );
        let turn = r.turn_argv("hello there").join(" ");
        assert!(
            turn.starts_with(
                "/opt/ghostlab __egress-bridge --forward=127.0.0.1:4321=/sandbox/home/opencode-serve.sock -- \
                 /opt/opencode run --attach http://127.0.0.1:4321 --dir /sandbox/workspace --format json"
            ),
            "{turn}"
        );
        assert!(
            turn.contains("--agent release") && turn.ends_with("hello there"),
            "{turn}"
        );
        let env = r.client_env();
        assert!(env.contains(&("NO_PROXY".into(), "127.0.0.1,localhost".into())));
    }

    #[test]
    fn on_the_host_loopback_no_bridge_is_used() {
        let r = runner(ServeLink::SharedLoopback).unwrap();
        assert_eq!(r.serve_argv()[0], "/opt/opencode");
        assert_eq!(
            r.turn_argv("x")[..4],
            ["/opt/opencode", "run", "--attach", "http://127.0.0.1:4321"]
        );
    }

    #[test]
    fn an_environment_that_cannot_join_them_is_refused_up_front() {
        let err = runner(ServeLink::Unavailable("no bridge".into())).err().unwrap();
        assert_eq!(
            err.to_string(),
            "hosts.opencode.mode warm is not possible here: no bridge"
        );
    }

    #[tokio::test]
    async fn a_server_that_exits_at_once_is_a_crash_with_its_output() {
        let mut r = runner(ServeLink::SharedLoopback).unwrap();
        // `/bin/sh` as the "opencode" binary: `sh serve ...` fails at once, saying why.
        r.inner = OpencodeRunner::new(
            Arc::new(HostCommandFactory),
            OpencodeSetup {
                binary: "/bin/sh".into(),
                workdir: "/".into(),
                ..r.inner.setup().clone()
            },
        );
        let err = r.start().await.unwrap_err();
        match err {
            RunnerError::Crashed { detail, .. } => assert!(detail.contains("opencode serve exited"), "{detail}"),
            other => panic!("{other:?}"),
        }
    }
}
