//! Turning a stdio MCP server's (argv, env, cwd) into a prepared `tokio::process::Command`.
//!
//! The client never builds a server's command itself: it asks a [`Launcher`], so a sandboxed
//! launcher (bubblewrap wrapping the argv) can replace [`HostLauncher`] without touching the
//! client. A launcher must never put a secret value on the argv; values go into the child's
//! environment only.

use indexmap::IndexMap;
use std::path::PathBuf;
use tokio::process::Command;

/// What a stdio MCP server needs to start, before any sandboxing.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchSpec {
    /// The program and its arguments; never empty when launched.
    pub argv: Vec<String>,
    /// Extra environment for the child (values already resolved, never logged).
    pub env: IndexMap<String, String>,
    /// Working directory, if the server needs one.
    pub cwd: Option<PathBuf>,
}

/// Why a launcher could not prepare a command. A sandbox's refusal keeps its own words and
/// its source (`transparent`), so the message reads as the sandbox wrote it.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("the server command is empty")]
    EmptyCommand,
    /// The server's own part of the discovery scope would be wider than the session's.
    #[error(transparent)]
    Scope(#[from] crate::sandbox::scope::Widens),
    /// The sandbox session could not build the command.
    #[error(transparent)]
    Sandbox(#[from] crate::sandbox::SandboxError),
}

/// Prepares the command that starts a stdio MCP server.
///
/// The returned command must start the server in its own process group (so the whole group
/// can be killed) and must leave stdin/stdout/stderr unset: the client pipes them.
pub trait Launcher: Send + Sync {
    /// A short name for messages (`host`, `bubblewrap`).
    fn label(&self) -> &str;
    /// Builds the command for `spec`.
    fn prepare(&self, spec: &LaunchSpec) -> Result<Command, LaunchError>;
}

/// Host variables a server inherits, as MCP's reference clients do; everything else in the
/// host environment (tokens, cloud credentials) stays out unless the job's `env` names it.
pub const INHERITED_ENV: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR",
];

/// Runs the server directly on the host, unsandboxed, with [`INHERITED_ENV`] plus `env`.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostLauncher;

impl Launcher for HostLauncher {
    fn label(&self) -> &str {
        "host"
    }

    fn prepare(&self, spec: &LaunchSpec) -> Result<Command, LaunchError> {
        let (program, args) = spec.argv.split_first().ok_or(LaunchError::EmptyCommand)?;
        let mut cmd = Command::new(program);
        cmd.args(args);
        cmd.env_clear();
        for key in INHERITED_ENV {
            if let Some(v) = std::env::var_os(key) {
                cmd.env(key, v);
            }
        }
        cmd.envs(spec.env.iter());
        if let Some(dir) = &spec.cwd {
            cmd.current_dir(dir);
        }
        own_process_group(&mut cmd);
        Ok(cmd)
    }
}

/// Puts the child in a new process group whose id is its pid, so killing `-pid` reaches every
/// process it forks (npm shims, node workers).
pub(crate) fn own_process_group(cmd: &mut Command) {
    #[cfg(unix)]
    cmd.process_group(0);
    cmd.kill_on_drop(true);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_launcher_rejects_empty_argv() {
        let spec = LaunchSpec {
            argv: vec![],
            env: IndexMap::new(),
            cwd: None,
        };
        assert!(matches!(HostLauncher.prepare(&spec), Err(LaunchError::EmptyCommand)));
    }

    #[test]
    fn host_launcher_keeps_argv_and_cwd() {
        let spec = LaunchSpec {
            argv: vec!["node".into(), "server.js".into()],
            env: IndexMap::from([("K".to_string(), "v".to_string())]),
            cwd: Some(PathBuf::from("/tmp")),
        };
        let cmd = HostLauncher.prepare(&spec).unwrap();
        let std = cmd.as_std();
        let envs: Vec<_> = std.get_envs().map(|(k, _)| k.to_string_lossy().into_owned()).collect();
        assert!(envs.contains(&"K".to_string()));
        assert!(
            envs.iter().all(|k| k == "K" || INHERITED_ENV.contains(&k.as_str())),
            "{envs:?}"
        );
        assert_eq!(std.get_program(), "node");
        assert_eq!(std.get_args().collect::<Vec<_>>(), vec!["server.js"]);
        assert_eq!(std.get_current_dir(), Some(std::path::Path::new("/tmp")));
    }

    /// What a sandbox refusal read as when the launcher kept only its text.
    fn sandbox_refusals() -> Vec<(LaunchError, String)> {
        use crate::sandbox::SandboxError;
        use crate::sandbox::scope::Widens;
        let widens = Widens("/opt/x must be an absolute path without `.` or `..`".into());
        let policy = SandboxError::Policy("the workspace is not a folder".into());
        let io = SandboxError::Io(
            "/run/ghostlab/s1".into(),
            std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied"),
        );
        vec![
            (widens.to_string(), LaunchError::from(widens)),
            (policy.to_string(), LaunchError::from(policy)),
            (io.to_string(), LaunchError::from(io)),
            (
                SandboxError::Deleted.to_string(),
                LaunchError::from(SandboxError::Deleted),
            ),
        ]
        .into_iter()
        .map(|(text, e)| (e, text))
        .collect()
    }

    #[test]
    fn a_sandbox_refusal_reads_as_the_sandbox_wrote_it_at_every_layer() {
        for (e, text) in sandbox_refusals() {
            assert_eq!(e.to_string(), text);
            // The client's errors wrap it transparently: discovery's entry reads the same.
            let mcp = crate::mcp::client::McpError::from(crate::mcp::stdio::SpawnError::from(e));
            assert_eq!(mcp.to_string(), text);
        }
    }

    #[test]
    fn a_sandbox_refusal_keeps_its_kind_and_source() {
        let mut refusals = sandbox_refusals().into_iter().map(|(e, _)| e);
        assert!(matches!(refusals.next(), Some(LaunchError::Scope(_))));
        assert!(matches!(refusals.next(), Some(LaunchError::Sandbox(_))));
        let io = refusals.next().unwrap();
        let source = std::error::Error::source(&io).expect("the I/O error stays the source");
        assert_eq!(source.to_string(), "permission denied");
    }
}
