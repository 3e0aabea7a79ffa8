//! Host-side file work for sessions: copying the workspace in (symlinks stay symlinks, so a
//! planted link resolves inside the sandbox, never on the host), copying artifacts out, and
//! handing the session folder to the sandbox user.
//!
//! A copy never follows a symlink out of the tree it copies, in any folder component, even one
//! swapped in while it runs (`super::beneath`), and what it makes is Ghostlab's: owned by
//! Ghostlab's user, with permission bits only (no setuid, setgid or sticky bit survives), so a
//! tree an agent wrote cannot leave a setuid program on the host.

use std::ffi::OsStr;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt, lchown};
use std::path::Path;

use walkdir::WalkDir;

use super::beneath;

/// Folders nested deeper than this are refused: each level holds a descriptor while copied.
pub(crate) const MAX_COPY_DEPTH: usize = 128;

/// The mode a copied file gets: its permission bits, never setuid, setgid or sticky.
pub(crate) fn copied_file_mode(mode: u32) -> u32 {
    mode & 0o777
}

/// The mode a copied folder gets: its permission bits, always usable by its owner.
pub(crate) fn copied_folder_mode(mode: u32) -> u32 {
    mode & 0o777 | 0o700
}

/// Copies `src` (file or folder) to `dst`, recreating symlinks as symlinks.
pub fn copy_tree(src: &Path, dst: &Path) -> std::io::Result<()> {
    let mut unbounded = u64::MAX;
    copy_tree_bounded(src, dst, &mut unbounded)
}

/// Like [`copy_tree`], but refuses to copy more than `budget` bytes of file content (the
/// budget shrinks by what was copied, so several trees can share one bound). Exceeding it is
/// an error naming the bound, never a partial copy passed off as complete.
pub(crate) fn copy_tree_bounded(src: &Path, dst: &Path, budget: &mut u64) -> std::io::Result<()> {
    let mut b = CopyBudget {
        bytes: *budget,
        entries: u64::MAX,
    };
    let r = copy_tree_within(src, dst, &mut b, &|_, _| true);
    *budget = b.bytes;
    r
}

/// Copies `rel`, below the folder `root`, to `dst`; no link below `root` is followed, so a
/// folder the agent replaced by a link to a host folder is an error, not a host file copied.
pub(crate) fn copy_tree_beneath(root: &Path, rel: &Path, dst: &Path) -> std::io::Result<()> {
    let mut b = CopyBudget {
        bytes: u64::MAX,
        entries: u64::MAX,
    };
    let root_fd = beneath::open_root(root)?;
    let keep = |_: &Path, _: &std::fs::Metadata| true;
    match beneath::split(rel) {
        Ok((parent, name)) => {
            let dir = beneath::open_dir_beneath(&root_fd, parent)?;
            copy_named(&dir, name, &root.join(rel), dst, &mut b, &keep, 0)
        }
        // The root itself.
        Err(_) => copy_tree_within(root, dst, &mut b, &keep),
    }
}

/// What a copy may still take: bytes of file content and entries (files, folders, links).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CopyBudget {
    /// Bytes of file content left.
    pub(crate) bytes: u64,
    /// Entries left.
    pub(crate) entries: u64,
}

/// Copies `src` to `dst` within `budget`, leaving out every entry (and, for a folder, its
/// whole subtree) for which `keep` says no. Symlinks are recreated as links. `src`'s own
/// folders are the caller's; below it nothing is followed.
pub(crate) fn copy_tree_within(
    src: &Path,
    dst: &Path,
    budget: &mut CopyBudget,
    keep: &dyn Fn(&Path, &std::fs::Metadata) -> bool,
) -> std::io::Result<()> {
    let src = if src.file_name().is_some() {
        src.to_path_buf()
    } else {
        src.canonicalize()?
    };
    let (parent, name) = beneath::split(&src)?;
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    if let Some(p) = dst.parent() {
        std::fs::create_dir_all(p)?;
    }
    copy_named(&beneath::open_root(parent)?, name, &src, dst, budget, keep, 0)
}

/// Copies the entry `name` of `dir` (shown as `src`) to `dst`. Below the top, `keep` decides.
fn copy_named(
    dir: &OwnedFd,
    name: &OsStr,
    src: &Path,
    dst: &Path,
    budget: &mut CopyBudget,
    keep: &dyn Fn(&Path, &std::fs::Metadata) -> bool,
    depth: usize,
) -> std::io::Result<()> {
    let meta = beneath::entry_meta(dir, name)?;
    if depth > 0 && !keep(src, &meta) {
        return Ok(());
    }
    charge(budget, &meta, src)?;
    let kind = meta.file_type();
    if kind.is_dir() {
        if depth >= MAX_COPY_DEPTH {
            return Err(std::io::Error::other(format!(
                "{}: folders nested deeper than {MAX_COPY_DEPTH} levels are not copied",
                src.display()
            )));
        }
        let sub = beneath::open_dir_at(dir, name, &meta)?;
        std::fs::create_dir_all(dst)?;
        std::fs::set_permissions(dst, std::fs::Permissions::from_mode(copied_folder_mode(meta.mode())))?;
        for child in beneath::list(&sub)? {
            copy_named(
                &sub,
                &child,
                &src.join(&child),
                &dst.join(&child),
                budget,
                keep,
                depth + 1,
            )?;
        }
        Ok(())
    } else if kind.is_symlink() {
        std::os::unix::fs::symlink(beneath::read_link_at(dir, name)?, dst)
    } else if kind.is_file() {
        let from = beneath::open_file_at(dir, name, &meta)?;
        let mode = copied_file_mode(meta.mode());
        // Never written through a link at the destination; an existing file is replaced in
        // content and its bits set anew (its old setuid bit goes too).
        let mut to = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(dst)?;
        to.set_permissions(std::fs::Permissions::from_mode(mode))?;
        // At most what was charged: a file still growing cannot slip past the bound.
        std::io::copy(&mut std::io::Read::take(from, meta.len()), &mut to)?;
        to.flush()
    } else {
        // Sockets, fifos and devices are not copied.
        Ok(())
    }
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

/// Gives every entry under `root` (without following links) to `uid:gid`.
pub(crate) fn chown_tree(root: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    for entry in WalkDir::new(root).follow_links(false) {
        let entry = entry.map_err(std::io::Error::other)?;
        lchown(entry.path(), Some(uid), Some(gid))?;
    }
    Ok(())
}

/// Whether `uid` (with no supplementary groups besides `gid`) can read `path`: every
/// ancestor searchable and the path itself readable. Checked before bwrap runs as that uid, so
/// an unreadable input is a clear error rather than a silently missing file.
pub(crate) fn readable_by(path: &Path, uid: u32, gid: u32) -> bool {
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
    fn no_setuid_setgid_or_sticky_bit_survives_a_copy() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(src.join("sticky")).unwrap();
        std::fs::write(src.join("suid"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(src.join("suid"), std::fs::Permissions::from_mode(0o6755)).unwrap();
        std::fs::set_permissions(src.join("sticky"), std::fs::Permissions::from_mode(0o3777)).unwrap();
        // A destination file left from before, setuid: replaced with the bits stripped.
        let dst = d.path().join("dst");
        std::fs::create_dir_all(&dst).unwrap();
        std::fs::write(dst.join("suid"), "old").unwrap();
        std::fs::set_permissions(dst.join("suid"), std::fs::Permissions::from_mode(0o4755)).unwrap();
        copy_tree(&src, &dst).unwrap();
        let mode = |p: &str| std::fs::symlink_metadata(dst.join(p)).unwrap().mode() & 0o7777;
        assert_eq!(mode("suid"), 0o755);
        assert_eq!(mode("sticky"), 0o777);
        // SAFETY: trivial getters.
        let me = unsafe { (libc::geteuid(), libc::getegid()) };
        let m = std::fs::metadata(dst.join("suid")).unwrap();
        assert_eq!((m.uid(), m.gid()), me, "copied out as Ghostlab's user");
    }

    #[test]
    fn a_download_never_follows_a_link_in_a_folder_component() {
        let d = tempfile::tempdir().unwrap();
        let host = tempfile::tempdir().unwrap();
        std::fs::write(host.path().join("x.json"), "HOST-FILE").unwrap();
        let session = d.path().join("ws");
        std::fs::create_dir_all(session.join("deep")).unwrap();
        std::os::unix::fs::symlink(host.path(), session.join("reports")).unwrap();
        std::os::unix::fs::symlink(host.path(), session.join("deep/reports")).unwrap();
        for rel in ["reports/x.json", "deep/reports/x.json", "reports"] {
            let out = d.path().join(format!("out-{}", rel.replace('/', "-")));
            let r = copy_tree_beneath(&session, Path::new(rel), &out);
            // Copied, not linked: a link that came out as a link copied no host bytes.
            let copied = out.symlink_metadata().is_ok_and(|m| !m.file_type().is_symlink());
            let leaked = copied
                && (std::fs::read_to_string(&out).is_ok_and(|t| t.contains("HOST-FILE"))
                    || std::fs::read_to_string(out.join("x.json")).is_ok_and(|t| t.contains("HOST-FILE")));
            assert!(!leaked, "{rel}: a host file was copied out through a link ({r:?})");
        }
        // The last component a link: it comes out as a link, as before.
        let out = d.path().join("out-link");
        copy_tree_beneath(&session, Path::new("reports"), &out).unwrap();
        assert!(out.symlink_metadata().unwrap().file_type().is_symlink());
    }

    #[test]
    fn fifos_are_skipped_hard_links_copied_as_content_and_depth_bounded() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        let fifo = std::ffi::CString::new(src.join("pipe").as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let elsewhere = d.path().join("elsewhere");
        std::fs::write(&elsewhere, "shared").unwrap();
        std::fs::hard_link(&elsewhere, src.join("hard")).unwrap();
        let dst = d.path().join("dst");
        copy_tree(&src, &dst).unwrap();
        assert!(!dst.join("pipe").exists());
        std::fs::write(dst.join("hard"), "changed").unwrap();
        assert_eq!(
            std::fs::read_to_string(&elsewhere).unwrap(),
            "shared",
            "the copy is its own inode"
        );
        let mut deep = d.path().join("deep");
        for _ in 0..MAX_COPY_DEPTH + 2 {
            deep.push("d");
        }
        std::fs::create_dir_all(&deep).unwrap();
        let err = copy_tree(&d.path().join("deep"), &d.path().join("deep-out")).unwrap_err();
        assert!(err.to_string().contains("nested deeper"), "{err}");
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
