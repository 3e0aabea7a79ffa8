//! Warm mode's port forward (`ServeLink::Forwarded`, OpenShell): after `opencode serve` starts
//! inside the sandbox, the host opens a forward of its port so it can see the server answer;
//! the forward is stopped when the server is. The turns never use it: they run inside the
//! same sandbox and reach the server on its loopback.

use std::time::Duration;

use crate::run::environment::case_environment::ServeLink;
use crate::sandbox::exec;

/// How long starting a forward may take (the real CLI returns once SSH is up).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// An open forward; dropping it runs the stop command.
#[derive(Debug)]
pub(crate) struct ForwardGuard {
    stop: Vec<String>,
}

fn with_port(argv: &[String], port: u16) -> Vec<String> {
    argv.iter().map(|a| a.replace("{port}", &port.to_string())).collect()
}

/// Why the forward of the server's port could not be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ForwardError {
    #[error("empty forward command")]
    EmptyCommand,
    /// `args` is the command without its program, as the user's forward template wrote it.
    #[error("`{args}` could not run: {source}")]
    NotRun {
        args: String,
        #[source]
        source: crate::sandbox::SandboxError,
    },
    #[error("forwarding the server's port failed ({status}): {stderr}")]
    Failed { status: i32, stderr: String },
}

/// Opens the forward of `port` when `link` needs one; `Ok(None)` when it does not.
pub(crate) async fn open(link: &ServeLink, port: u16) -> Result<Option<ForwardGuard>, ForwardError> {
    let ServeLink::Forwarded { start, stop } = link else {
        return Ok(None);
    };
    let argv = with_port(start, port);
    let (program, args) = argv.split_first().ok_or(ForwardError::EmptyCommand)?;
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args);
    let out = exec::run(cmd, None, START_TIMEOUT)
        .await
        .map_err(|source| ForwardError::NotRun {
            args: argv[1..].join(" "),
            source,
        })?;
    if out.status != 0 {
        return Err(ForwardError::Failed {
            status: out.status,
            stderr: out.stderr_text().trim().to_string(),
        });
    }
    Ok(Some(ForwardGuard {
        stop: with_port(stop, port),
    }))
}

impl Drop for ForwardGuard {
    fn drop(&mut self) {
        if let Some((program, args)) = self.stop.split_first() {
            // Short and bounded by the CLI itself; a failure leaves a forward the sandbox's
            // deletion ends anyway.
            match std::process::Command::new(program)
                .args(args)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
            {
                Ok(s) if s.success() => {}
                other => tracing::warn!("stopping the warm server's port forward: {other:?}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_forward_runs_its_start_and_stop_commands_with_the_port() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("calls");
        let sh = |word: &str| {
            vec![
                "sh".to_string(),
                "-c".to_string(),
                format!("echo {word} $0 >> {}", log.display()),
                "{port}".to_string(),
            ]
        };
        let link = ServeLink::Forwarded {
            start: sh("start"),
            stop: sh("stop"),
        };
        let guard = open(&link, 4321).await.unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "start 4321\n");
        drop(guard);
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "start 4321\nstop 4321\n");
        assert!(open(&ServeLink::SharedLoopback, 1).await.unwrap().is_none());
        let failing = ServeLink::Forwarded {
            start: vec!["sh".into(), "-c".into(), "echo no gateway >&2; exit 3".into()],
            stop: Vec::new(),
        };
        let e = open(&failing, 1).await.unwrap_err();
        assert_eq!(e.to_string(), "forwarding the server's port failed (3): no gateway");
    }

    #[tokio::test]
    async fn an_empty_or_missing_forward_command_is_refused_with_its_words() {
        let empty = ServeLink::Forwarded {
            start: Vec::new(),
            stop: Vec::new(),
        };
        let e = open(&empty, 1).await.unwrap_err();
        assert!(matches!(e, ForwardError::EmptyCommand), "{e:?}");
        let missing = ServeLink::Forwarded {
            start: vec!["/nonexistent/openshell".into(), "forward".into(), "{port}".into()],
            stop: Vec::new(),
        };
        let e = open(&missing, 7).await.unwrap_err();
        assert!(e.to_string().starts_with("`forward 7` could not run: "), "{e}");
        assert!(std::error::Error::source(&e).is_some(), "{e:?}");
    }
}
