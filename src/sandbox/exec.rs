//! Running one prepared command to completion: piped stdin, captured output, a wall-clock
//! timeout that kills the whole process group, and the limit a signal death points to.
//!
//! It never waits without a bound: after a kill, output readers get a short grace period.

use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use super::SandboxError;

/// Largest stdout or stderr kept from one command; the rest is dropped and flagged.
pub(crate) const MAX_OUTPUT: usize = 16 << 20;
/// How long output readers may keep draining after the process tree was killed.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// The result of one command.
#[derive(Debug, Clone)]
pub struct ExecOutput {
    /// Exit code; `128 + signal` when a signal ended it; `-1` when it was killed on timeout.
    pub status: i32,
    /// Captured standard output (at most [`MAX_OUTPUT`] bytes).
    pub stdout: Vec<u8>,
    /// Captured standard error (at most [`MAX_OUTPUT`] bytes).
    pub stderr: Vec<u8>,
    /// The wall-clock limit passed and the tree was killed.
    pub timed_out: bool,
    /// Which resource limit the exit status points to, if any.
    pub limit_hit: Option<&'static str>,
}

impl ExecOutput {
    /// Standard output as lossy UTF-8.
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Standard error as lossy UTF-8.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// The limit an exit status of `128 + signal` points to.
pub fn limit_for_status(status: i32) -> Option<&'static str> {
    match status - 128 {
        libc::SIGXCPU => Some("cpu time (RLIMIT_CPU)"),
        libc::SIGXFSZ => Some("file size (RLIMIT_FSIZE)"),
        _ => None,
    }
}

/// Spawns `cmd` in its own process group, feeds `stdin`, and waits at most `timeout`.
pub(crate) async fn run(
    mut cmd: tokio::process::Command,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
) -> Result<ExecOutput, SandboxError> {
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    let mut child = cmd.spawn().map_err(|e| SandboxError::Spawn(e.to_string()))?;
    let pid = child.id().map(|p| p as i32);
    if let (Some(data), Some(mut pipe)) = (stdin, child.stdin.take()) {
        tokio::spawn(async move {
            // A child that stops reading early is not an error of ours.
            let _ = pipe.write_all(&data).await;
            let _ = pipe.shutdown().await;
        });
    }
    let out = tokio::spawn(read_capped(child.stdout.take()));
    let err = tokio::spawn(read_capped(child.stderr.take()));
    let (status, timed_out) = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(s) => (s.map_err(|e| SandboxError::Spawn(e.to_string()))?, false),
        Err(_) => {
            if let Some(pid) = pid {
                // SAFETY: kill(2) on the process group we created for this child.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
            let _ = child.start_kill();
            (
                child.wait().await.map_err(|e| SandboxError::Spawn(e.to_string()))?,
                true,
            )
        }
    };
    let stdout = tokio::time::timeout(DRAIN_GRACE, out)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let stderr = tokio::time::timeout(DRAIN_GRACE, err)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let code = match (status.code(), status.signal()) {
        _ if timed_out => -1,
        (Some(c), _) => c,
        (None, Some(sig)) => 128 + sig,
        (None, None) => -1,
    };
    Ok(ExecOutput {
        status: code,
        stdout,
        stderr,
        timed_out,
        limit_hit: if timed_out {
            Some("wall-clock timeout")
        } else {
            limit_for_status(code)
        },
    })
}

async fn read_capped<R: AsyncRead + Unpin>(pipe: Option<R>) -> Vec<u8> {
    let Some(mut pipe) = pipe else { return Vec::new() };
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return out,
            Ok(n) => {
                // Keep reading past the cap so the child never blocks on a full pipe.
                let room = MAX_OUTPUT.saturating_sub(out.len());
                out.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
}
