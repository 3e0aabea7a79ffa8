//! Test support: a named pipe where a test wants a file that blocks whoever opens it.

use std::path::Path;

/// Creates a FIFO at `path` (mode 0600); panics if it cannot.
pub(crate) fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().expect("a UTF-8 test path")).expect("no NUL in a test path");
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o600) },
        0,
        "mkfifo {}",
        path.display()
    );
}
