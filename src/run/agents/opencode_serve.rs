//! The `opencode serve` process of OpenCode's warm mode (`opencode_warm`): spawned in its own
//! process group, its last output lines kept for error messages, and probed until it answers.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

use crate::run::agents::runner::RunnerError;
use crate::run::environment::spawn::kill_group;

/// Lines of the server's output kept for error messages.
const KEPT_LINES: usize = 20;

/// A started `opencode serve`.
pub(crate) struct ServeProcess {
    child: tokio::process::Child,
    pgid: Option<i32>,
    output: Arc<Mutex<Vec<String>>>,
}

impl ServeProcess {
    /// Spawns `cmd` (the server's command in the case's environment) as a process group of its
    /// own, keeping its last output lines.
    pub(crate) fn spawn(mut cmd: tokio::process::Command) -> Result<Self, RunnerError> {
        cmd.process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .map_err(|e| RunnerError::Start(format!("opencode serve: {e}")))?;
        let output = Arc::new(Mutex::new(Vec::new()));
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        ]
        .into_iter()
        .flatten()
        {
            tokio::spawn(keep_last_lines(stream, output.clone()));
        }
        let pgid = child.id().map(|p| p as i32);
        Ok(ServeProcess { child, pgid, output })
    }

    /// How the server ended, once it has.
    pub(crate) fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Its last output lines, joined.
    pub(crate) fn output(&self) -> String {
        self.output.lock().map(|l| l.join(" | ")).unwrap_or_default()
    }

    /// Signals its process group and waits (up to 5 s) for it to end.
    pub(crate) async fn stop_and_wait(&mut self) {
        kill_group(self.pgid);
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
    }

    /// Kills its process group and the server, without waiting.
    pub(crate) fn kill(mut self) {
        kill_group(self.pgid);
        let _ = self.child.start_kill();
    }
}

/// A loopback port nothing listens on now (inside a sandbox every port is free; with
/// `backend: local` two cases must not pick the same one).
pub(crate) fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// How the host reaches the server to check that it answers.
pub(crate) enum Probe {
    /// Through the bridge's unix socket in the case's HOME.
    Unix(PathBuf),
    /// On the host's loopback.
    Tcp(u16),
}

impl Probe {
    /// Whether an HTTP request through this way gets an HTTP answer.
    pub(crate) fn answers(self) -> bool {
        let request = b"GET /config HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
        let timeout = Some(Duration::from_secs(2));
        let mut head = [0u8; 5];
        match self {
            Probe::Unix(path) => std::os::unix::net::UnixStream::connect(path).is_ok_and(|mut s| {
                s.set_read_timeout(timeout).is_ok()
                    && s.write_all(request).is_ok()
                    && s.read_exact(&mut head).is_ok()
                    && &head == b"HTTP/"
            }),
            Probe::Tcp(port) => std::net::TcpStream::connect(("127.0.0.1", port)).is_ok_and(|mut s| {
                s.set_read_timeout(timeout).is_ok()
                    && s.write_all(request).is_ok()
                    && s.read_exact(&mut head).is_ok()
                    && &head == b"HTTP/"
            }),
        }
    }
}

async fn keep_last_lines(stream: Box<dyn tokio::io::AsyncRead + Send + Unpin>, kept: Arc<Mutex<Vec<String>>>) {
    let mut lines = tokio::io::BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if line.trim().is_empty() {
            continue;
        }
        if let Ok(mut k) = kept.lock() {
            if k.len() == KEPT_LINES {
                k.remove(0);
            }
            k.push(line.chars().take(300).collect());
        }
    }
}
