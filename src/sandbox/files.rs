//! Host-side file work for sessions: copying the workspace in (symlinks stay symlinks, so a
//! planted link resolves inside the sandbox, never on the host), copying artifacts out, and
//! handing the session folder to the sandbox user.
//!
//! It never follows a symlink out of the tree it copies.

use std::os::unix::fs::{MetadataExt, PermissionsExt, lchown};
use std::path::Path;

use walkdir::WalkDir;

/// Copies `src` (file or folder) to `dst`, recreating symlinks as symlinks.
pub fn copy_tree(src: &Path, dst: &Path) -> std::io::Result<()> {
    let mut unbounded = u64::MAX;
    copy_tree_bounded(src, dst, &mut unbounded)
}

/// Like [`copy_tree`], but refuses to copy more than `budget` bytes of file content (the
/// budget shrinks by what was copied, so several trees can share one bound). Exceeding it is
/// an error naming the bound, never a partial copy passed off as complete.
pub fn copy_tree_bounded(src: &Path, dst: &Path, budget: &mut u64) -> std::io::Result<()> {
    let mut b = CopyBudget {
        bytes: *budget,
        entries: u64::MAX,
    };
    let r = copy_tree_within(src, dst, &mut b, &|_, _| true);
    *budget = b.bytes;
    r
}

/// What a copy may still take: bytes of file content and entries (files, folders, links).
#[derive(Debug, Clone, Copy)]
pub struct CopyBudget {
    /// Bytes of file content left.
    pub bytes: u64,
    /// Entries left.
    pub entries: u64,
}

/// Copies `src` to `dst` within `budget`, leaving out every entry (and, for a folder, its
/// whole subtree) for which `keep` says no. Symlinks are recreated as links.
pub fn copy_tree_within(
    src: &Path,
    dst: &Path,
    budget: &mut CopyBudget,
    keep: &dyn Fn(&Path, &std::fs::Metadata) -> bool,
) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(src)?;
    if !meta.is_dir() {
        if let Some(parent) = dst.parent() {
            std::fs::create_dir_all(parent)?;
        }
        charge(budget, &meta, src)?;
        return copy_entry(src, dst, &meta);
    }
    let walk = WalkDir::new(src)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || e.metadata().map(|m| keep(e.path(), &m)).unwrap_or(false));
    for entry in walk {
        let entry = entry.map_err(std::io::Error::other)?;
        let rel = entry.path().strip_prefix(src).map_err(std::io::Error::other)?;
        let target = dst.join(rel);
        let meta = entry.path().symlink_metadata()?;
        charge(budget, &meta, entry.path())?;
        if meta.is_dir() {
            std::fs::create_dir_all(&target)?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(meta.mode() & 0o7777 | 0o700))?;
        } else {
            copy_entry(entry.path(), &target, &meta)?;
        }
    }
    Ok(())
}

fn charge(budget: &mut CopyBudget, meta: &std::fs::Metadata, path: &Path) -> std::io::Result<()> {
    if budget.entries == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            format!("copy bound exceeded at {}: too many files and folders", path.display()),
        ));
    }
    budget.entries -= 1;
    if !meta.is_file() {
        return Ok(());
    }
    if meta.len() > budget.bytes {
        return Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            format!(
                "copy bound exceeded at {} ({} bytes left of the bound)",
                path.display(),
                budget.bytes
            ),
        ));
    }
    budget.bytes -= meta.len();
    Ok(())
}

fn copy_entry(src: &Path, dst: &Path, meta: &std::fs::Metadata) -> std::io::Result<()> {
    if meta.file_type().is_symlink() {
        let link = std::fs::read_link(src)?;
        std::os::unix::fs::symlink(link, dst)
    } else if meta.is_file() {
        std::fs::copy(src, dst).map(|_| ())
    } else {
        // Sockets, fifos and devices are not copied into a workspace.
        Ok(())
    }
}

/// Gives every entry under `root` (without following links) to `uid:gid`.
pub fn chown_tree(root: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    for entry in WalkDir::new(root).follow_links(false) {
        let entry = entry.map_err(std::io::Error::other)?;
        lchown(entry.path(), Some(uid), Some(gid))?;
    }
    Ok(())
}

/// Whether `uid` (with no supplementary groups besides `gid`) can read `path`: every
/// ancestor searchable and the path itself readable. Checked before bwrap runs as that uid, so
/// an unreadable input is a clear error rather than a silently missing file.
pub fn readable_by(path: &Path, uid: u32, gid: u32) -> bool {
    let allowed = |m: &std::fs::Metadata, bit: u32| {
        let mode = m.mode();
        if m.uid() == uid {
            mode & (bit << 6) != 0
        } else if m.gid() == gid {
            mode & (bit << 3) != 0
        } else {
            mode & bit != 0
        }
    };
    let mut ancestors: Vec<&Path> = path.ancestors().skip(1).collect();
    ancestors.reverse();
    for dir in ancestors {
        match std::fs::metadata(dir) {
            Ok(m) if allowed(&m, 0o1) => {}
            _ => return false,
        }
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => allowed(&m, 0o4) && allowed(&m, 0o1),
        Ok(m) => allowed(&m, 0o4),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_are_copied_as_links() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(src.join("sub")).unwrap();
        std::fs::write(src.join("sub/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", src.join("link")).unwrap();
        let dst = d.path().join("dst");
        copy_tree(&src, &dst).unwrap();
        assert_eq!(std::fs::read_to_string(dst.join("sub/a.txt")).unwrap(), "a");
        assert!(dst.join("link").symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(
            std::fs::read_link(dst.join("link")).unwrap(),
            Path::new("/etc/hostname")
        );
    }

    #[test]
    fn the_bound_is_enforced() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("a"), vec![0u8; 600]).unwrap();
        std::fs::write(src.join("b"), vec![0u8; 600]).unwrap();
        let mut budget = 1000;
        let err = copy_tree_bounded(&src, &d.path().join("dst"), &mut budget).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::StorageFull);
        let mut budget = 1200;
        copy_tree_bounded(&src, &d.path().join("dst2"), &mut budget).unwrap();
        assert_eq!(budget, 0);
    }

    #[test]
    fn the_entry_bound_is_enforced_and_filtered_subtrees_are_skipped() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(src.join(".hidden")).unwrap();
        for i in 0..5 {
            std::fs::write(src.join(format!("f{i}")), "x").unwrap();
            std::fs::write(src.join(format!(".hidden/g{i}")), "x").unwrap();
        }
        // The root plus five files fit; the hidden folder and its files are never counted.
        let skip_dots = |p: &Path, _: &std::fs::Metadata| !p.file_name().unwrap().to_string_lossy().starts_with('.');
        let mut b = CopyBudget {
            bytes: 1 << 20,
            entries: 6,
        };
        copy_tree_within(&src, &d.path().join("a"), &mut b, &skip_dots).unwrap();
        assert!(!d.path().join("a/.hidden").exists());
        let mut b = CopyBudget {
            bytes: 1 << 20,
            entries: 6,
        };
        let err = copy_tree_within(&src, &d.path().join("b"), &mut b, &|_, _| true).unwrap_err();
        assert!(err.to_string().contains("too many files"), "{err}");
    }

    #[test]
    fn readability_for_another_uid() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, "x").unwrap();
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(!readable_by(&f, 54321, 54321), "a 0700 parent hides the file");
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(readable_by(&f, 54321, 54321));
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(!readable_by(&f, 54321, 54321));
    }
}
