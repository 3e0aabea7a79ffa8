//! Reading what a notified caller passed by pointer (a socket address, a program's argv) with
//! `process_vm_readv`. Ghostlab may read it: the caller is its own descendant, under its uid
//! or, as root, under the sandbox user, in a user namespace Ghostlab owns. Not through
//! `/proc/PID/mem`: a process that makes itself non-dumpable turns its /proc files over to
//! root, which would blind a Ghostlab that is not root; the ptrace check behind
//! `process_vm_readv` still lets the namespace's owner in. Every read is bounded.

/// At most this many argv entries are read; the rest are counted as cut.
pub(crate) const MAX_ARGS: usize = 256;
/// At most this many bytes of one string are read.
pub(crate) const MAX_STRING: usize = 4096;

/// Why a caller's memory could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// The pointer is not the caller's: the kernel would fail the call with EFAULT.
    BadAddress,
    /// The caller is gone (it died or was interrupted).
    Gone,
    /// Ghostlab may not read it (Yama `ptrace_scope`, an LSM): the watch is blind.
    NotAllowed(String),
}

impl ReadError {
    pub(crate) fn of(pid: u32, e: &std::io::Error) -> ReadError {
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
/// without one.
#[cfg(feature = "test-hooks")]
fn blinded() -> bool {
    std::env::var_os("GHOSTLAB_TEST_WATCH_BLIND").is_some_and(|v| v == "1")
}

/// A build without the `test-hooks` feature has no way to blind the watch (not even the
/// variable's name is in it: scripts/check-no-test-hooks.sh).
#[cfg(not(feature = "test-hooks"))]
fn blinded() -> bool {
    false
}

/// The memory of one process, read with `process_vm_readv`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Memory {
    pid: u32,
}

impl Memory {
    /// Reads into `buf` from `addr`, never across a page boundary (so a short read means the
    /// next page is not mapped); returns how many bytes came.
    fn read_at(&self, buf: &mut [u8], addr: u64) -> std::io::Result<usize> {
        let page = 4096u64;
        let len = buf.len().min((page - addr % page) as usize);
        let local = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: len,
        };
        let remote = libc::iovec {
            iov_base: addr as *mut libc::c_void,
            iov_len: len,
        };
        // SAFETY: one local iovec into `buf` (len bytes at most) and one remote range the
        // kernel checks itself.
        let n = unsafe { libc::process_vm_readv(self.pid as libc::pid_t, &local, 1, &remote, 1, 0) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(n as usize)
    }
}

/// Reads up to `len` bytes at `addr` of process `pid`.
pub(crate) fn read_bytes(pid: u32, addr: u64, len: usize) -> Result<Vec<u8>, ReadError> {
    let mem = open(pid)?;
    let mut buf = vec![0u8; len];
    let mut got = 0;
    while got < len {
        match mem.read_at(&mut buf[got..], addr + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if got == 0 => return Err(ReadError::of(pid, &e)),
            Err(_) => break,
        }
    }
    buf.truncate(got);
    Ok(buf)
}

/// What was read, and whether it was cut at a bound (then not the whole of what ran).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Read<T> {
    pub(crate) value: T,
    pub(crate) cut: bool,
}

/// A NUL-terminated string at `addr`, cut at [`MAX_STRING`] bytes (lossy UTF-8).
pub(crate) fn read_c_string(mem: &Memory, addr: u64) -> std::io::Result<Read<String>> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 256];
    let mut ended = false;
    while out.len() < MAX_STRING {
        let n = mem.read_at(&mut chunk, addr + out.len() as u64)?;
        if n == 0 {
            ended = true;
            break;
        }
        match chunk[..n].iter().position(|b| *b == 0) {
            Some(end) => {
                out.extend_from_slice(&chunk[..end]);
                ended = true;
                break;
            }
            None => out.extend_from_slice(&chunk[..n]),
        }
    }
    let cut = !ended || out.len() > MAX_STRING;
    out.truncate(MAX_STRING);
    Ok(Read {
        value: String::from_utf8_lossy(&out).into_owned(),
        cut,
    })
}

/// The NULL-terminated array of string pointers at `addr` (an argv), at most [`MAX_ARGS`].
pub(crate) fn read_string_array(mem: &Memory, addr: u64) -> std::io::Result<Read<Vec<String>>> {
    if addr == 0 {
        return Ok(Read {
            value: Vec::new(),
            cut: false,
        });
    }
    let mut out: Vec<(String, bool)> = Vec::new();
    let width = std::mem::size_of::<u64>() as u64;
    let mut cut = true;
    for i in 0..MAX_ARGS as u64 {
        let mut ptr = [0u8; 8];
        let at = addr + i * width;
        let mut got = mem.read_at(&mut ptr, at)?;
        if got > 0 && got < 8 {
            got += mem.read_at(&mut ptr[got..], at + got as u64)?;
        }
        if got < 8 {
            cut = false;
            break;
        }
        let p = u64::from_ne_bytes(ptr);
        if p == 0 {
            cut = false;
            break;
        }
        let s = read_c_string(mem, p)?;
        out.push((s.value, s.cut));
    }
    let strings_cut = out.iter().any(|(_, c)| *c);
    Ok(Read {
        value: out.into_iter().map(|(s, _)| s).collect(),
        cut: cut || strings_cut,
    })
}

/// The memory of `pid`, for [`read_c_string`] and [`read_string_array`].
pub(crate) fn open(pid: u32) -> Result<Memory, ReadError> {
    if blinded() {
        return Err(ReadError::of(pid, &std::io::Error::from_raw_os_error(libc::EACCES)));
    }
    Ok(Memory { pid })
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
        assert_eq!(got.value, vec!["git".to_string(), "push --force".to_string()]);
        assert!(!got.cut);
        let long = std::ffi::CString::new("x".repeat(MAX_STRING * 2)).unwrap();
        let s = read_c_string(&mem, long.as_ptr() as u64).unwrap();
        assert_eq!(s.value.len(), MAX_STRING);
        assert!(s.cut, "a string past the bound says so");
        let exact = std::ffi::CString::new("y".repeat(MAX_STRING - 1)).unwrap();
        assert!(!read_c_string(&mem, exact.as_ptr() as u64).unwrap().cut);
        assert!(read_string_array(&mem, 0).unwrap().value.is_empty());
        // More arguments than are read: cut, so a rule cannot be cleared on what was kept.
        let many: Vec<std::ffi::CString> = (0..MAX_ARGS + 5)
            .map(|i| std::ffi::CString::new(format!("a{i}")).unwrap())
            .collect();
        let mut ptrs: Vec<*const libc::c_char> = many.iter().map(|c| c.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        let got = read_string_array(&mem, ptrs.as_ptr() as u64).unwrap();
        assert_eq!(got.value.len(), MAX_ARGS);
        assert!(got.cut);
        let long_arg = [a.as_ptr(), long.as_ptr(), std::ptr::null()];
        assert!(read_string_array(&mem, long_arg.as_ptr() as u64).unwrap().cut);
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
