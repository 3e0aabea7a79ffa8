//! While the TUI owns the screen, file descriptor 2 points at a log file, so log lines and the
//! stderr of child processes (MCP servers, the agent) cannot draw over it. Restored on drop and
//! by the panic hook, before the panic message is printed.

use std::fs::OpenOptions;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicI32, Ordering};

/// The original stderr, duplicated while redirected; -1 when not redirected.
static SAVED: AtomicI32 = AtomicI32::new(-1);

/// Holds the redirection; dropping it puts the terminal's stderr back.
pub(crate) struct StderrToFile(());

impl StderrToFile {
    /// Appends fd 2 to `path` until dropped.
    pub(crate) fn redirect(path: &Path) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        // SAFETY: dup/dup2/close on descriptors this process owns; failure is checked.
        let saved = unsafe { libc::dup(2) };
        if saved < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if unsafe { libc::dup2(file.as_raw_fd(), 2) } < 0 {
            let err = std::io::Error::last_os_error();
            unsafe { libc::close(saved) };
            return Err(err);
        }
        let previous = SAVED.swap(saved, Ordering::SeqCst);
        if previous >= 0 {
            // A nested redirect keeps the outermost original.
            SAVED.store(previous, Ordering::SeqCst);
            unsafe { libc::close(saved) };
        }
        Ok(StderrToFile(()))
    }
}

impl Drop for StderrToFile {
    fn drop(&mut self) {
        restore_stderr();
    }
}

/// Puts the original stderr back; safe to call any number of times.
pub(crate) fn restore_stderr() {
    let fd = SAVED.swap(-1, Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: `fd` is the duplicate made in `redirect`, owned here.
        unsafe {
            libc::dup2(fd, 2);
            libc::close(fd);
        }
    }
}
