//! Storage a walk of the session's folders cannot see, measured from the host through the
//! session's live processes (`procs::session_pids`):
//!
//! - **files deleted while still open**: a process that writes into an unlinked file keeps the
//!   blocks on the host disk while no folder lists them. Without root the bounded folders are
//!   plain host folders, so such files are counted from `/proc/<pid>/fd` (a `stat` through the
//!   descriptor: no links left, on the device of a bounded folder). As root those folders are
//!   tmpfs mounts whose size already counts them.
//! - **the file count of each command's /tmp and /dev/shm**: bubblewrap's `--tmpfs` takes a
//!   size but no inode count, and inodes cost kernel memory that `size=` does not count. Each
//!   command's tmpfs is read through `/proc/<pid>/root` of a process inside (`statvfs`: files
//!   in use), once per PID namespace.
//!
//! A process whose descriptors or root cannot be read is skipped: as the session's owner (or
//! root) Ghostlab can read every process of the session, so this only happens to one that has
//! just exited.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Files, folders and links one command's /tmp or /dev/shm may hold: one per 16 KiB of its
/// size, the rule the harness's own tmpfs mounts follow (`scratch::mount_tmpfs`).
pub(crate) const TMPFS_FILES: u64 = super::bwrap::TMPFS_BYTES / (16 << 10);

/// Bytes held by files that have no name left but are open in one of `pids`, on one of the
/// devices `devs` (each file counted once, however many descriptors hold it).
pub(crate) fn deleted_open_bytes(pids: &[i32], devs: &[u64]) -> u64 {
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    let mut total = 0u64;
    for pid in pids {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.filter_map(Result::ok) {
            // stat through the magic link: the open file itself, named or not.
            let Ok(meta) = std::fs::metadata(fd.path()) else {
                continue;
            };
            if meta.is_file()
                && meta.nlink() == 0
                && devs.contains(&meta.dev())
                && seen.insert((meta.dev(), meta.ino()))
            {
                total = total.saturating_add(meta.blocks().saturating_mul(512));
            }
        }
    }
    total
}

/// The first of `folders` (paths inside the sandbox: `/tmp`, `/dev/shm`) holding more than
/// `bound` files in the root of any of `pids` in another PID namespace than Ghostlab's, as the
/// reason; each PID namespace is read once.
pub(crate) fn tmpfs_files_over(pids: &[i32], folders: &[&str], bound: u64) -> Option<String> {
    // The launchers live in Ghostlab's own namespace with the host's root: never measured.
    let mut namespaces: HashSet<u64> = std::fs::metadata("/proc/self/ns/pid")
        .map(|m| m.ino())
        .into_iter()
        .collect();
    // A namespace's init still setting up (before its pivot_root) has the host's root too.
    let host_root = std::fs::metadata("/").map(|m| (m.dev(), m.ino())).ok();
    for pid in pids {
        let Ok(ns) = std::fs::metadata(format!("/proc/{pid}/ns/pid")) else {
            continue;
        };
        let root = std::fs::metadata(format!("/proc/{pid}/root"))
            .map(|m| (m.dev(), m.ino()))
            .ok();
        if root.is_none() || root == host_root || namespaces.contains(&ns.ino()) {
            continue;
        }
        namespaces.insert(ns.ino());
        for folder in folders {
            let path = format!("/proc/{pid}/root{folder}");
            if let Some(used) = files_in_use(Path::new(&path))
                && used > bound
            {
                return Some(format!("{folder} exceeded {bound} files ({used} in use)"));
            }
        }
    }
    None
}

/// Files, folders and links in use on the filesystem at `path` (`statvfs`).
fn files_in_use(path: &Path) -> Option<u64> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: statvfs(3) into a zeroed struct with a NUL-terminated path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some((st.f_files as u64).saturating_sub(st.f_ffree as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_deleted_while_open_is_counted_once_and_a_named_one_is_not() {
        let d = tempfile::tempdir().unwrap();
        let dev = std::fs::metadata(d.path()).unwrap().dev();
        // A child holds a deleted 3 MiB file open on two descriptors, and a named file.
        let script = format!(
            "exec 3>'{0}/gone'; head -c 3145728 /dev/zero >&3; exec 4<'{0}/gone'; rm '{0}/gone'; \
             head -c 2097152 /dev/zero > '{0}/kept'; exec 5<'{0}/kept'; echo ready; sleep 30",
            d.path().display()
        );
        let mut child = std::process::Command::new("sh")
            .args(["-c", &script])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
        let pid = child.id() as i32;
        let counted = deleted_open_bytes(&[pid, pid], &[dev]);
        let other_device = deleted_open_bytes(&[pid], &[dev.wrapping_add(1)]);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(line.trim(), "ready");
        assert!((3 << 20..4 << 20).contains(&counted), "{counted}");
        assert_eq!(other_device, 0, "only the bounded folders' devices count");
        assert_eq!(deleted_open_bytes(&[], &[dev]), 0);
    }

    #[test]
    fn files_in_use_are_counted_and_the_host_namespace_is_never_measured() {
        let me = std::process::id() as i32;
        let d = tempfile::tempdir().unwrap();
        let before = files_in_use(d.path()).expect("statvfs of a temp folder");
        for i in 0..50 {
            std::fs::File::create(d.path().join(i.to_string()))
                .unwrap()
                .write_all(b"x")
                .unwrap();
        }
        let after = files_in_use(d.path()).unwrap();
        // A shared filesystem may change meanwhile; 50 new files are at least visible as growth
        // on any filesystem that counts inodes (tmpfs, ext4, overlay on either).
        if before > 0 {
            assert!(after >= before, "{before} -> {after}");
        }
        let inside = d.path().display().to_string();
        // A process of Ghostlab's own PID namespace (a launcher) has the host's root: its
        // folders are the host's, never a command's tmpfs.
        assert_eq!(tmpfs_files_over(&[me], &[inside.as_str()], 0), None);
        assert_eq!(tmpfs_files_over(&[], &["/tmp"], 0), None);
    }
}
