//! Where the agent host binaries are (OpenCode, Codex) and whether they can run. A leaf: the
//! run's setup and each case's agent start both ask, before any agent process starts.

use crate::spec::LoadedJob;
use std::path::{Path, PathBuf};

/// The OpenCode binary for `job` and where that choice came from: `hosts.opencode.binary`
/// (relative to job.yaml), else `GHOSTLAB_OPENCODE_BIN`, else the first `opencode` on PATH.
pub(crate) fn opencode_binary(job: &LoadedJob) -> (Option<PathBuf>, &'static str) {
    if let Some(b) = job.job.hosts.opencode.as_ref().and_then(|h| h.binary.as_deref()) {
        return (Some(job.resolve(b)), "hosts.opencode.binary");
    }
    if std::env::var_os("GHOSTLAB_OPENCODE_BIN").is_some() {
        return (find_opencode(), "GHOSTLAB_OPENCODE_BIN");
    }
    (find_opencode(), "PATH")
}

/// Why the agent host binary cannot be used; each names the path and where it came from.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AgentBinaryError {
    #[error("agent host binary not found: opencode (not in hosts.opencode.binary, GHOSTLAB_OPENCODE_BIN or PATH)")]
    NotFound,
    #[error("agent host binary not found: {} is not an executable file (from {from})", path.display())]
    NotExecutable { path: PathBuf, from: String },
    #[error("agent host binary not found: {} (from {from})", path.display())]
    Unreadable {
        path: PathBuf,
        from: String,
        #[source]
        source: std::io::Error,
    },
}

/// The agent host binary if it exists and is executable; otherwise the reason, naming the
/// path and where it came from (checked before any agent process starts).
pub(crate) fn checked_agent_binary(bin: Option<&Path>, from: &str) -> Result<PathBuf, AgentBinaryError> {
    use std::os::unix::fs::PermissionsExt;
    let Some(bin) = bin else {
        return Err(AgentBinaryError::NotFound);
    };
    match std::fs::metadata(bin) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(bin.to_path_buf()),
        Ok(_) => Err(AgentBinaryError::NotExecutable {
            path: bin.to_path_buf(),
            from: from.to_string(),
        }),
        Err(source) => Err(AgentBinaryError::Unreadable {
            path: bin.to_path_buf(),
            from: from.to_string(),
            source,
        }),
    }
}

/// The `opencode` binary: `GHOSTLAB_OPENCODE_BIN`, else the first `opencode` on PATH.
pub(crate) fn find_opencode() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GHOSTLAB_OPENCODE_BIN") {
        return Some(PathBuf::from(p));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("opencode"))
        .find(|p| p.is_file())
}

/// The `codex` binary on the host: `hosts.codex.binary` (relative to job.yaml), else the first
/// `codex` on PATH.
pub(crate) fn codex_binary(job: &LoadedJob) -> Option<PathBuf> {
    match job.job.hosts.codex.as_ref().and_then(|h| h.binary.as_deref()) {
        Some(b) => Some(job.resolve(b)),
        None => std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|d| d.join("codex"))
            .find(|p| p.is_file()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn each_refusal_keeps_its_words_and_names_path_and_origin() {
        assert_eq!(
            checked_agent_binary(None, "PATH").unwrap_err().to_string(),
            "agent host binary not found: opencode (not in hosts.opencode.binary, GHOSTLAB_OPENCODE_BIN or PATH)"
        );
        let d = tempfile::tempdir().unwrap();
        let plain = d.path().join("opencode");
        std::fs::write(&plain, "#!/bin/sh\n").unwrap();
        let err = checked_agent_binary(Some(&plain), "hosts.opencode.binary").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "agent host binary not found: {} is not an executable file (from hosts.opencode.binary)",
                plain.display()
            )
        );
        // A folder is not an executable file either, whatever its mode bits.
        let folder = checked_agent_binary(Some(d.path()), "PATH").unwrap_err();
        assert!(matches!(folder, AgentBinaryError::NotExecutable { .. }), "{folder:?}");
    }

    #[test]
    fn a_missing_binary_keeps_the_io_error_as_its_source() {
        let d = tempfile::tempdir().unwrap();
        let gone = d.path().join("gone");
        let err = checked_agent_binary(Some(&gone), "GHOSTLAB_OPENCODE_BIN").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "agent host binary not found: {} (from GHOSTLAB_OPENCODE_BIN)",
                gone.display()
            )
        );
        let io = err
            .source()
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .expect("io source");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn an_executable_file_is_returned_as_given() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let bin = d.path().join("opencode");
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(checked_agent_binary(Some(&bin), "PATH").unwrap(), bin);
    }
}
