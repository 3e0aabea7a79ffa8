//! The words every part of the bwrap argv shares: a session's host folders (`Layout`), where
//! they are inside, and what varies per command (`CommandSpec`). A leaf: the argv's parts
//! (`bwrap`, `bwrap_root`, `bwrap_binds`) import it and it imports none of them.

use std::path::{Path, PathBuf};

use super::super::bwrap_data::Views;
use super::super::scope::Scope;

/// Host folders of one session.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// The session folder; everything below belongs to the session.
    pub(crate) dir: PathBuf,
    /// The workspace copy, bound at the policy's workdir.
    pub(crate) workspace: PathBuf,
    /// HOME inside (`/sandbox/home`).
    pub(crate) home: PathBuf,
    /// TMPDIR inside (`/sandbox/tmp`); persists across commands, unlike /tmp.
    pub(crate) tmp: PathBuf,
    /// Uploaded files (`/sandbox/uploads`).
    pub(crate) uploads: PathBuf,
    /// Folder of the egress proxy socket.
    pub(crate) egress: PathBuf,
    /// The generated /etc of an isolated sandbox.
    pub(crate) etc: PathBuf,
    /// Generated agent configuration (`/sandbox/config`, read-only inside).
    pub(crate) config: PathBuf,
    /// Staged copies of the job's inputs.
    pub(crate) inputs: PathBuf,
    /// Sockets of the MCP relay (`/run/ghostlab-mcp` inside, read-only).
    pub(crate) mcp: PathBuf,
    /// (staged copy on the host, real host path it is shown at inside).
    pub(crate) staged: Vec<(PathBuf, PathBuf)>,
}

/// HOME inside the sandbox.
pub(crate) const HOME_INSIDE: &str = "/sandbox/home";
/// TMPDIR inside the sandbox.
pub(crate) const TMP_INSIDE: &str = "/sandbox/tmp";
/// Upload folder inside the sandbox.
pub(crate) const UPLOADS_INSIDE: &str = "/sandbox/uploads";
/// Generated agent configuration inside the sandbox.
pub(crate) const CONFIG_INSIDE: &str = "/sandbox/config";
/// The MCP relay's sockets inside the sandbox.
pub(crate) const MCP_SOCKETS_INSIDE: &str = "/run/ghostlab-mcp";
/// Size of the in-sandbox /tmp (a tmpfs per command).
pub const TMPFS_BYTES: u64 = 256 << 20;

impl Layout {
    /// The layout below `dir`.
    pub(crate) fn new(dir: &Path) -> Self {
        Layout {
            dir: dir.to_path_buf(),
            workspace: dir.join("workspace"),
            home: dir.join("home"),
            tmp: dir.join("tmp"),
            uploads: dir.join("uploads"),
            egress: dir.join("egress"),
            etc: dir.join("etc"),
            config: dir.join("config"),
            inputs: dir.join("inputs"),
            mcp: dir.join("mcp"),
            staged: Vec::new(),
        }
    }

    /// The session's writable folders that are size-bounded tmpfs mounts when Ghostlab runs
    /// as root (see `super::scratch`).
    pub(crate) fn bounded(&self) -> [&PathBuf; 4] {
        [&self.home, &self.tmp, &self.workspace, &self.uploads]
    }

    /// The writable (host folder, path inside) pairs; uploads and downloads go through these.
    pub(crate) fn writable(&self, workdir: &str) -> Vec<(PathBuf, String)> {
        vec![
            (self.workspace.clone(), workdir.to_string()),
            (self.home.clone(), HOME_INSIDE.to_string()),
            (self.tmp.clone(), TMP_INSIDE.to_string()),
            (self.uploads.clone(), UPLOADS_INSIDE.to_string()),
        ]
    }
}

/// Everything that varies per command.
#[derive(Debug, Clone)]
pub(crate) struct CommandSpec<'a> {
    /// Start folder inside the sandbox.
    pub(crate) chdir: &'a str,
    /// The seccomp program's fd number in the launcher.
    pub(crate) seccomp_fd: i32,
    /// The bridge executable when the network is an allowlist.
    pub(crate) bridge_exe: Option<&'a Path>,
    /// The ghostlab executable shown read-only (egress bridge, MCP relay connector).
    pub(crate) helper_exe: Option<&'a Path>,
    /// What to run.
    pub(crate) argv: &'a [String],
    /// What of the session this command sees (the whole session's scope for most commands).
    pub(crate) scope: &'a Scope,
    /// The host folder of the egress proxy socket this command's bridge uses.
    pub(crate) egress_dir: &'a Path,
    /// The fd of the socket the network watch shim hands its listener over (`watch_shim`);
    /// the shim is `helper_exe`, which must then be set.
    pub(crate) watch_fd: Option<i32>,
    /// Session folders shown by content rather than bound, so their host path does not show
    /// in the sandbox's mountinfo (`super::bwrap_data`); a folder without a view is bound.
    pub(crate) views: &'a Views,
}

/// Appends borrowed words to an argv.
pub(super) fn push(a: &mut Vec<String>, items: &[&str]) {
    a.extend(items.iter().map(|s| s.to_string()));
}
