//! The watch shim, run *inside* the sandbox as `ghostlab __network-watch --socket-fd N -- argv`:
//! it installs the watch filter (`watch_filter`) with a user-notification listener, tells
//! Ghostlab's supervisor the listener's number over the inherited unix socket `N` (the
//! supervisor takes its own copy with `pidfd_getfd`), waits until the supervisor has it, then
//! becomes `argv`. Every process `argv` starts inherits the filter.
//!
//! It fails closed: if any step fails, `argv` never runs (exit 126 with the reason).

use std::io::Error;
use std::os::fd::RawFd;
use std::os::unix::process::CommandExt;

/// The hidden subcommand's name.
pub(crate) const SUBCOMMAND: &str = "__network-watch";
/// Exit code when the watch cannot be set up (the command never ran).
pub(crate) const SETUP_FAILED: i32 = 126;

/// Sets up the watch and execs `argv`; returns only on failure.
pub(crate) fn run(socket_fd: RawFd, argv: &[String]) -> Error {
    if argv.is_empty() {
        return Error::other("no command to run under the network watch");
    }
    let listener = match install() {
        Ok(fd) => fd,
        Err(e) => return Error::new(e.kind(), format!("installing the network watch: {e}")),
    };
    if let Err(e) = send_fd(socket_fd, listener) {
        return Error::new(e.kind(), format!("handing the network watch to ghostlab: {e}"));
    }
    let mut ack = [0u8; 1];
    // SAFETY: read into a one-byte buffer from our socket.
    let n = unsafe { libc::read(socket_fd, ack.as_mut_ptr().cast(), 1) };
    if n != 1 {
        return Error::other("ghostlab did not take up the network watch");
    }
    // SAFETY: closing descriptors this process owns; the supervisor took its own copy of the
    // listener before it answered.
    unsafe {
        libc::close(listener);
        libc::close(socket_fd);
    }
    std::process::Command::new(&argv[0]).args(&argv[1..]).exec()
}

/// Installs the filter and returns its notification listener.
fn install() -> std::io::Result<RawFd> {
    let mut prog = super::watch_filter::program();
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_mut_ptr(),
    };
    // SAFETY: prctl and seccomp with a valid program that outlives the call.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(Error::last_os_error());
        }
        let fd = libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &fprog as *const libc::sock_fprog,
        );
        if fd < 0 {
            return Err(Error::last_os_error());
        }
        Ok(fd as RawFd)
    }
}

/// Tells the supervisor which descriptor number holds the listener, with a plain `write`:
/// the filter is already in force and notifies `sendmsg`, which the supervisor could not
/// answer before it has the listener, so SCM_RIGHTS cannot carry it.
pub(crate) fn send_fd(socket: RawFd, fd: RawFd) -> std::io::Result<()> {
    let bytes = fd.to_ne_bytes();
    // SAFETY: write of a 4-byte buffer to our socket.
    if unsafe { libc::write(socket, bytes.as_ptr().cast(), bytes.len()) } != bytes.len() as isize {
        return Err(Error::last_os_error());
    }
    Ok(())
}

/// Lets `socket` receive its peers' credentials: [`take_fd`] needs the sender's pid.
pub(crate) fn expect_credentials(socket: RawFd) -> std::io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: setsockopt with an int option.
    let rc = unsafe {
        libc::setsockopt(
            socket,
            libc::SOL_SOCKET,
            libc::SO_PASSCRED,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as u32,
        )
    };
    if rc != 0 {
        return Err(Error::last_os_error());
    }
    Ok(())
}

/// Receives the number [`send_fd`] wrote and takes a copy of that descriptor from the
/// sender (`pidfd_getfd`), whose pid the kernel attached (`SO_PASSCRED`, set by
/// [`expect_credentials`]) as this process's namespace sees it. `None` at end of stream.
pub(crate) fn take_fd(socket: RawFd) -> std::io::Result<Option<RawFd>> {
    let mut number = [0u8; 4];
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<libc::ucred>() as u32) } as usize;
    let mut control = vec![0u8; space];
    // SAFETY: zeroed iovec and msghdr are valid; their pointers are set below and outlive them.
    let mut iov: libc::iovec = unsafe { std::mem::zeroed() };
    iov.iov_base = number.as_mut_ptr().cast();
    iov.iov_len = number.len();
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: recvmsg into the buffers above, all the whole message at once.
    let n = unsafe { libc::recvmsg(socket, &mut msg, libc::MSG_WAITALL) };
    if n < 0 {
        return Err(Error::last_os_error());
    }
    if n == 0 {
        return Ok(None);
    }
    if n != 4 {
        return Err(Error::other("a short message from the watch shim"));
    }
    // SAFETY: reading the first cmsg of a buffer the kernel filled.
    let pid = unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() || (*cmsg).cmsg_level != libc::SOL_SOCKET || (*cmsg).cmsg_type != libc::SCM_CREDENTIALS {
            return Err(Error::other("a message without its sender's credentials"));
        }
        std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::ucred>()).pid
    };
    let fd = i32::from_ne_bytes(number);
    // SAFETY: pidfd_open and pidfd_getfd on the sender, which waits for our answer; the pidfd
    // is closed at once. A copy taken this way is close-on-exec.
    unsafe {
        let pidfd = libc::syscall(libc::SYS_pidfd_open, pid, 0) as RawFd;
        if pidfd < 0 {
            return Err(Error::last_os_error());
        }
        let got = libc::syscall(libc::SYS_pidfd_getfd, pidfd, fd, 0) as RawFd;
        let err = Error::last_os_error();
        libc::close(pidfd);
        if got < 0 {
            return Err(err);
        }
        Ok(Some(got))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd};

    #[test]
    fn a_descriptor_crosses_by_number_and_the_end_of_stream_is_none() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        expect_credentials(b.as_raw_fd()).unwrap();
        let (mut r, w) = std::os::unix::net::UnixStream::pair().unwrap();
        send_fd(a.as_raw_fd(), w.as_raw_fd()).unwrap();
        let got = take_fd(b.as_raw_fd()).unwrap().expect("a descriptor");
        assert_ne!(got, w.as_raw_fd());
        // SAFETY: a descriptor the kernel just gave this process.
        let mut passed = unsafe { std::os::unix::net::UnixStream::from_raw_fd(got) };
        passed.write_all(b"ok").unwrap();
        let mut buf = [0u8; 2];
        r.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"ok");
        drop(a);
        assert!(take_fd(b.as_raw_fd()).unwrap().is_none());
    }

    #[test]
    fn without_credentials_or_with_a_short_message_nothing_is_taken() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        send_fd(a.as_raw_fd(), 0).unwrap();
        assert!(take_fd(b.as_raw_fd()).is_err(), "no SO_PASSCRED: no pid to take from");
        let (mut a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        expect_credentials(b.as_raw_fd()).unwrap();
        a.write_all(&[1, 2]).unwrap();
        drop(a);
        assert!(take_fd(b.as_raw_fd()).is_err());
    }
}
