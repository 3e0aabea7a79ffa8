//! Starting runner processes: a `CommandFactory` decides *where* a command runs (a sandbox
//! session, or the host for `backend: local`), and `run_bounded` runs it with a deadline,
//! bounded output capture and a kill of its whole process group.

use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt};

/// How to run a command: env values go only into the child's environment, never argv.
#[derive(Debug, Clone, Default)]
pub struct CommandSpec {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub workdir: Option<String>,
}

/// Why a command could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("empty command")]
    Empty,
    /// The sandbox session could not build it (deleted, bad argument, …).
    #[error(transparent)]
    Sandbox(#[from] crate::sandbox::SandboxError),
}

/// Turns a `CommandSpec` into a prepared (not spawned) command inside some boundary.
pub trait CommandFactory: Send + Sync {
    /// A label for logs (`bubblewrap`, `local`).
    fn label(&self) -> String;
    /// Prepares the command. Implementations must not inherit the parent's environment.
    fn command(&self, spec: &CommandSpec) -> Result<tokio::process::Command, CommandError>;
}

/// Runs commands directly on the host with a cleared environment. Used by `backend: local`
/// (explicit only) and by tests of the runners themselves.
pub(crate) struct HostCommandFactory;

impl CommandFactory for HostCommandFactory {
    fn label(&self) -> String {
        "local (no isolation)".into()
    }

    fn command(&self, spec: &CommandSpec) -> Result<tokio::process::Command, CommandError> {
        if spec.argv.is_empty() {
            return Err(CommandError::Empty);
        }
        let mut cmd = tokio::process::Command::new(&spec.argv[0]);
        cmd.args(&spec.argv[1..]).env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            cmd.env("PATH", path);
        }
        cmd.envs(spec.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &spec.workdir {
            cmd.current_dir(dir);
        }
        Ok(cmd)
    }
}

/// What a bounded run produced.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Finished {
    /// Exit code; `None` when killed by a signal (including our timeout).
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) timed_out: bool,
    pub(crate) elapsed: Duration,
}

/// Most output kept per stream; the rest is drained and dropped so the child never blocks.
pub(crate) const OUTPUT_LIMIT: usize = 16 << 20;

/// Spawns `cmd` in its own process group with stdin from `input` (or /dev/null), captures
/// bounded stdout/stderr, and kills the whole group when `timeout` passes.
pub(crate) async fn run_bounded(
    mut cmd: tokio::process::Command,
    input: Option<Vec<u8>>,
    timeout: Duration,
) -> std::io::Result<Finished> {
    cmd.process_group(0)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let started = Instant::now();
    let mut child = cmd.spawn()?;
    let pgid = child.id().map(|p| p as i32);
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = stdin.write_all(&bytes).await;
        });
    }
    let out = tokio::spawn(read_bounded(child.stdout.take().expect("piped")));
    let err = tokio::spawn(read_bounded(child.stderr.take().expect("piped")));
    let (code, timed_out) = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => (status?.code(), false),
        Err(_) => {
            kill_group(pgid);
            let _ = child.wait().await;
            (None, true)
        }
    };
    // The group may have left children holding the pipes open; kill them so reads finish.
    kill_group(pgid);
    let stdout = out.await.unwrap_or_default();
    let stderr = err.await.unwrap_or_default();
    Ok(Finished {
        code,
        stdout,
        stderr,
        timed_out,
        elapsed: started.elapsed(),
    })
}

/// SIGKILLs a process group, ignoring one that is already gone.
pub(crate) fn kill_group(pgid: Option<i32>) {
    if let Some(pg) = pgid.filter(|p| *p > 1) {
        // SAFETY: killpg only sends a signal; a stale id fails with ESRCH, which we ignore.
        unsafe {
            libc::killpg(pg, libc::SIGKILL);
        }
    }
}

async fn read_bounded(mut r: impl AsyncRead + Unpin) -> String {
    let mut kept = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = OUTPUT_LIMIT.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> tokio::process::Command {
        HostCommandFactory
            .command(&CommandSpec {
                argv: vec!["sh".into(), "-c".into(), script.into()],
                ..Default::default()
            })
            .unwrap()
    }

    #[test]
    fn an_empty_command_is_its_own_error() {
        let err = HostCommandFactory.command(&CommandSpec::default()).unwrap_err();
        assert!(matches!(err, CommandError::Empty), "{err:?}");
        assert_eq!(err.to_string(), "empty command");
    }

    #[test]
    fn a_sandbox_refusal_keeps_the_sandbox_error() {
        // What a deleted session answers; callers can still tell it apart from a bad argv.
        let err = CommandError::from(crate::sandbox::SandboxError::Deleted);
        assert_eq!(err.to_string(), crate::sandbox::SandboxError::Deleted.to_string());
        assert!(matches!(
            err,
            CommandError::Sandbox(crate::sandbox::SandboxError::Deleted)
        ));
    }

    #[tokio::test]
    async fn timeout_kills_the_whole_group() {
        let f = run_bounded(sh("sleep 30 & sleep 30; echo never"), None, Duration::from_millis(300))
            .await
            .unwrap();
        assert!(f.timed_out);
        assert!(f.elapsed < Duration::from_secs(5));
        assert!(!f.stdout.contains("never"));
    }

    #[tokio::test]
    async fn floods_on_stderr_do_not_block() {
        let f = run_bounded(
            sh("head -c 20000000 /dev/zero >&2; echo done"),
            None,
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        assert_eq!(f.code, Some(0));
        assert_eq!(f.stdout.trim(), "done");
        assert_eq!(f.stderr.len(), OUTPUT_LIMIT);
    }

    #[tokio::test]
    async fn host_factory_does_not_leak_the_parent_environment() {
        // SAFETY: test-local variable, read only by the child below.
        unsafe { std::env::set_var("GHOSTLAB_TEST_CANARY", "leak") };
        let f = run_bounded(sh("env"), None, Duration::from_secs(5)).await.unwrap();
        assert!(!f.stdout.contains("GHOSTLAB_TEST_CANARY"));
    }
}
