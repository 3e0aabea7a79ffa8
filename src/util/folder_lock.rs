//! An advisory lock per folder (`flock` on `<folder>/.ghostlab-lock`) for commands that
//! read, change and write a file there: without it, 30 concurrent `dataset reject` calls each
//! read the same dataset, change one case and write it back, and all but a few changes are
//! lost. The lock is released when the guard drops or the process dies (the kernel drops
//! `flock` locks with the last descriptor), so a killed command never leaves it stuck.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// The lock file's name; `.ghostlab` names are Ghostlab's own in a state folder.
pub const LOCK_FILE: &str = ".ghostlab-lock";

/// Why a folder could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{}: cannot open the lock file: {source}", path.display())]
    Open { path: PathBuf, source: std::io::Error },
    #[error("{} is in use by another ghostlab command (lock {}); wait for it to finish", folder.display(), path.display())]
    Busy { folder: PathBuf, path: PathBuf },
    #[error("{}: cannot lock: {source}", path.display())]
    Lock { path: PathBuf, source: std::io::Error },
}

/// Holds the folder's lock until dropped.
#[derive(Debug)]
pub struct FolderLock {
    _file: std::fs::File,
}

fn open(folder: &Path) -> Result<(std::fs::File, PathBuf), LockError> {
    let path = folder.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|source| LockError::Open {
            path: path.clone(),
            source,
        })?;
    Ok((file, path))
}

fn flock(file: &std::fs::File, op: libc::c_int) -> std::io::Result<()> {
    loop {
        // SAFETY: flock on a descriptor this function's caller owns for the call's duration.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Waits for the folder's exclusive lock (for short read-modify-write steps).
pub fn lock_folder(folder: &Path) -> Result<FolderLock, LockError> {
    let (file, path) = open(folder)?;
    flock(&file, libc::LOCK_EX).map_err(|source| LockError::Lock { path, source })?;
    Ok(FolderLock { _file: file })
}

/// Takes the folder's exclusive lock or says at once that another command holds it (for
/// long work that must not run twice, such as resuming a run).
pub fn try_lock_folder(folder: &Path) -> Result<FolderLock, LockError> {
    let (file, path) = open(folder)?;
    match flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
        Ok(()) => Ok(FolderLock { _file: file }),
        Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => Err(LockError::Busy {
            folder: folder.to_path_buf(),
            path,
        }),
        Err(source) => Err(LockError::Lock { path, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_makes_try_fail_and_a_waiter_proceed_after_release() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock_folder(dir.path()).unwrap();
        let e = try_lock_folder(dir.path()).unwrap_err();
        assert!(matches!(e, LockError::Busy { .. }), "{e}");
        assert!(e.to_string().contains("in use by another ghostlab command"));
        let d = dir.path().to_path_buf();
        let waiter = std::thread::spawn(move || lock_folder(&d).map(|_| ()));
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(!waiter.is_finished(), "the waiter waits while the lock is held");
        drop(held);
        waiter.join().unwrap().unwrap();
        try_lock_folder(dir.path()).unwrap();
    }
}
