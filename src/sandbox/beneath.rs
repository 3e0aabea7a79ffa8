//! Reaching paths below a folder a sandboxed process could write without following its links.
//!
//! Every component below the root is opened from the descriptor of the folder above it with
//! `O_NOFOLLOW`, so a symlink the agent planted in a folder component (or swapped in after a
//! check) is refused (ELOOP/ENOTDIR) rather than followed to a host file, and a file is only
//! read when it is still the inode that was checked. The root itself is the caller's: a path
//! Ghostlab made or the user named, opened normally.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::fs::{File, Metadata};
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path};

/// How a folder below the root is opened: never through a link.
const DIR_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;

fn cstr(name: &OsStr) -> std::io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| invalid(format!("{name:?} holds a NUL byte")))
}

fn invalid(msg: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, msg)
}

fn open_raw(dir: libc::c_int, name: &OsStr, flags: libc::c_int) -> std::io::Result<OwnedFd> {
    let c = cstr(name)?;
    // SAFETY: openat(2) with a NUL-terminated name; the result is owned below.
    let fd = unsafe { libc::openat(dir, c.as_ptr(), flags, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens the folder `path` (the root: the caller vouches for its components).
pub(crate) fn open_root(path: &Path) -> std::io::Result<OwnedFd> {
    open_raw(
        libc::AT_FDCWD,
        path.as_os_str(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    )
}

/// Opens the folder `rel` below `root`, one component at a time, never through a link. `rel`
/// holds plain names only (no `..`, not absolute); an empty `rel` is the root again.
pub(crate) fn open_dir_beneath(root: &OwnedFd, rel: &Path) -> std::io::Result<OwnedFd> {
    let mut cur = root.try_clone()?;
    for c in rel.components() {
        match c {
            Component::Normal(name) => cur = open_raw(cur.as_raw_fd(), name, DIR_FLAGS)?,
            Component::CurDir => {}
            _ => return Err(invalid(format!("{}: only plain names below the root", rel.display()))),
        }
    }
    Ok(cur)
}

/// The entry `name` of `dir` itself (a link is described, not followed).
pub(crate) fn entry_meta(dir: &OwnedFd, name: &OsStr) -> std::io::Result<Metadata> {
    let fd = open_raw(dir.as_raw_fd(), name, libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC)?;
    File::from(fd).metadata()
}

/// Refuses `now` unless it is the inode `checked` described (swapped since: refused).
fn same_entry(now: &Metadata, checked: &Metadata, name: &OsStr) -> std::io::Result<()> {
    if now.dev() == checked.dev() && now.ino() == checked.ino() && now.file_type() == checked.file_type() {
        return Ok(());
    }
    Err(std::io::Error::other(format!(
        "{} changed while being copied",
        Path::new(name).display()
    )))
}

/// Opens the folder `name` of `dir`, the one `checked` described.
pub(crate) fn open_dir_at(dir: &OwnedFd, name: &OsStr, checked: &Metadata) -> std::io::Result<OwnedFd> {
    let fd = open_raw(dir.as_raw_fd(), name, DIR_FLAGS)?;
    let now = File::from(fd.try_clone()?).metadata()?;
    same_entry(&now, checked, name)?;
    Ok(fd)
}

/// Opens the regular file `name` of `dir` for reading, the one `checked` described: never a
/// link, and without blocking should a FIFO have been swapped in.
pub(crate) fn open_file_at(dir: &OwnedFd, name: &OsStr, checked: &Metadata) -> std::io::Result<File> {
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
    let file = File::from(open_raw(dir.as_raw_fd(), name, flags)?);
    let now = file.metadata()?;
    same_entry(&now, checked, name)?;
    if !now.is_file() {
        return Err(invalid(format!("{} is not a regular file", Path::new(name).display())));
    }
    Ok(file)
}

/// The target of the link `name` of `dir`.
pub(crate) fn read_link_at(dir: &OwnedFd, name: &OsStr) -> std::io::Result<OsString> {
    let c = cstr(name)?;
    let mut buf = vec![0u8; libc::PATH_MAX as usize + 1];
    // SAFETY: readlinkat(2) writes at most `buf.len()` bytes into `buf`.
    let n = unsafe { libc::readlinkat(dir.as_raw_fd(), c.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    buf.truncate(n as usize);
    Ok(OsString::from_vec(buf))
}

/// The names in the folder `dir` (without `.` and `..`), sorted.
pub(crate) fn list(dir: &OwnedFd) -> std::io::Result<Vec<OsString>> {
    // fdopendir takes the descriptor it is given; a fresh one (from "."), so its offset is
    // its own and `dir` stays open.
    let own = open_raw(dir.as_raw_fd(), OsStr::new("."), DIR_FLAGS)?;
    let raw = std::os::fd::IntoRawFd::into_raw_fd(own);
    // SAFETY: fdopendir(3) on a descriptor we own; on success the stream owns it.
    let stream = unsafe { libc::fdopendir(raw) };
    if stream.is_null() {
        let e = std::io::Error::last_os_error();
        // SAFETY: the descriptor was not taken over.
        unsafe { libc::close(raw) };
        return Err(e);
    }
    let mut names = Vec::new();
    let result = loop {
        // SAFETY: errno is thread-local; cleared so the end of the stream tells from an error.
        unsafe { *libc::__errno_location() = 0 };
        // SAFETY: readdir(3) on the open stream; the entry is valid until the next call.
        let entry = unsafe { libc::readdir(stream) };
        if entry.is_null() {
            let e = std::io::Error::last_os_error();
            break if e.raw_os_error() == Some(0) { Ok(()) } else { Err(e) };
        }
        // SAFETY: d_name is NUL-terminated within the entry.
        let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) }.to_bytes();
        if name != b"." && name != b".." {
            names.push(OsStr::from_bytes(name).to_os_string());
        }
    };
    // SAFETY: closes the stream (and its descriptor) once.
    unsafe { libc::closedir(stream) };
    result?;
    names.sort();
    Ok(names)
}

/// Reads the regular file `rel` below `root` (no link followed anywhere below the root), at
/// most `max` bytes; its permission bits come back with it.
pub(crate) fn read_beneath(root: &OwnedFd, rel: &Path, max: u64) -> std::io::Result<(Vec<u8>, u32)> {
    let (parent, name) = split(rel)?;
    let dir = open_dir_beneath(root, parent)?;
    let checked = entry_meta(&dir, name)?;
    let file = open_file_at(&dir, name, &checked)?;
    if checked.len() > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("{} is larger than {max} bytes", rel.display()),
        ));
    }
    let mut bytes = Vec::with_capacity(checked.len() as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("{} grew past {max} bytes while being read", rel.display()),
        ));
    }
    Ok((bytes, checked.mode()))
}

/// Removes the file (or link) `rel` below `root` without following a link in any folder on
/// the way: a folder the agent replaced by a link to a host folder is refused (ELOOP/ENOTDIR).
pub(crate) fn unlink_beneath(root: &Path, rel: &Path) -> std::io::Result<()> {
    let (parent, name) = split(rel)?;
    let dir = open_dir_beneath(&open_root(root)?, parent)?;
    let c = cstr(name)?;
    // SAFETY: unlinkat(2) on a NUL-terminated name in a folder we hold open; it never follows
    // the final component.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// `rel` as its folder and final name.
pub(crate) fn split(rel: &Path) -> std::io::Result<(&Path, &OsStr)> {
    match (rel.parent(), rel.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(invalid(format!("{}: no file name", rel.display()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_link_in_any_folder_component_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(outside.path().join("deep")).unwrap();
        std::fs::write(outside.path().join("deep/secret"), "host").unwrap();
        std::fs::create_dir_all(d.path().join("a")).unwrap();
        symlink(outside.path(), d.path().join("a/link")).unwrap();
        let root = open_root(d.path()).unwrap();
        for rel in ["a/link/deep/secret", "a/link/deep"] {
            let err = read_beneath(&root, Path::new(rel), 1 << 20).unwrap_err();
            let code = err.raw_os_error();
            assert!(code == Some(libc::ELOOP) || code == Some(libc::ENOTDIR), "{rel}: {err}");
        }
        // The final component a link: refused too.
        symlink(outside.path().join("deep/secret"), d.path().join("a/file")).unwrap();
        assert!(read_beneath(&root, Path::new("a/file"), 1 << 20).is_err());
        assert!(read_beneath(&root, Path::new("../x"), 1 << 20).is_err());
        let err = unlink_beneath(d.path(), Path::new("a/link/deep/secret")).unwrap_err();
        assert!(err.raw_os_error().is_some(), "{err}");
        assert!(
            outside.path().join("deep/secret").exists(),
            "a host file was removed through a link"
        );
    }

    #[test]
    fn an_entry_swapped_after_its_check_is_refused() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("f"), "checked").unwrap();
        let root = open_root(d.path()).unwrap();
        let checked = entry_meta(&root, OsStr::new("f")).unwrap();
        // Replaced by another file (a new inode) between the check and the open.
        std::fs::rename(d.path().join("f"), d.path().join("old")).unwrap();
        std::fs::write(d.path().join("f"), "swapped").unwrap();
        let err = open_file_at(&root, OsStr::new("f"), &checked).unwrap_err();
        assert!(err.to_string().contains("changed while being copied"), "{err}");
        // A FIFO swapped in: refused without blocking.
        std::fs::remove_file(d.path().join("f")).unwrap();
        let c = CString::new(d.path().join("f").as_os_str().as_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(open_file_at(&root, OsStr::new("f"), &checked).is_err());
    }

    #[test]
    fn listing_and_reading_plain_entries() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("x/y")).unwrap();
        std::fs::write(d.path().join("x/y/z"), "ok").unwrap();
        std::fs::write(d.path().join("b"), "").unwrap();
        let root = open_root(d.path()).unwrap();
        assert_eq!(list(&root).unwrap(), vec![OsString::from("b"), OsString::from("x")]);
        // Listed twice from the same descriptor: the second listing is whole too.
        assert_eq!(list(&root).unwrap().len(), 2);
        let (bytes, _) = read_beneath(&root, Path::new("x/y/z"), 2).unwrap();
        assert_eq!(bytes, b"ok");
        assert!(read_beneath(&root, Path::new("x/y/z"), 1).is_err(), "the bound holds");
        unlink_beneath(d.path(), Path::new("x/y/z")).unwrap();
        assert!(!d.path().join("x/y/z").exists());
    }
}
