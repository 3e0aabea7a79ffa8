//! Starting a stdio MCP server: its stdout filtered to protocol lines, its stderr drained to a
//! log file without ever blocking, and its whole process group killed on drop.
//!
//! Nothing here may wait on the child without a bound, and no secret value is written to the
//! log: values the server received through its environment are redacted line by line.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{Child, ChildStdin};
use tokio::task::JoinHandle;

use super::launcher::{LaunchError, LaunchSpec, Launcher};

/// Bytes of server stderr kept in the log file; the rest is drained and counted, not stored.
const LOG_CAP: u64 = 8 << 20;
/// Lines of stderr and of stray stdout kept in memory for error messages.
const TAIL_LINES: usize = 6;
/// Longest line kept in an error message.
const SAMPLE_CHARS: usize = 200;

/// What went wrong around a stdio server, collected for error messages.
#[derive(Debug, Default)]
struct DiagState {
    stderr_tail: VecDeque<String>,
    stderr_bytes: u64,
    non_json_lines: usize,
    first_non_json: Option<String>,
    /// The first stderr line that states an error: a stack trace pushes it out of the tail,
    /// and it is usually the reason (`Error: Cannot find module …`).
    first_error: Option<String>,
}

/// A stderr line that states an error rather than a frame of a stack trace.
fn states_an_error(line: &str) -> bool {
    let t = line.trim_start();
    !t.starts_with("at ")
        && !t.starts_with("File \"")
        && [
            "Error",
            "error:",
            "panicked",
            "fatal",
            "No such file",
            "not found",
            "ENOENT",
            "EACCES",
        ]
        .iter()
        .any(|w| t.contains(w))
}

/// A running stdio server: the transport halves for rmcp plus everything needed to explain a
/// failure and to kill it.
pub(crate) struct StdioChild {
    child: Child,
    pgid: Option<i32>,
    diag: Arc<Mutex<DiagState>>,
    stderr_task: Option<JoinHandle<()>>,
    redact: Arc<Vec<String>>,
    /// Where the whole stderr goes, named in error messages (they keep only its last lines).
    stderr_log: Option<PathBuf>,
}

/// Starts `spec` through `launcher`; returns the child and the (reader, writer) pair rmcp
/// speaks over.
pub(crate) fn spawn(
    launcher: &dyn Launcher,
    spec: &LaunchSpec,
    stderr_log: Option<PathBuf>,
) -> Result<(StdioChild, DuplexStream, ChildStdin), SpawnError> {
    let mut cmd = launcher.prepare(spec)?;
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let program = spec.argv.first().cloned().unwrap_or_default();
    let mut child = cmd.spawn().map_err(|source| SpawnError::Spawn { program, source })?;
    let pgid = child.id().and_then(|p| i32::try_from(p).ok());
    let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(SpawnError::Pipes);
    };
    let diag = Arc::new(Mutex::new(DiagState::default()));
    // Env values may be secrets; keep them out of logs and messages.
    let redact: Arc<Vec<String>> = Arc::new(spec.env.values().filter(|v| v.len() >= 4).cloned().collect());

    let (to_rmcp, from_filter) = tokio::io::duplex(1 << 16);
    tokio::spawn(filter_stdout(stdout, to_rmcp, diag.clone(), redact.clone()));
    let stderr_task = tokio::spawn(drain_stderr(stderr, stderr_log.clone(), diag.clone(), redact.clone()));
    Ok((
        StdioChild {
            child,
            pgid,
            diag,
            stderr_task: Some(stderr_task),
            redact,
            stderr_log,
        },
        from_filter,
        stdin,
    ))
}

/// Why a stdio server could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error("cannot start `{program}`: {source}")]
    Spawn { program: String, source: std::io::Error },
    #[error("the child's standard streams could not be piped")]
    Pipes,
}

impl StdioChild {
    /// A short explanation of the child's state for an error message: exit status, stray
    /// stdout, last stderr lines. Waits briefly so a child that is exiting is seen as exited.
    pub(crate) async fn explain(&mut self) -> String {
        let status = tokio::time::timeout(Duration::from_millis(300), self.child.wait()).await;
        // Once the child has exited its stderr ends, so the drain finishes as soon as it has
        // read the last lines; a loaded machine can take longer than 300 ms for that (the
        // message then lacked the server's own reason). Only a grandchild still holding the
        // pipe makes the longer bound count.
        let drain_within = match status {
            Ok(Ok(_)) => Duration::from_secs(3),
            _ => Duration::from_millis(300),
        };
        if let Some(task) = self.stderr_task.as_mut() {
            let _ = tokio::time::timeout(drain_within, task).await;
            self.stderr_task = None;
        }
        let mut parts = Vec::new();
        match status {
            Ok(Ok(s)) => parts.push(format!("the process exited ({s})")),
            Ok(Err(e)) => parts.push(format!("its exit status is unknown ({e})")),
            Err(_) => parts.push("the process was still running (it is killed with its process group)".to_string()),
        }
        let d = self.diag.lock().unwrap_or_else(|p| p.into_inner());
        if d.non_json_lines > 0 {
            parts.push(format!(
                "it wrote {} non-JSON line{} on stdout, where only MCP messages belong (first: {:?})",
                d.non_json_lines,
                if d.non_json_lines == 1 { "" } else { "s" },
                d.first_non_json.as_deref().unwrap_or("")
            ));
        }
        if let Some(first) = d.first_error.as_ref().filter(|f| !d.stderr_tail.contains(f)) {
            parts.push(format!("first error on stderr: {first}"));
        }
        if !d.stderr_tail.is_empty() {
            let tail: Vec<&str> = d.stderr_tail.iter().map(String::as_str).collect();
            parts.push(format!("last stderr: {}", tail.join(" | ")));
        }
        if let Some(log) = self.stderr_log.as_ref().filter(|_| d.stderr_bytes > 0) {
            parts.push(format!("its whole stderr is in {}", log.display()));
        }
        redact(&parts.join("; "), &self.redact)
    }

    /// Kills the process group, then gives the stderr drain up to `within` to finish the log.
    pub(crate) async fn finish(&mut self, within: Duration) {
        self.kill();
        if let Some(task) = self.stderr_task.as_mut() {
            let _ = tokio::time::timeout(within, task).await;
            self.stderr_task = None;
        }
    }

    /// Kills the whole process group now.
    pub(crate) fn kill(&mut self) {
        kill_group(self.pgid);
        let _ = self.child.start_kill();
    }
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Sends SIGKILL to the process group `pgid` (the child was made its leader).
fn kill_group(pgid: Option<i32>) {
    #[cfg(unix)]
    if let Some(pg) = pgid.filter(|p| *p > 0) {
        // SAFETY: killpg only sends a signal; an already empty group yields ESRCH, ignored.
        unsafe {
            libc::killpg(pg, libc::SIGKILL);
        }
    }
}

/// Replaces every secret value in `text` with `***`.
fn redact(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for s in secrets {
        out = out.replace(s.as_str(), "***");
    }
    out
}

fn sample(line: &str) -> String {
    let t = line.trim_end();
    if t.chars().count() > SAMPLE_CHARS {
        format!("{}…", t.chars().take(SAMPLE_CHARS).collect::<String>())
    } else {
        t.to_string()
    }
}

/// Forwards JSON lines from the server's stdout to rmcp and counts everything else, so a
/// server printing banners on stdout is diagnosed instead of silently ignored.
async fn filter_stdout(
    stdout: tokio::process::ChildStdout,
    mut to_rmcp: DuplexStream,
    diag: Arc<Mutex<DiagState>>,
    secrets: Arc<Vec<String>>,
) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        if serde_json::from_slice::<serde::de::IgnoredAny>(trimmed).is_ok() {
            if to_rmcp.write_all(trimmed).await.is_err() || to_rmcp.write_all(b"\n").await.is_err() {
                break;
            }
        } else {
            let mut d = diag.lock().unwrap_or_else(|p| p.into_inner());
            d.non_json_lines += 1;
            if d.first_non_json.is_none() {
                d.first_non_json = Some(redact(&sample(&String::from_utf8_lossy(trimmed)), &secrets));
            }
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Reads stderr continuously (the server can never block on a full pipe), writes up to
/// `LOG_CAP` bytes to the log and keeps the last lines for error messages.
async fn drain_stderr(
    mut stderr: tokio::process::ChildStderr,
    log: Option<PathBuf>,
    diag: Arc<Mutex<DiagState>>,
    secrets: Arc<Vec<String>>,
) {
    let mut file = match log {
        Some(path) => {
            if let Some(dir) = path.parent() {
                let _ = tokio::fs::create_dir_all(dir).await;
            }
            tokio::fs::File::create(&path).await.ok()
        }
        None => None,
    };
    let mut written: u64 = 0;
    let mut buf = vec![0u8; 1 << 16];
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let n = match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        partial.extend_from_slice(&buf[..n]);
        // Cut into lines; an over-long line without a newline is flushed as it is.
        let cut = match partial.iter().rposition(|b| *b == b'\n') {
            Some(i) => i + 1,
            None if partial.len() > (1 << 16) => partial.len(),
            None => continue,
        };
        let chunk: Vec<u8> = partial.drain(..cut).collect();
        let text = redact(&String::from_utf8_lossy(&chunk), &secrets);
        {
            let mut d = diag.lock().unwrap_or_else(|p| p.into_inner());
            d.stderr_bytes += chunk.len() as u64;
            for l in text.lines().filter(|l| !l.trim().is_empty()) {
                if d.first_error.is_none() && states_an_error(l) {
                    d.first_error = Some(sample(l));
                }
                if d.stderr_tail.len() == TAIL_LINES {
                    d.stderr_tail.pop_front();
                }
                d.stderr_tail.push_back(sample(l));
            }
        }
        if let Some(f) = file.as_mut()
            && written < LOG_CAP
        {
            let take = ((LOG_CAP - written) as usize).min(text.len());
            if f.write_all(&text.as_bytes()[..take]).await.is_err() {
                // A log that cannot be written must not stop the drain.
                file = None;
                continue;
            }
            written += take as u64;
            if written >= LOG_CAP {
                let _ = f
                    .write_all(b"\n[ghostlab: log truncated; further stderr drained and discarded]\n")
                    .await;
            }
        }
    }
    if !partial.is_empty() {
        let text = redact(&String::from_utf8_lossy(&partial), &secrets);
        if let Some(l) = text.lines().last() {
            let mut d = diag.lock().unwrap_or_else(|p| p.into_inner());
            d.stderr_tail.push_back(sample(l));
        }
        if let Some(f) = file.as_mut()
            && written < LOG_CAP
        {
            let _ = f.write_all(text.as_bytes()).await;
        }
    }
    if let Some(f) = file.as_mut() {
        let _ = f.flush().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_every_secret_value() {
        assert_eq!(redact("token=abcd1234 ok", &["abcd1234".into()]), "token=*** ok");
    }

    #[test]
    fn error_lines_are_told_from_stack_frames() {
        for line in [
            "Error: Cannot find module '/tmp/tools/npm/x.js'",
            "ModuleNotFoundError: No module named 'mcp'",
            "thread 'main' panicked at src/main.rs:3:5:",
            "sh: 1: nodee: not found",
        ] {
            assert!(states_an_error(line), "{line}");
        }
        for line in [
            "    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
            "  File \"server.py\", line 3, in <module>",
            "listening on stdio",
        ] {
            assert!(!states_an_error(line), "{line}");
        }
    }

    #[test]
    fn samples_are_bounded() {
        let long = "x".repeat(1000);
        assert!(sample(&long).chars().count() <= SAMPLE_CHARS + 1);
    }
}
