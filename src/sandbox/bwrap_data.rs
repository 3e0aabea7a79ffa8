//! Session folders shown by content instead of by a bind: a bind mount's source path is the
//! mount's root in `/proc/self/mountinfo`, so binding `/tmp/ghostlab-sandbox-<role>-<id>/etc`
//! told every sandboxed process where the session lives on the host. A small folder (the
//! generated /etc, the agent config) is instead rebuilt per command on a tmpfs of bwrap's own:
//! folders with `--dir`, links with `--symlink`, each file's bytes read by bwrap from a
//! descriptor (`--file FD`), then the tmpfs is remounted read-only. Its mountinfo root is `/`.
//!
//! The descriptors are opened here and handed to the launcher; bwrap reads each to its end. A
//! folder beyond [`MAX_BYTES`] or [`MAX_ENTRIES`] is refused (it would cost every command a
//! large copy), never silently bound instead.

use std::collections::HashMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Largest folder shown by content (bytes of its files together).
pub(crate) const MAX_BYTES: u64 = 16 << 20;
/// Most entries (files, folders, links) of a folder shown by content.
pub(crate) const MAX_ENTRIES: usize = 2048;

/// The bwrap arguments of every folder one command is shown by content.
#[derive(Debug, Default)]
pub(crate) struct Views {
    /// The generated /etc (isolated root filesystem).
    pub(crate) etc: Option<Vec<String>>,
    /// The agent config at `/sandbox/config`.
    pub(crate) config: Option<Vec<String>>,
    /// Staged inputs, by the path they are shown at.
    pub(crate) inputs: HashMap<PathBuf, Vec<String>>,
}

/// What is left of the bytes and entries one command may be shown by content.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub(crate) bytes: u64,
    pub(crate) entries: usize,
}

impl Budget {
    /// The bound of one view.
    pub(crate) fn full() -> Budget {
        Budget {
            bytes: MAX_BYTES,
            entries: MAX_ENTRIES,
        }
    }
}

/// Why a folder has no view.
#[derive(Debug)]
pub(crate) enum NoView {
    /// Beyond what is left of the budget.
    TooLarge(String),
    /// It could not be read.
    Unreadable(String),
}

impl std::fmt::Display for NoView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoView::TooLarge(m) | NoView::Unreadable(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for NoView {}

/// One folder as bwrap arguments plus the descriptors those arguments name.
#[derive(Debug, Default)]
pub(crate) struct DataView {
    /// `--perms M --tmpfs DEST`, the entries, `--remount-ro DEST`.
    pub(crate) args: Vec<String>,
    /// Open files whose numbers appear in `args`; the launcher must inherit them.
    pub(crate) fds: Vec<OwnedFd>,
}

/// The folder `host` as a read-only tmpfs at `inside`, or why it cannot be.
pub(crate) fn view(host: &Path, inside: &str) -> Result<DataView, NoView> {
    view_within(host, inside, &mut Budget::full())
}

/// `host` (a folder, or a file shown read-only by a bind of bwrap's own copy) at `inside`,
/// taking its size from `budget`; the budget is unchanged when it does not fit.
pub(crate) fn view_within(host: &Path, inside: &str, budget: &mut Budget) -> Result<DataView, NoView> {
    let unreadable = |e: std::io::Error| NoView::Unreadable(format!("{}: {e}", host.display()));
    let meta = std::fs::metadata(host).map_err(unreadable)?;
    let mode = format!("{:o}", meta.permissions().mode() & 0o7777);
    let mut v = DataView::default();
    let mut left = *budget;
    if meta.is_file() {
        left.bytes = left.bytes.checked_sub(meta.len()).ok_or_else(|| too_large(host))?;
        let fd = OwnedFd::from(std::fs::File::open(host).map_err(unreadable)?);
        v.args.extend([
            "--perms".into(),
            mode,
            "--ro-bind-data".into(),
            fd.as_raw_fd().to_string(),
            inside.into(),
        ]);
        v.fds.push(fd);
    } else {
        v.args.extend(["--perms".into(), mode, "--tmpfs".into(), inside.into()]);
        add_entries(host, inside, &mut v, &mut left)?;
        v.args.extend(["--remount-ro".into(), inside.into()]);
    }
    *budget = left;
    Ok(v)
}

fn add_entries(host: &Path, inside: &str, v: &mut DataView, budget: &mut Budget) -> Result<(), NoView> {
    let at = |e: std::io::Error| NoView::Unreadable(format!("{}: {e}", host.display()));
    let mut entries: Vec<_> = std::fs::read_dir(host)
        .map_err(at)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(at)?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let dest = format!("{inside}/{}", e.file_name().to_string_lossy());
        let unreadable = |e: std::io::Error| NoView::Unreadable(format!("{}: {e}", path.display()));
        let meta = std::fs::symlink_metadata(&path).map_err(unreadable)?;
        budget.entries = budget.entries.checked_sub(1).ok_or_else(|| too_large(host))?;
        let mode = format!("{:o}", meta.permissions().mode() & 0o7777);
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path).map_err(unreadable)?;
            v.args
                .extend(["--symlink".into(), target.to_string_lossy().into_owned(), dest]);
        } else if meta.is_dir() {
            v.args.extend(["--perms".into(), mode, "--dir".into(), dest.clone()]);
            add_entries(&path, &dest, v, budget)?;
        } else if meta.is_file() {
            budget.bytes = budget.bytes.checked_sub(meta.len()).ok_or_else(|| too_large(host))?;
            let file = std::fs::File::open(&path).map_err(unreadable)?;
            let fd = OwnedFd::from(file);
            v.args.extend([
                "--perms".into(),
                mode,
                "--file".into(),
                fd.as_raw_fd().to_string(),
                dest,
            ]);
            v.fds.push(fd);
        }
        // Sockets and FIFOs carry no content: a folder shown by content has none.
    }
    Ok(())
}

fn too_large(host: &Path) -> NoView {
    NoView::TooLarge(format!(
        "{} is too large to show by content (at most {MAX_BYTES} bytes in {MAX_ENTRIES} entries)",
        host.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_becomes_a_read_only_tmpfs_with_its_files_links_and_modes() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("ssl")).unwrap();
        std::fs::write(d.path().join("ssl/ca.crt"), "CA").unwrap();
        std::fs::write(d.path().join("passwd"), "root:x:0:0").unwrap();
        std::fs::set_permissions(d.path().join("passwd"), std::fs::Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink("../usr/lib/os-release", d.path().join("os-release")).unwrap();
        let v = view(d.path(), "/etc").unwrap();
        let joined = v.args.join(" ");
        assert!(joined.contains("--tmpfs /etc"), "{joined}");
        assert!(joined.ends_with("--remount-ro /etc"), "{joined}");
        assert!(joined.contains("--symlink ../usr/lib/os-release /etc/os-release"));
        assert!(joined.contains("--dir /etc/ssl"));
        assert_eq!(v.fds.len(), 2);
        let passwd_fd = v.fds[0].as_raw_fd().to_string();
        assert!(
            joined.contains(&format!("--perms 644 --file {passwd_fd} /etc/passwd")),
            "{joined}"
        );
        // The host folder's path appears nowhere: that is the point.
        assert!(!joined.contains(&d.path().display().to_string()));
    }

    #[test]
    fn a_folder_beyond_the_bounds_is_refused_naming_it() {
        let d = tempfile::tempdir().unwrap();
        for i in 0..=MAX_ENTRIES {
            std::fs::write(d.path().join(i.to_string()), "").unwrap();
        }
        let err = view(d.path(), "/sandbox/config").unwrap_err().to_string();
        assert!(err.contains("too large to show by content"), "{err}");
        let big = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(big.path().join("big")).unwrap();
        f.set_len(MAX_BYTES + 1).unwrap();
        assert!(
            view(big.path(), "/x")
                .unwrap_err()
                .to_string()
                .contains(&big.path().display().to_string())
        );
        assert!(view(Path::new("/nonexistent-ghostlab"), "/x").is_err());
    }

    #[test]
    fn a_shared_budget_is_taken_only_by_what_fits() {
        let d = tempfile::tempdir().unwrap();
        let (small, big) = (d.path().join("small.md"), d.path().join("big.bin"));
        std::fs::write(&small, vec![b'x'; 1000]).unwrap();
        std::fs::write(&big, vec![b'y'; 5000]).unwrap();
        let mut budget = Budget {
            bytes: 4000,
            entries: 10,
        };
        let v = view_within(&small, "/job/AGENTS.md", &mut budget).unwrap();
        assert!(
            v.args.join(" ").contains("--ro-bind-data"),
            "a file is a read-only bind of bwrap's copy"
        );
        assert_eq!(budget.bytes, 3000);
        assert!(matches!(
            view_within(&big, "/job/big.bin", &mut budget),
            Err(NoView::TooLarge(_))
        ));
        assert_eq!(budget.bytes, 3000, "a view that did not fit takes nothing");
    }
}
