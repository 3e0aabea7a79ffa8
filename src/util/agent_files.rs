//! Reading a file the agent left in its workspace. Such a file is hostile input: it may be a
//! FIFO (a blocking open hangs the run), a 3 GiB sparse file, or a symbolic link to the host
//! (`notes.txt -> /home/user/.ssh/id_ed25519`, `big -> /dev/zero`). A check that follows the
//! link reads the host on the agent's behalf. So: the path stays inside the tree, no component
//! is a link, the last one is opened with `O_NOFOLLOW | O_NONBLOCK`, and only a regular file of
//! bounded size is read.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path};

/// Why a file of the agent's tree was not read, in words for a check's detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeReadError {
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
pub fn read_in_tree(root: &Path, rel: &str, max: u64) -> Result<Vec<u8>, TreeReadError> {
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
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rel_path.components().collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let meta = match std::fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(TreeReadError::Missing),
            Err(e) => return Err(TreeReadError::Refused(format!("cannot be read: {e}"))),
        };
        if meta.file_type().is_symlink() {
            let which = if i + 1 == parts.len() { "is" } else { "lies under" };
            return Err(TreeReadError::Refused(format!(
                "{which} a symbolic link, which is not followed"
            )));
        }
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(&at)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => TreeReadError::Refused("is a symbolic link, which is not followed".into()),
            _ if e.kind() == std::io::ErrorKind::NotFound => TreeReadError::Missing,
            _ => TreeReadError::Refused(format!("cannot be read: {e}")),
        })?;
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

/// Like `read_in_tree`, as text (lossy: a check looks for words, not encodings).
pub fn read_text_in_tree(root: &Path, rel: &str, max: u64) -> Result<String, TreeReadError> {
    read_in_tree(root, rel, max).map(|b| String::from_utf8_lossy(&b).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

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
