//! The watch shim, run *inside* the sandbox as `ghostlab __network-watch --socket-fd N -- argv`:
//! it installs the watch filter (`watch_filter`) with a user-notification listener, hands the
//! listener to Ghostlab's supervisor over the inherited unix socket `N`, waits until the
//! supervisor has it, then becomes `argv`. Every process `argv` starts inherits the filter.
//!
//! It fails closed: if any step fails, `argv` never runs (exit 126 with the reason).

use std::io::Error;
use std::os::fd::RawFd;
use std::os::unix::process::CommandExt;

/// The hidden subcommand's name.
pub const SUBCOMMAND: &str = "__network-watch";
/// Exit code when the watch cannot be set up (the command never ran).
pub const SETUP_FAILED: i32 = 126;

/// Sets up the watch and execs `argv`; returns only on failure.
pub fn run(socket_fd: RawFd, argv: &[String]) -> Error {
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
    // SAFETY: closing descriptors this process owns; the supervisor holds its own copy.
    unsafe { libc::close(listener) };
    let mut ack = [0u8; 1];
    // SAFETY: read into a one-byte buffer from our socket.
    let n = unsafe { libc::read(socket_fd, ack.as_mut_ptr().cast(), 1) };
    if n != 1 {
        return Error::other("ghostlab did not take up the network watch");
    }
    // SAFETY: as above.
    unsafe { libc::close(socket_fd) };
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

/// The buffers of a one-byte message that carries one descriptor (SCM_RIGHTS); `msg` points
/// into the others, so they are boxed and live as long as it does.
struct FdMessage {
    byte: [u8; 1],
    iov: libc::iovec,
    control: Vec<u8>,
    msg: libc::msghdr,
}

impl FdMessage {
    fn new() -> Box<FdMessage> {
        // SAFETY: CMSG_SPACE is a pure size computation.
        let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
        // SAFETY: a zeroed iovec and msghdr are valid; the pointers are set just below.
        let mut m = Box::new(FdMessage {
            byte: [1],
            iov: unsafe { std::mem::zeroed() },
            control: vec![0u8; space],
            msg: unsafe { std::mem::zeroed() },
        });
        m.iov.iov_base = m.byte.as_mut_ptr().cast();
        m.iov.iov_len = 1;
        m.msg.msg_iov = &mut m.iov;
        m.msg.msg_iovlen = 1;
        m.msg.msg_control = m.control.as_mut_ptr().cast();
        m.msg.msg_controllen = space as _;
        m
    }
}

/// Sends `fd` as SCM_RIGHTS with a one-byte payload.
pub fn send_fd(socket: RawFd, fd: RawFd) -> std::io::Result<()> {
    let m = FdMessage::new();
    // SAFETY: the control buffer holds one cmsg of the size `FdMessage` computed.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&m.msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
        if libc::sendmsg(socket, &m.msg, libc::MSG_NOSIGNAL) != 1 {
            return Err(Error::last_os_error());
        }
    }
    Ok(())
}

/// Receives one descriptor sent by [`send_fd`]; `None` at end of stream.
pub fn recv_fd(socket: RawFd) -> std::io::Result<Option<RawFd>> {
    let mut m = FdMessage::new();
    let msg = &mut m.msg;
    // SAFETY: recvmsg into the buffers above; received descriptors are close-on-exec.
    let n = unsafe { libc::recvmsg(socket, msg, libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(Error::last_os_error());
    }
    if n == 0 {
        return Ok(None);
    }
    // SAFETY: reading the first cmsg of a buffer the kernel filled.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(msg);
        if cmsg.is_null() || (*cmsg).cmsg_level != libc::SOL_SOCKET || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            return Err(Error::other("a message without a descriptor"));
        }
        Ok(Some(std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd};

    #[test]
    fn a_descriptor_crosses_the_socket_and_the_end_of_stream_is_none() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let (mut r, mut w) = std::os::unix::net::UnixStream::pair().unwrap();
        send_fd(a.as_raw_fd(), w.as_raw_fd()).unwrap();
        let got = recv_fd(b.as_raw_fd()).unwrap().expect("a descriptor");
        assert_ne!(got, w.as_raw_fd());
        // SAFETY: a descriptor the kernel just gave this process.
        let mut passed = unsafe { std::os::unix::net::UnixStream::from_raw_fd(got) };
        passed.write_all(b"ok").unwrap();
        let mut buf = [0u8; 2];
        r.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"ok");
        w.flush().unwrap();
        drop(a);
        assert!(recv_fd(b.as_raw_fd()).unwrap().is_none());
    }
}
