//! Where the host paths a job names may point.
//!
//! - An input (instructions, prompts, skills, assets, policy, uploads, cassettes, MCP servers
//!   files, the workspace) must resolve — symlinks followed — inside the job's folder, or inside
//!   a folder listed in `paths.outside_job` (absolute paths, never a system folder).
//! - It must be a regular file or a folder: never a FIFO, device or socket.
//! - The workspace and the state folder are never a system folder (`/`, `/etc`, `/usr`, …).
//! - The state folder is empty, missing, or Ghostlab's own: it holds the marker file
//!   `.ghostlab-state` or only entries Ghostlab writes.

use std::path::{Path, PathBuf};

use super::diagnostics::{Diagnostic, diag};
use super::relative_path::{normalize, resolve_against};

/// The marker file that makes a folder Ghostlab's state folder.
pub(crate) const STATE_MARKER: &str = ".ghostlab-state";

/// Folders that are never a workspace, a state folder or an allowed outside folder.
const SYSTEM_FOLDERS: &[&str] = &[
    "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/opt", "/proc", "/root", "/run",
    "/sbin", "/srv", "/sys", "/tmp", "/usr", "/var",
];
/// Trees nothing of a job may live in.
const SYSTEM_TREES: &[&str] = &["/boot", "/dev", "/etc", "/proc", "/sys"];
/// Entries Ghostlab writes into its state folder.
const STATE_ENTRIES: &[&str] = &["runs", "logs", "lab", "sandbox", "cache", "discovery", "models"];

/// What an input path must be.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    File,
    /// A regular file the agent or the generator reads as text (instructions, prompts,
    /// `{file:}` targets): also within `FileKind::Text`'s size bound.
    Text,
    Dir,
    Any,
}

/// The job folder and the explicitly allowed outside folders, both canonical.
pub(crate) struct PathPolicy<'a> {
    file: &'a Path,
    dir: PathBuf,
    canonical_dir: PathBuf,
    allowed: Vec<PathBuf>,
}

/// True for `/`, `/etc`, `/usr`, … and anything inside `/etc`, `/proc`, `/dev`, ….
pub(crate) fn is_system_path(p: &Path) -> bool {
    SYSTEM_FOLDERS.iter().any(|s| p == Path::new(s)) || SYSTEM_TREES.iter().any(|t| p.starts_with(t))
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| normalize(p))
}

impl<'a> PathPolicy<'a> {
    /// Builds the policy, reporting bad `paths.outside_job` entries.
    pub(crate) fn new(file: &'a Path, dir: &Path, outside_job: &[String], ds: &mut Vec<Diagnostic>) -> Self {
        let mut allowed = Vec::new();
        for (i, entry) in outside_job.iter().enumerate() {
            let at = format!("paths.outside_job[{i}]");
            let p = Path::new(entry);
            if !p.is_absolute() {
                ds.push(diag(file, at, format!("`{entry}` must be an absolute path")));
                continue;
            }
            let c = canonical(p);
            if is_system_path(&c) {
                ds.push(diag(
                    file,
                    at,
                    format!("`{entry}` is a system folder ({}); it cannot be allowed", c.display()),
                ));
                continue;
            }
            allowed.push(c);
        }
        PathPolicy {
            file,
            dir: dir.to_path_buf(),
            canonical_dir: canonical(dir),
            allowed,
        }
    }

    fn inside(&self, c: &Path) -> bool {
        c.starts_with(&self.canonical_dir) || self.allowed.iter().any(|a| c.starts_with(a))
    }

    /// Checks an input path that must exist; one diagnostic at `at` when it fails.
    pub(crate) fn input(&self, at: &str, rel: &str, want: Want, ds: &mut Vec<Diagnostic>) -> Option<PathBuf> {
        let p = resolve_against(&self.dir, rel);
        let meta = match std::fs::metadata(&p) {
            Ok(m) => m,
            Err(_) => {
                let what = match want {
                    Want::File | Want::Text => "file",
                    Want::Dir => "folder",
                    Want::Any => "path",
                };
                ds.push(diag(
                    self.file,
                    at,
                    format!("referenced {what} `{rel}` does not exist (looked for {})", p.display()),
                ));
                return None;
            }
        };
        let c = canonical(&p);
        let kind_ok = match want {
            Want::File | Want::Text => meta.is_file(),
            Want::Dir => meta.is_dir(),
            Want::Any => meta.is_file() || meta.is_dir(),
        };
        if !kind_ok {
            let what = match want {
                Want::File | Want::Text => "a regular file",
                Want::Dir => "a folder",
                Want::Any => "a regular file or a folder",
            };
            ds.push(diag(self.file, at, format!("`{rel}` ({}) is not {what}", c.display())));
            return None;
        }
        if !self.contains(at, rel, &c, ds) {
            return None;
        }
        let max = crate::util::bounded::FileKind::Text.max_bytes();
        if want == Want::Text && meta.len() > max {
            ds.push(diag(
                self.file,
                at,
                format!(
                    "`{rel}` is {} bytes; a text input may be at most {max} bytes",
                    meta.len()
                ),
            ));
            return None;
        }
        Some(c)
    }

    /// Reports `c` (canonical) when it is outside the job folder and every allowed folder.
    fn contains(&self, at: &str, rel: &str, c: &Path, ds: &mut Vec<Diagnostic>) -> bool {
        if !self.inside(c) || SYSTEM_TREES.iter().any(|t| c.starts_with(t)) {
            let mut d = diag(
                self.file,
                at,
                format!(
                    "`{rel}` resolves to {}, outside the job folder {}",
                    c.display(),
                    self.canonical_dir.display()
                ),
            );
            d.hint = Some(if is_system_path(c) {
                "system files are never inputs".into()
            } else {
                "move it into the job folder or list its folder under `paths.outside_job`".into()
            });
            ds.push(d);
            return false;
        }
        true
    }

    /// Containment only, for a path whose existence and type another check reports.
    pub(crate) fn contained(&self, at: &str, rel: &str, ds: &mut Vec<Diagnostic>) {
        let p = resolve_against(&self.dir, rel);
        if p.exists() {
            self.contains(at, rel, &canonical(&p), ds);
        }
    }

    /// An output path that may not exist yet (a cassette to record): inside the job folder or
    /// an allowed folder, judged lexically.
    pub(crate) fn output(&self, at: &str, rel: &str, ds: &mut Vec<Diagnostic>) {
        let p = normalize(&resolve_against(&self.dir, rel));
        let c = match std::fs::canonicalize(p.parent().unwrap_or(&p)) {
            Ok(parent) => parent.join(p.file_name().unwrap_or_default()),
            Err(_) => p.clone(),
        };
        let inside_lexically = p.starts_with(&self.dir) || self.allowed.iter().any(|a| p.starts_with(a));
        if !(self.inside(&c) || inside_lexically) || is_system_path(&c) {
            ds.push(diag(
                self.file,
                at,
                format!("`{rel}` resolves to {}, outside the job folder", c.display()),
            ));
        }
    }

    /// The workspace: an input folder that is not a system folder.
    pub(crate) fn workspace(&self, rel: &str, ds: &mut Vec<Diagnostic>) {
        let p = canonical(&resolve_against(&self.dir, rel));
        if is_system_path(&p) {
            ds.push(diag(
                self.file,
                "agent.workspace",
                format!(
                    "`{rel}` resolves to the system folder {}; a workspace is a project folder",
                    p.display()
                ),
            ));
            return;
        }
        self.input("agent.workspace", rel, Want::Dir, ds);
    }

    /// The state folder: inside the job folder (or allowed), not a system folder, and empty,
    /// missing, or Ghostlab's own.
    pub(crate) fn state_dir(&self, rel: &str, ds: &mut Vec<Diagnostic>) {
        let at = "paths.state_dir";
        let p = resolve_against(&self.dir, rel);
        let c = canonical(&p);
        if rel.trim().is_empty() {
            let mut d = diag(
                self.file,
                at,
                "is empty; it must name the folder Ghostlab keeps its state in",
            );
            d.hint = Some("remove the key for the default `.ghostlab`, or name a folder inside the job folder".into());
            ds.push(d);
            return;
        }
        if is_system_path(&c) {
            ds.push(diag(
                self.file,
                at,
                format!(
                    "`{rel}` resolves to {}; Ghostlab never writes into a system folder",
                    c.display()
                ),
            ));
            return;
        }
        let inside_lexically = normalize(&p).starts_with(&self.dir);
        if !(self.inside(&c) || inside_lexically) {
            let mut d = diag(
                self.file,
                at,
                format!("`{rel}` resolves to {}, outside the job folder", c.display()),
            );
            d.hint = Some("list its parent folder under `paths.outside_job` to allow it".into());
            ds.push(d);
            return;
        }
        let Ok(meta) = std::fs::symlink_metadata(&c) else {
            return; // created on first use
        };
        if !meta.is_dir() {
            ds.push(diag(self.file, at, format!("`{rel}` exists and is not a folder")));
            return;
        }
        if let Some(foreign) = foreign_entry(&c) {
            let mut d = diag(
                self.file,
                at,
                format!("`{rel}` holds `{foreign}`, which Ghostlab did not write; it is not a state folder"),
            );
            d.hint = Some(format!(
                "use an empty folder, or add a `{STATE_MARKER}` file to claim it"
            ));
            ds.push(d);
        }
    }
}

/// The first entry of `dir` that Ghostlab would not have written, unless `dir` is marked.
fn foreign_entry(dir: &Path) -> Option<String> {
    if dir.join(STATE_MARKER).exists() {
        return None;
    }
    let entries = std::fs::read_dir(dir).ok()?;
    entries.filter_map(Result::ok).find_map(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = STATE_ENTRIES.contains(&name.as_str()) || name.ends_with(".json") || name.starts_with(".ghostlab");
        (!ours).then_some(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_paths_and_normalization() {
        assert!(is_system_path(Path::new("/")));
        assert!(is_system_path(Path::new("/etc/shadow")));
        assert!(is_system_path(Path::new("/usr")));
        assert!(!is_system_path(Path::new("/usr/local/share/prompts")));
        assert!(!is_system_path(Path::new("/home/me/job")));
        assert_eq!(normalize(Path::new("/sandbox/../etc")), PathBuf::from("/etc"));
    }
}
