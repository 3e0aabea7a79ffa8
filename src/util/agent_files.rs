//! Reading a file the agent left in its workspace. Such a file is hostile input: it may be a
//! FIFO (a blocking open hangs the run), a 3 GiB sparse file, or a symbolic link to the host
//! (`notes.txt -> /home/user/.ssh/id_ed25519`, `big -> /dev/zero`). A check that follows the
//! link reads the host on the agent's behalf. So: the path stays inside the tree, no component
//! is a link, the last one is opened with `O_NOFOLLOW | O_NONBLOCK`, and only a regular file of
//! bounded size is read.

use std::io::Read;
use std::path::{Component, Path};

/// Why a file of the agent's tree was not read, in words for a check's detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TreeReadError {
    Missing,
    /// Present but not read: a link, a special file, too large, outside the tree.
    Refused(String),
}

impl std::fmt::Display for TreeReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeReadError::Missing => f.write_str("not in the final workspace"),
            TreeReadError::Refused(why) => f.write_str(why),
        }
    }
}

/// Reads `rel` under `root` as bytes, at most `max` of them, following no link.
pub(crate) fn read_in_tree(root: &Path, rel: &str, max: u64) -> Result<Vec<u8>, TreeReadError> {
    let rel_path = Path::new(rel);
    if rel.is_empty()
        || !rel_path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(TreeReadError::Refused(format!(
            "{rel:?} leaves the workspace; only paths inside it are read"
        )));
    }
    // One component at a time from a descriptor of the root, each opened with O_NOFOLLOW: a
    // link swapped in after a check cannot redirect the walk (the agent may still be running).
    let parts: Vec<_> = rel_path
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    let mut dir = open_at(None, root.as_os_str(), libc::O_DIRECTORY)?;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let flags = if last {
            libc::O_NONBLOCK | libc::O_NOCTTY
        } else {
            libc::O_DIRECTORY
        };
        dir = open_at(Some(&dir), part.as_os_str(), flags).map_err(|e| match e {
            TreeReadError::Refused(why) if !last && why.contains("symbolic link") => {
                TreeReadError::Refused("lies under a symbolic link, which is not followed".into())
            }
            other => other,
        })?;
    }
    let file = dir;
    let meta = file
        .metadata()
        .map_err(|e| TreeReadError::Refused(format!("cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(TreeReadError::Refused("is not a regular file; not read".into()));
    }
    if meta.len() > max {
        return Err(TreeReadError::Refused(format!(
            "is {} bytes, over the {max}-byte limit for a file check",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| TreeReadError::Refused(format!("cannot be read: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(TreeReadError::Refused(format!(
            "grew past {max} bytes while being read"
        )));
    }
    Ok(bytes)
}

/// Opens `name` relative to `dir` (or as a path when `dir` is `None`) with O_NOFOLLOW and
/// O_CLOEXEC plus `flags`, read-only.
fn open_at(
    dir: Option<&std::fs::File>,
    name: &std::ffi::OsStr,
    flags: libc::c_int,
) -> Result<std::fs::File, TreeReadError> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    let c =
        std::ffi::CString::new(name.as_bytes()).map_err(|_| TreeReadError::Refused("has a NUL in its name".into()))?;
    let base = dir.map_or(libc::AT_FDCWD, |d| d.as_raw_fd());
    let follow = if dir.is_some() { libc::O_NOFOLLOW } else { 0 };
    // SAFETY: openat with a valid C string and a descriptor we own (or AT_FDCWD).
    let fd = unsafe { libc::openat(base, c.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC | follow | flags) };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::ELOOP) => TreeReadError::Refused("is a symbolic link, which is not followed".into()),
            Some(libc::ENOTDIR) => TreeReadError::Refused("is a symbolic link or not a folder; not followed".into()),
            _ if e.kind() == std::io::ErrorKind::NotFound => TreeReadError::Missing,
            _ => TreeReadError::Refused(format!("cannot be read: {e}")),
        });
    }
    // SAFETY: fd was just returned by openat and is owned by nothing else.
    Ok(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// Like `read_in_tree`, as text (lossy: a check looks for words, not encodings).
pub(crate) fn read_text_in_tree(root: &Path, rel: &str, max: u64) -> Result<String, TreeReadError> {
    read_in_tree(root, rel, max).map(|b| String::from_utf8_lossy(&b).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::test_fifo::mkfifo;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_plain_file_is_read_and_a_missing_one_says_so() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("src")).unwrap();
        std::fs::write(d.path().join("src/a.rs"), "fn a() {}").unwrap();
        assert_eq!(read_text_in_tree(d.path(), "src/a.rs", 100).unwrap(), "fn a() {}");
        assert_eq!(read_text_in_tree(d.path(), "./src/a.rs", 100).unwrap(), "fn a() {}");
        assert_eq!(read_in_tree(d.path(), "src/b.rs", 100), Err(TreeReadError::Missing));
    }

    #[test]
    fn links_are_never_followed_at_any_depth() {
        let host = tempfile::tempdir().unwrap();
        std::fs::write(host.path().join("id_ed25519"), "HOST-KEY").unwrap();
        let d = tempfile::tempdir().unwrap();
        symlink(host.path().join("id_ed25519"), d.path().join("notes.txt")).unwrap();
        symlink(host.path(), d.path().join("dir")).unwrap();
        symlink("/dev/zero", d.path().join("zero")).unwrap();
        for rel in ["notes.txt", "dir/id_ed25519", "zero"] {
            let err = read_in_tree(d.path(), rel, 1 << 20).unwrap_err();
            assert!(err.to_string().contains("symbolic link"), "{rel}: {err}");
        }
    }

    #[test]
    fn special_files_huge_files_and_escapes_are_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        mkfifo(&d.path().join("pipe"));
        let big = std::fs::File::create(d.path().join("big")).unwrap();
        big.set_len(3 << 30).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let root = d.path().to_path_buf();
        std::thread::spawn(move || {
            let out: Vec<_> = ["pipe", "big", "../etc/passwd", "/etc/passwd", ""]
                .iter()
                .map(|rel| read_in_tree(&root, rel, 1 << 20))
                .collect();
            let _ = tx.send(out);
        });
        let out = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a special file blocked the reader");
        for r in out {
            assert!(matches!(r, Err(TreeReadError::Refused(_))), "{r:?}");
        }
    }
}
