//! Reading what a notified caller passed by pointer (a socket address, a program's argv) from
//! `/proc/PID/mem`. Ghostlab may read it: the caller is its own descendant, under its uid or,
//! as root, under the sandbox user. Every read is bounded.

use std::os::unix::fs::FileExt;

/// At most this many argv entries are read; the rest are counted as cut.
pub const MAX_ARGS: usize = 256;
/// At most this many bytes of one string are read.
pub const MAX_STRING: usize = 4096;

/// Why a caller's memory could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The pointer is not the caller's: the kernel would fail the call with EFAULT.
    BadAddress,
    /// The caller is gone (it died or was interrupted).
    Gone,
    /// Ghostlab may not read it (Yama `ptrace_scope`, an LSM): the watch is blind.
    NotAllowed(String),
}

impl ReadError {
    pub fn of(pid: u32, e: &std::io::Error) -> ReadError {
        if blinded() {
            return ReadError::NotAllowed(format!("cannot read /proc/{pid}/mem: permission denied (test hook)"));
        }
        match e.raw_os_error() {
            Some(libc::EACCES | libc::EPERM) => ReadError::NotAllowed(format!(
                "cannot read /proc/{pid}/mem: {e} (Yama ptrace_scope or a security module forbids it)"
            )),
            Some(libc::ENOENT | libc::ESRCH) => ReadError::Gone,
            _ => ReadError::BadAddress,
        }
    }
}

/// With the `test-hooks` feature, `GHOSTLAB_TEST_WATCH_BLIND=1` makes every read fail as a
/// forbidding security module would: how tests reach the blind-watch path on a machine
/// without one. Never in a release build.
fn blinded() -> bool {
    cfg!(feature = "test-hooks") && std::env::var_os("GHOSTLAB_TEST_WATCH_BLIND").is_some_and(|v| v == "1")
}

/// Reads up to `len` bytes at `addr` of process `pid`.
pub fn read_bytes(pid: u32, addr: u64, len: usize) -> Result<Vec<u8>, ReadError> {
    let f = open(pid)?;
    let mut buf = vec![0u8; len];
    let n = f.read_at(&mut buf, addr).map_err(|e| ReadError::of(pid, &e))?;
    buf.truncate(n);
    Ok(buf)
}

/// A NUL-terminated string at `addr`, cut at [`MAX_STRING`] bytes (lossy UTF-8).
pub fn read_c_string(mem: &std::fs::File, addr: u64) -> std::io::Result<String> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 256];
    while out.len() < MAX_STRING {
        let n = mem.read_at(&mut chunk, addr + out.len() as u64)?;
        if n == 0 {
            break;
        }
        match chunk[..n].iter().position(|b| *b == 0) {
            Some(end) => {
                out.extend_from_slice(&chunk[..end]);
                break;
            }
            None => out.extend_from_slice(&chunk[..n]),
        }
    }
    out.truncate(MAX_STRING);
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The NULL-terminated array of string pointers at `addr` (an argv), at most [`MAX_ARGS`].
pub fn read_string_array(mem: &std::fs::File, addr: u64) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    if addr == 0 {
        return Ok(out);
    }
    let width = std::mem::size_of::<u64>() as u64;
    for i in 0..MAX_ARGS as u64 {
        let mut ptr = [0u8; 8];
        if mem.read_at(&mut ptr, addr + i * width)? < 8 {
            break;
        }
        let p = u64::from_ne_bytes(ptr);
        if p == 0 {
            break;
        }
        out.push(read_c_string(mem, p)?);
    }
    Ok(out)
}

/// Opens the memory of `pid` for [`read_c_string`].
pub fn open(pid: u32) -> Result<std::fs::File, ReadError> {
    if blinded() {
        return Err(ReadError::of(pid, &std::io::Error::from_raw_os_error(libc::EACCES)));
    }
    std::fs::File::open(format!("/proc/{pid}/mem")).map_err(|e| ReadError::of(pid, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process_s_own_strings_and_arrays() {
        let a = std::ffi::CString::new("git").unwrap();
        let b = std::ffi::CString::new("push --force").unwrap();
        let argv = [a.as_ptr(), b.as_ptr(), std::ptr::null()];
        let mem = open(std::process::id()).unwrap();
        let got = read_string_array(&mem, argv.as_ptr() as u64).unwrap();
        assert_eq!(got, vec!["git".to_string(), "push --force".to_string()]);
        let long = std::ffi::CString::new("x".repeat(MAX_STRING * 2)).unwrap();
        let s = read_c_string(&mem, long.as_ptr() as u64).unwrap();
        assert_eq!(s.len(), MAX_STRING);
        assert!(read_string_array(&mem, 0).unwrap().is_empty());
    }

    #[test]
    fn a_bad_pointer_a_gone_process_and_a_forbidden_read_are_told_apart() {
        let me = std::process::id();
        assert_eq!(
            read_bytes(me, 8, 16),
            Err(ReadError::BadAddress),
            "page zero is never mapped"
        );
        assert_eq!(read_bytes(u32::MAX - 1, 0x1000, 16), Err(ReadError::Gone));
        let denied = std::io::Error::from_raw_os_error(libc::EACCES);
        assert!(matches!(ReadError::of(me, &denied), ReadError::NotAllowed(why) if why.contains("ptrace_scope")));
        let eperm = std::io::Error::from_raw_os_error(libc::EPERM);
        assert!(matches!(ReadError::of(me, &eperm), ReadError::NotAllowed(_)));
    }
}
