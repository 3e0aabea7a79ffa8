//! An advisory lock per folder (`flock` on `<folder>/.ghostlab-lock`) for commands that
//! read, change and write a file there: without it, 30 concurrent `dataset reject` calls each
//! read the same dataset, change one case and write it back, and all but a few changes are
//! lost. The lock is released when the guard drops or the process dies (the kernel drops
//! `flock` locks with the last descriptor), so a killed command never leaves it stuck.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// The lock file's name; `.ghostlab` names are Ghostlab's own in a state folder.
pub(crate) const LOCK_FILE: &str = ".ghostlab-lock";

/// Why a folder could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{}: cannot open the lock file: {source}", path.display())]
    Open { path: PathBuf, source: std::io::Error },
    #[error("{} is in use by another ghostlab command (lock {}); wait for it to finish", folder.display(), path.display())]
    Busy { folder: PathBuf, path: PathBuf },
    #[error("{} stayed in use by another ghostlab command for {}s (lock {}); try again when it has finished", folder.display(), waited.as_secs(), path.display())]
    StillBusy {
        folder: PathBuf,
        path: PathBuf,
        waited: std::time::Duration,
    },
    #[error("{}: cannot lock: {source}", path.display())]
    Lock { path: PathBuf, source: std::io::Error },
}

/// Holds the folder's lock until dropped.
#[derive(Debug)]
pub(crate) struct FolderLock {
    _file: std::fs::File,
    /// The lock file's identity when it is a state folder's long hold (`HELD`).
    held: Option<(u64, u64)>,
}

/// State folders this process holds for its whole run (`lock_state_folder`), by the lock
/// file's device and inode: a second `flock` from this process on another descriptor would
/// fail against its own lock, so code that must know whether the lab already holds a folder
/// asks `held_here` instead.
static HELD: std::sync::Mutex<Vec<(u64, u64)>> = std::sync::Mutex::new(Vec::new());

fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Whether this process holds `state`'s lock through `lock_state_folder`.
pub(crate) fn held_here(state: &Path) -> bool {
    identity(&state.join(LOCK_FILE)).is_some_and(|id| HELD.lock().unwrap_or_else(|p| p.into_inner()).contains(&id))
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        if let Some(id) = self.held {
            HELD.lock().unwrap_or_else(|p| p.into_inner()).retain(|h| *h != id);
        }
    }
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

/// How long a short read-modify-write step waits for a folder another command holds (a lab
/// session holds its state folder for as long as it runs).
pub(crate) const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Waits for the folder's exclusive lock (for short read-modify-write steps), at most
/// `LOCK_WAIT`: a command never hangs behind a long one.
pub(crate) fn lock_folder(folder: &Path) -> Result<FolderLock, LockError> {
    lock_folder_within(folder, LOCK_WAIT)
}

/// Waits at most `wait` for the folder's exclusive lock.
pub(crate) fn lock_folder_within(folder: &Path, wait: std::time::Duration) -> Result<FolderLock, LockError> {
    let (file, path) = open(folder)?;
    let started = std::time::Instant::now();
    loop {
        match flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
            Ok(()) => {
                return Ok(FolderLock {
                    _file: file,
                    held: None,
                });
            }
            Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => {
                if started.elapsed() >= wait {
                    return Err(LockError::StillBusy {
                        folder: folder.to_path_buf(),
                        path,
                        waited: wait,
                    });
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(source) => return Err(LockError::Lock { path, source }),
        }
    }
}

/// Takes the exclusive lock of a state folder for a command that writes there for a long
/// time (the lab, `generate`, `profile`), creating the folder first; says at once when
/// another command holds it.
pub(crate) fn lock_state_folder(state: &Path) -> Result<FolderLock, LockError> {
    std::fs::create_dir_all(state).map_err(|source| LockError::Open {
        path: state.join(LOCK_FILE),
        source,
    })?;
    let mut lock = try_lock_folder(state)?;
    if let Some(id) = identity(&state.join(LOCK_FILE)) {
        HELD.lock().unwrap_or_else(|p| p.into_inner()).push(id);
        lock.held = Some(id);
    }
    Ok(lock)
}

/// Takes the folder's exclusive lock or says at once that another command holds it (for
/// long work that must not run twice, such as resuming a run).
pub(crate) fn try_lock_folder(folder: &Path) -> Result<FolderLock, LockError> {
    let (file, path) = open(folder)?;
    match flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
        Ok(()) => Ok(FolderLock {
            _file: file,
            held: None,
        }),
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

    #[test]
    fn a_waiter_gives_up_after_its_bound_with_the_folder_named() {
        let dir = tempfile::tempdir().unwrap();
        let _held = lock_state_folder(&dir.path().join("state")).unwrap();
        let e = lock_folder_within(&dir.path().join("state"), std::time::Duration::from_millis(100)).unwrap_err();
        assert!(matches!(e, LockError::StillBusy { .. }), "{e}");
        assert!(e.to_string().contains("state"), "{e}");
        // A state folder that cannot be made is an error naming it, not a panic.
        let file = dir.path().join("plain-file");
        std::fs::write(&file, "x").unwrap();
        let e = lock_state_folder(&file.join("state")).unwrap_err();
        assert!(e.to_string().contains("plain-file"), "{e}");
    }
}
