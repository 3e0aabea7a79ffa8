//! What a stdio MCP server's command brings into the sandbox besides the files it names: the
//! folder of its script (sibling modules) or its executable's package folder. These folders
//! are *implied*, not declared, so they come in as the package and not as the neighbourhood:
//!
//! - a folder that holds credentials — a user's home itself (or anything above it), a folder
//!   named like `~/.local` or `~/.config`, or one that directly holds `.ssh`, `.aws`, … — is
//!   refused with the server's name and the path, before any session exists;
//! - the copy leaves out dotfiles (`.env`, `.npmrc`, `.git`) everywhere and, outside the job's
//!   own folder, files and folders only their owner may read (a 0600 `tokens.json`), unless
//!   the job names that path itself (the server's script, its `cwd`, an input).
//!
//! Copies are handed to the sandbox user; the host originals are never chowned.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::SandboxError;
use super::inputs::{package_folder, resolve_program};
use crate::spec::resolved::{LoadedJob, McpTransport};

/// Folder names that hold credentials wherever they are (`~/.local/share/opencode/auth.json`,
/// `~/.config/gh/hosts.yml`, keys, cloud logins).
pub(crate) const CREDENTIAL_DIR_NAMES: &[&str] = &[
    ".local",
    ".config",
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
];
/// Folders of a home that hold logins and keys (OpenCode's `auth.json` is in `.local/share`).
const SENSITIVE_IN_HOME: &[&str] = &[
    ".local/share",
    ".local/state",
    ".config",
    ".ssh",
    ".gnupg",
    ".aws",
    ".kube",
    ".docker",
];
/// Entries whose presence directly in a folder marks it as a home (or home-like) folder.
pub(crate) const CREDENTIAL_ENTRIES: &[&str] = &[
    ".local",
    ".config",
    ".ssh",
    ".gnupg",
    ".aws",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
];

/// Folders implied by the job's stdio MCP servers, each checked; `masked` folders (the
/// checkout) are never brought whole.
pub(crate) fn implied_folders(job: &LoadedJob, masked: &[PathBuf]) -> Result<Vec<PathBuf>, SandboxError> {
    let homes = user_homes();
    let mut out = Vec::new();
    for mcp in &job.mcps {
        let McpTransport::Stdio { command, cwd, .. } = &mcp.transport else {
            continue;
        };
        let mut wanted: Vec<(PathBuf, String)> = Vec::new();
        for p in mcp.host_paths() {
            if p.is_file()
                && let Some(dir) = p.parent()
            {
                let real = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
                // A package inside a node_modules tree resolves its dependencies from that tree.
                let real = super::inputs::topmost_node_modules(&real).unwrap_or(real);
                wanted.push((real, format!("the folder of {}", p.display())));
            }
        }
        if let Some(dir) = cwd {
            wanted.push((dir.canonicalize().unwrap_or_else(|_| dir.clone()), "its cwd".into()));
        }
        if let Some(exe) = command.first().and_then(|c| resolve_program(c))
            && !super::inputs::in_system_runtime(&exe)
            && let Some(pkg) = package_folder(&exe)
        {
            wanted.push((pkg, format!("the package folder of its command {}", exe.display())));
        }
        for (dir, why) in wanted {
            if masked.iter().any(|m| m.starts_with(&dir)) {
                continue;
            }
            if let Some(reason) = credential_folder(&dir, &homes) {
                return Err(SandboxError::Policy(format!(
                    "{}: mcp server `{}`: {why} is {}, which {reason}; the sandbox would show the credentials \
                     beside it. Install the server as a package (its own folder or node_modules) or move its \
                     files into a folder of their own",
                    job.file.display(),
                    mcp.name,
                    dir.display()
                )));
            }
            out.push(dir);
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// This user's home folders: `$HOME` and the password database's entry for the effective uid.
pub(crate) fn user_homes() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::env::var_os("HOME").map(PathBuf::from).into_iter().collect();
    // SAFETY: getpwuid returns a pointer into static storage or NULL; read at once.
    unsafe {
        let pw = libc::getpwuid(libc::geteuid());
        if !pw.is_null() && !(*pw).pw_dir.is_null() {
            let dir = std::ffi::CStr::from_ptr((*pw).pw_dir);
            out.push(PathBuf::from(dir.to_string_lossy().into_owned()));
        }
    }
    out.into_iter()
        .filter(|h| h.is_absolute())
        .map(|h| h.canonicalize().unwrap_or(h))
        .collect()
}

/// Why `dir` must not be brought into a sandbox as a whole, if it must not.
pub(crate) fn credential_folder(dir: &Path, homes: &[PathBuf]) -> Option<String> {
    if let Some(h) = homes.iter().find(|h| h.starts_with(dir)) {
        return Some(format!("is or holds the home folder {}", h.display()));
    }
    for h in homes {
        if let Some(inner) = SENSITIVE_IN_HOME.iter().map(|s| h.join(s)).find(|s| s.starts_with(dir)) {
            return Some(format!("holds {} (logins and keys)", inner.display()));
        }
    }
    if let Some(name) = dir.file_name().map(|n| n.to_string_lossy().into_owned())
        && CREDENTIAL_DIR_NAMES.contains(&name.as_str())
    {
        return Some(format!("is a `{name}` folder (where logins and keys live)"));
    }
    CREDENTIAL_ENTRIES
        .iter()
        .find(|e| std::fs::symlink_metadata(dir.join(e)).is_ok())
        .map(|e| format!("also holds `{e}` (a home-like folder)"))
}

/// Whether an entry of an implied folder is copied: never a dotfile; outside the job's own
/// folders (`own`: the masked checkout), never a file or folder only its owner may read;
/// `declared` paths always.
pub(crate) fn brought(path: &Path, meta: &std::fs::Metadata, own: &[PathBuf], declared: &[PathBuf]) -> bool {
    if declared.iter().any(|d| d == path) {
        return true;
    }
    if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
        return false;
    }
    let owner_only = meta.mode() & 0o044 == 0 && !meta.file_type().is_symlink();
    !owner_only || own.iter().any(|o| path.starts_with(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn homes_dot_folders_and_home_like_folders_are_credential_folders() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("home/u");
        std::fs::create_dir_all(home.join(".local/bin")).unwrap();
        std::fs::create_dir_all(home.join(".config/x")).unwrap();
        std::fs::create_dir_all(d.path().join("tools/srv")).unwrap();
        let homes = vec![home.clone()];
        assert!(credential_folder(&home, &homes).unwrap().contains("home folder"));
        assert!(
            credential_folder(&d.path().join("home"), &homes).is_some(),
            "above a home"
        );
        assert!(credential_folder(&home.join(".local"), &homes).is_some());
        assert!(credential_folder(&home.join(".config"), &[]).is_some());
        assert!(
            credential_folder(&home, &[]).unwrap().contains("home-like"),
            "found by content"
        );
        assert!(
            credential_folder(&home.join(".config/x"), &homes).is_none(),
            "one tool's own folder"
        );
        assert!(
            credential_folder(&home.join(".local/share"), &homes)
                .unwrap()
                .contains("logins")
        );
        assert!(credential_folder(&d.path().join("tools/srv"), &homes).is_none());
    }

    #[test]
    fn dotfiles_and_owner_only_files_stay_out_unless_declared() {
        let d = tempfile::tempdir().unwrap();
        let job = d.path().join("job");
        let srv = d.path().join("srv");
        std::fs::create_dir_all(&job).unwrap();
        std::fs::create_dir_all(&srv).unwrap();
        let file = |p: &Path, mode: u32| {
            std::fs::write(p, "x").unwrap();
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
            (p.to_path_buf(), std::fs::symlink_metadata(p).unwrap())
        };
        let (env, m) = file(&srv.join(".env"), 0o644);
        assert!(!brought(&env, &m, std::slice::from_ref(&job), &[]));
        let (tok, m) = file(&srv.join("tokens.json"), 0o600);
        assert!(!brought(&tok, &m, std::slice::from_ref(&job), &[]));
        assert!(
            brought(&tok, &m, std::slice::from_ref(&job), std::slice::from_ref(&tok)),
            "declared"
        );
        let (own, m) = file(&job.join("helper.py"), 0o600);
        assert!(
            brought(&own, &m, std::slice::from_ref(&job), &[]),
            "the job's own files under umask 077"
        );
        let (lib, m) = file(&srv.join("lib.py"), 0o644);
        assert!(brought(&lib, &m, std::slice::from_ref(&job), &[]));
    }
}
