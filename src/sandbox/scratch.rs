//! The session's HOME and TMPDIR: host folders the harness reads back (observed writes, the
//! staged OpenCode login, warm mode's unix socket), bounded in size so a sandboxed process
//! cannot fill the host's disk through them. The workspace copy and uploads get the same
//! treatment with their own bound (`workspace_bytes`, `workspace_files`).
//!
//! Which bound applies depends on who runs Ghostlab:
//! - **root**: each folder is a size-limited tmpfs mounted by the harness on the host
//!   (`size=N`, owned by the sandbox user). A write beyond the bound fails inside with ENOSPC;
//!   the host disk is never touched. Unmounted on delete, on signals and by the stale sweep.
//! - **not root** (cannot mount): the folders' usage is measured while commands run
//!   (`storage_watch`: a breach stops the session's processes) and after every `exec`; once
//!   over the bound the session refuses further commands with "HOME exceeded N bytes", which
//!   the case reports as INFRA_ERROR. The host disk holds at most what is written between two
//!   measurements beyond the bound (each file is still capped by RLIMIT_FSIZE).
//!
//! A failed mount as root is not silently ignored: the session falls back to the measured
//! bound and says so in its log, the same bound every non-root run has.

use std::ffi::CString;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Default size bound of HOME and of TMPDIR inside the sandbox, each.
pub(crate) const DEFAULT_SCRATCH_BYTES: u64 = 256 << 20;

/// How HOME and TMPDIR are bounded in one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScratchBound {
    /// A size-limited tmpfs per folder: writes beyond the bound fail inside.
    Tmpfs,
    /// Usage measured around each command; a session over the bound refuses to go on.
    Measured,
}

impl ScratchBound {
    /// A short description for logs and reports.
    pub(crate) fn describe(self, bytes: u64) -> String {
        match self {
            ScratchBound::Tmpfs => format!(
                "HOME and TMPDIR: size-limited tmpfs of {} MiB each; workspace and uploads: tmpfs bounded in size and entries",
                bytes >> 20
            ),
            ScratchBound::Measured => format!(
                "HOME and TMPDIR: {} MiB each, measured around every command, as are the workspace and uploads (not root: cannot mount a tmpfs)",
                bytes >> 20
            ),
        }
    }
}

/// The default bound and how it is enforced, for Step 7 and the report.
pub(crate) fn bound_summary() -> String {
    format!(
        "HOME and TMPDIR: {} MiB each (a size-limited tmpfs when Ghostlab runs as root; otherwise measured around every command)",
        DEFAULT_SCRATCH_BYTES >> 20
    )
}

/// Mounts a tmpfs of `bytes` at `dir`, owned by `owner` (mode 0700), with one inode per
/// 16 KiB of its size (at least 4096): inodes cost kernel memory that `size=` does not count.
/// Needs root.
pub(crate) fn mount_tmpfs(dir: &Path, bytes: u64, owner: (u32, u32)) -> std::io::Result<()> {
    mount_bounded(dir, bytes, (bytes / (16 << 10)).max(4096), owner)
}

/// Mounts a tmpfs of `bytes` and at most `inodes` files, folders and links at `dir`, owned by
/// `owner` (mode 0700). Needs root.
pub(crate) fn mount_bounded(dir: &Path, bytes: u64, inodes: u64, owner: (u32, u32)) -> std::io::Result<()> {
    let target = cstring(dir)?;
    let opts = CString::new(format!(
        "size={bytes},nr_inodes={inodes},mode=0700,uid={},gid={}",
        owner.0, owner.1
    ))
    .map_err(std::io::Error::other)?;
    // SAFETY: mount(2) with NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::mount(
            c"ghostlab-scratch".as_ptr(),
            target.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            opts.as_ptr().cast(),
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Detaches the Ghostlab scratch tmpfs at `dir`; true when it unmounted. Only a mount point
/// listed in /proc/self/mountinfo as a `ghostlab-scratch` tmpfs at exactly `dir`'s real path
/// is detached, never through a link (`UMOUNT_NOFOLLOW`): a stale session folder planted by
/// another user, with `home` linked to a host mount, must not detach that mount.
pub(crate) fn unmount(dir: &Path) -> bool {
    let Some(real) = scratch_mount_point(dir) else {
        return false;
    };
    let Ok(target) = cstring(&real) else { return false };
    // SAFETY: umount2(2) on a NUL-terminated path; MNT_DETACH so a process still holding a
    // file open there (it is being killed) cannot keep the mount alive.
    unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH | libc::UMOUNT_NOFOLLOW) == 0 }
}

/// Detaches every tmpfs mounted on a direct subfolder of the session folder `dir` (HOME,
/// TMPDIR, workspace, uploads, inputs, the socket folders, a scope's egress folder); a folder
/// that is no mount point is left as it is.
pub(crate) fn unmount_subfolders(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.filter_map(Result::ok) {
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            unmount(&e.path());
        }
    }
}

/// Whether `dir` is the mount point of a Ghostlab scratch tmpfs (from /proc/self/mountinfo).
pub fn is_scratch_mount(dir: &Path) -> bool {
    scratch_mount_point(dir).is_some()
}

/// `dir`'s real path when it is itself (not through a link) the mount point of a Ghostlab
/// scratch tmpfs: its folder resolved, its final name a folder, not a link.
fn scratch_mount_point(dir: &Path) -> Option<std::path::PathBuf> {
    let parent = dir.parent()?.canonicalize().ok()?;
    let real = parent.join(dir.file_name()?);
    if !std::fs::symlink_metadata(&real).ok()?.is_dir() {
        return None;
    }
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let want = real.as_os_str().as_encoded_bytes();
    info.lines()
        .any(|l| {
            let Some((left, right)) = l.split_once(" - ") else {
                return false;
            };
            let mount_point = left.split(' ').nth(4).map(unescape_mountinfo);
            let mut fs = right.split(' ');
            let (kind, source) = (fs.next(), fs.next());
            mount_point.as_deref() == Some(want) && kind == Some("tmpfs") && source == Some("ghostlab-scratch")
        })
        .then_some(real)
}

/// Mount points strictly below `dir` (its real path), from /proc/self/mountinfo; `None` when
/// the table cannot be read (then nothing may be taken as free of mounts).
pub(crate) fn mounts_below(dir: &Path) -> Option<Vec<std::path::PathBuf>> {
    use std::os::unix::ffi::OsStrExt;
    let real = dir.canonicalize().ok()?;
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut prefix = real.as_os_str().as_bytes().to_vec();
    prefix.push(b'/');
    Some(
        info.lines()
            .filter_map(|l| l.split_once(" - ")?.0.split(' ').nth(4).map(unescape_mountinfo))
            .filter(|m| m.starts_with(&prefix))
            .map(|m| std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&m)))
            .collect(),
    )
}

/// A mountinfo path with its octal escapes (`\040` for a space, ...) decoded.
fn unescape_mountinfo(field: &str) -> Vec<u8> {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| b[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                out.push(d.iter().fold(0u8, |acc, c| acc.wrapping_mul(8).wrapping_add(c - b'0')));
                i += 4;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    out
}

/// Bytes used below `dir` (allocated blocks, symlinks not followed, other mounts skipped).
pub fn usage(dir: &Path) -> u64 {
    measured_usage(dir).unwrap_or(u64::MAX)
}

/// Like `usage`, or the folder that could not be measured. A folder the sandbox made
/// unreadable (`chmod 300`: write and enter, no listing) is made readable again by its owner
/// first; one that stays unreadable cannot be measured, which the bound treats as a breach
/// rather than as empty.
pub(crate) fn measured_usage(dir: &Path) -> Result<u64, std::path::PathBuf> {
    let Ok(root) = std::fs::symlink_metadata(dir) else {
        return Ok(0);
    };
    let dev = root.dev();
    let mut total = 0u64;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::symlink_metadata(&d)
                    .map(|m| m.permissions().mode())
                    .unwrap_or(0);
                let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(mode | 0o700));
                std::fs::read_dir(&d).map_err(|_| d.clone())?
            }
            Err(_) => continue,
        };
        for e in entries.filter_map(Result::ok) {
            let Ok(m) = e.metadata() else { continue };
            total = total.saturating_add(m.blocks().saturating_mul(512));
            if m.is_dir() && m.dev() == dev {
                stack.push(e.path());
            }
        }
    }
    Ok(total)
}

/// The first of `(name, folder)` whose usage is over `bytes` (or cannot be measured), as the
/// error text.
pub(crate) fn over_bound(folders: &[(&str, &Path)], bytes: u64) -> Option<String> {
    folders.iter().find_map(|(name, dir)| match measured_usage(dir) {
        Ok(used) => (used > bytes).then(|| format!("{name} exceeded {bytes} bytes (uses {used})")),
        Err(at) => Some(format!(
            "{name} exceeded what can be measured: {} cannot be read, so its size is unknown",
            at.display()
        )),
    })
}

/// Keeps a kept session's scratch contents readable after its tmpfs goes: copies them to a
/// plain folder at the same path, as Ghostlab's files (`files::copy_tree`: no link followed,
/// no setuid, setgid or sticky bit, owned by Ghostlab's user).
pub(crate) fn preserve_then_unmount(dir: &Path) -> std::io::Result<()> {
    if !is_scratch_mount(dir) {
        return Ok(());
    }
    let saved = dir.with_extension("kept");
    super::files::copy_tree(dir, &saved)?;
    unmount(dir);
    std::fs::remove_dir(dir)?;
    std::fs::rename(&saved, dir)
}

fn cstring(p: &Path) -> std::io::Result<CString> {
    CString::new(p.as_os_str().as_encoded_bytes()).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_nested_files_and_the_bound_names_the_folder() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("a")).unwrap();
        std::fs::write(d.path().join("a/big"), vec![7u8; 1 << 20]).unwrap();
        let used = usage(d.path());
        assert!(used >= 1 << 20, "{used}");
        let err = over_bound(&[("HOME", d.path())], 4096).unwrap();
        assert!(err.starts_with("HOME exceeded 4096 bytes"), "{err}");
        assert!(over_bound(&[("HOME", d.path())], 64 << 20).is_none());
    }

    #[test]
    fn tmpfs_as_root_refuses_writes_beyond_its_size() {
        // SAFETY: trivial getter.
        if unsafe { libc::geteuid() } != 0 {
            crate::util::skip::skipped("SKIPPED: mounting a tmpfs needs root");
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let m = d.path().join("home");
        std::fs::create_dir(&m).unwrap();
        mount_tmpfs(&m, 1 << 20, (0, 0)).unwrap();
        assert!(is_scratch_mount(&m));
        let res = std::fs::write(m.join("f"), vec![1u8; 2 << 20]);
        assert!(res.is_err(), "a 2 MiB write fit a 1 MiB tmpfs");
        assert!(unmount(&m));
        assert!(!is_scratch_mount(&m));
        assert!(std::fs::read_dir(&m).unwrap().next().is_none(), "host folder untouched");
    }

    #[test]
    fn tmpfs_as_root_refuses_files_beyond_its_inodes() {
        // SAFETY: trivial getter.
        if unsafe { libc::geteuid() } != 0 {
            crate::util::skip::skipped("SKIPPED: mounting a tmpfs needs root");
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let m = d.path().join("ws");
        std::fs::create_dir(&m).unwrap();
        mount_bounded(&m, 1 << 20, 10, (0, 0)).unwrap();
        let made = (0..20)
            .take_while(|i| std::fs::write(m.join(format!("f{i}")), "").is_ok())
            .count();
        assert!(unmount(&m));
        assert!(made < 10, "{made} files in a tmpfs of 10 inodes");
    }

    #[test]
    fn mountinfo_escapes_are_decoded() {
        assert_eq!(unescape_mountinfo("/tmp/a\\040b\\011c"), b"/tmp/a b\tc");
        assert_eq!(unescape_mountinfo("/x\\9"), b"/x\\9");
    }

    #[test]
    fn only_a_ghostlab_scratch_mount_is_detached_and_never_through_a_link() {
        // SAFETY: trivial getter.
        if unsafe { libc::geteuid() } != 0 {
            crate::util::skip::skipped("SKIPPED: mounting a tmpfs needs root");
            return;
        }
        let d = tempfile::tempdir().unwrap();
        // A host mount that is not Ghostlab's (another source), and a link to it planted as
        // a session's `home`.
        let host = d.path().join("host-mount");
        std::fs::create_dir(&host).unwrap();
        let c = cstring(&host).unwrap();
        // SAFETY: mount(2) with NUL-terminated strings.
        let rc = unsafe {
            libc::mount(
                c"other".as_ptr(),
                c.as_ptr(),
                c"tmpfs".as_ptr(),
                0,
                c"size=1m".as_ptr().cast(),
            )
        };
        assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
        let still_mounted = |p: &Path| {
            let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
            info.contains(&format!(" {} ", p.display()))
        };
        assert!(!unmount(&host), "a tmpfs of another source was detached");
        let session = d.path().join("ghostlab-sandbox-agent-deadbeef-x");
        std::fs::create_dir(&session).unwrap();
        std::os::unix::fs::symlink(&host, session.join("home")).unwrap();
        assert!(!unmount(&session.join("home")));
        assert!(still_mounted(&host), "the host mount was detached through a link");
        // A Ghostlab scratch tmpfs reached through a linked name: refused too.
        let scratch = d.path().join("scratch");
        std::fs::create_dir(&scratch).unwrap();
        mount_tmpfs(&scratch, 1 << 20, (0, 0)).unwrap();
        std::os::unix::fs::symlink(&scratch, session.join("tmp")).unwrap();
        assert!(!unmount(&session.join("tmp")));
        assert!(!is_scratch_mount(&session.join("tmp")));
        assert!(still_mounted(&scratch));
        assert!(unmount(&scratch));
        // SAFETY: umount2 on a NUL-terminated path (cleanup).
        unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
    }
}
