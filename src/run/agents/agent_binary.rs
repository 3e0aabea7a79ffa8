//! Where the agent host binaries are (OpenCode, Codex) and whether they can run. A leaf: the
//! run's setup and each case's agent start both ask, before any agent process starts.

use crate::spec::LoadedJob;
use std::path::{Path, PathBuf};

/// The OpenCode binary for `job` and where that choice came from: `hosts.opencode.binary`
/// (relative to job.yaml), else `GHOSTLAB_OPENCODE_BIN`, else the first `opencode` on PATH.
pub fn opencode_binary(job: &LoadedJob) -> (Option<PathBuf>, &'static str) {
    if let Some(b) = job.job.hosts.opencode.as_ref().and_then(|h| h.binary.as_deref()) {
        return (Some(job.resolve(b)), "hosts.opencode.binary");
    }
    if std::env::var_os("GHOSTLAB_OPENCODE_BIN").is_some() {
        return (find_opencode(), "GHOSTLAB_OPENCODE_BIN");
    }
    (find_opencode(), "PATH")
}

/// The agent host binary if it exists and is executable; otherwise the reason, naming the
/// path and where it came from (checked before any agent process starts).
pub fn checked_agent_binary(bin: Option<&Path>, source: &str) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let Some(bin) = bin else {
        return Err(
            "agent host binary not found: opencode (not in hosts.opencode.binary, GHOSTLAB_OPENCODE_BIN or PATH)"
                .into(),
        );
    };
    match std::fs::metadata(bin) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(bin.to_path_buf()),
        Ok(_) => Err(format!(
            "agent host binary not found: {} is not an executable file (from {source})",
            bin.display()
        )),
        Err(_) => Err(format!(
            "agent host binary not found: {} (from {source})",
            bin.display()
        )),
    }
}

/// The `opencode` binary: `GHOSTLAB_OPENCODE_BIN`, else the first `opencode` on PATH.
pub fn find_opencode() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GHOSTLAB_OPENCODE_BIN") {
        return Some(PathBuf::from(p));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("opencode"))
        .find(|p| p.is_file())
}

/// The `codex` binary on the host: `hosts.codex.binary` (relative to job.yaml), else the first
/// `codex` on PATH.
pub fn codex_binary(job: &LoadedJob) -> Option<PathBuf> {
    match job.job.hosts.codex.as_ref().and_then(|h| h.binary.as_deref()) {
        Some(b) => Some(job.resolve(b)),
        None => std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|d| d.join("codex"))
            .find(|p| p.is_file()),
    }
}
