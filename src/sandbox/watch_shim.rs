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

/// Sends `fd` as SCM_RIGHTS with a one-byte payload.
pub fn send_fd(socket: RawFd, fd: RawFd) -> std::io::Result<()> {
    let mut byte = [1u8];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    let mut control = vec![0u8; space];
    // SAFETY: a zeroed msghdr is valid; every pointer set below outlives sendmsg.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: the control buffer holds one cmsg of the size computed above.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
        if libc::sendmsg(socket, &msg, libc::MSG_NOSIGNAL) != 1 {
            return Err(Error::last_os_error());
        }
    }
    Ok(())
}

/// Receives one descriptor sent by [`send_fd`]; `None` at end of stream.
pub fn recv_fd(socket: RawFd) -> std::io::Result<Option<RawFd>> {
    let mut byte = [0u8];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: as in `send_fd`.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    let mut control = vec![0u8; space];
    // SAFETY: a zeroed msghdr is valid; every pointer set below outlives recvmsg.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: recvmsg into the buffers above; received descriptors are close-on-exec.
    let n = unsafe { libc::recvmsg(socket, &mut msg, libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(Error::last_os_error());
    }
    if n == 0 {
        return Ok(None);
    }
    // SAFETY: reading the first cmsg of a buffer the kernel filled.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() || (*cmsg).cmsg_level != libc::SOL_SOCKET || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            return Err(Error::other("a message without a descriptor"));
        }
        Ok(Some(std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>())))
    }
}
