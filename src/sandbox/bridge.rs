//! The loopback bridge that runs *inside* the sandbox (`ghostlab __egress-bridge`): it listens
//! on 127.0.0.1:3128, forwards every connection to the host proxy's unix socket, runs the
//! sandboxed command as its child and exits with the child's status.
//!
//! The same program also joins two commands of one session that live in separate network
//! namespaces (OpenCode's warm mode): `expose` serves a loopback port on a unix socket in the
//! session's folder, and a `forward` in another command turns that socket back into a loopback
//! port. Sockets in the session's own folder are the only rendezvous; no network is opened.
//!
//! It uses plain threads so it needs no runtime inside the sandbox.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;

/// Where the proxy socket's folder is bound inside the sandbox.
pub(crate) const SOCKET_DIR_INSIDE: &str = "/run/ghostlab-egress";
/// The socket file name inside that folder.
pub(crate) const SOCKET_NAME: &str = "proxy.sock";
/// The bridge's listen address inside the sandbox.
pub(crate) const LISTEN: &str = "127.0.0.1:3128";

/// Runs every `forwards` (loopback address → unix socket) and `exposes` (unix socket →
/// loopback address) link, then `argv` under them; returns the exit code to use.
pub(crate) fn run_links(
    forwards: &[(String, PathBuf)],
    exposes: &[(PathBuf, String)],
    argv: &[String],
) -> std::io::Result<i32> {
    for (listen, socket) in forwards {
        let listener = TcpListener::bind(listen)
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {listen}: {e}")))?;
        let socket = socket.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let socket = socket.clone();
                std::thread::spawn(move || {
                    if let Ok(up) = UnixStream::connect(&socket) {
                        pipe_both(conn, up);
                    }
                });
            }
        });
    }
    for (socket, target) in exposes {
        // A stale socket from an earlier command of this session would make bind fail.
        let _ = std::fs::remove_file(socket);
        let listener = UnixListener::bind(socket)
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {}: {e}", socket.display())))?;
        let target = target.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let target = target.clone();
                std::thread::spawn(move || {
                    // Nothing listening yet (the served program is still starting): the
                    // caller sees the connection close and tries again.
                    if let Ok(down) = TcpStream::connect(&target) {
                        pipe_both(down, conn);
                    }
                });
            }
        });
    }
    let (prog, args) = argv
        .split_first()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no command given"))?;
    // Name what could not start: a bare "No such file or directory" says nothing about which.
    let status = std::process::Command::new(prog)
        .args(args)
        .status()
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot start `{prog}`: {e}")))?;
    Ok(status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}

fn pipe_both(tcp: TcpStream, unix: UnixStream) {
    let (Ok(tcp2), Ok(unix2)) = (tcp.try_clone(), unix.try_clone()) else {
        return;
    };
    let t = std::thread::spawn(move || copy_then_shutdown(tcp2, unix2));
    copy_then_shutdown_rev(unix, tcp);
    let _ = t.join();
}

fn copy_then_shutdown(mut from: TcpStream, mut to: UnixStream) {
    let _ = copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
}

fn copy_then_shutdown_rev(mut from: UnixStream, mut to: TcpStream) {
    let _ = copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
}

/// Relays `from` into `to` until `from` ends, flushing each chunk so a buffered writer (the
/// MCP link's stdout) passes an interactive exchange on at once; for sockets flush is free.
pub(crate) fn copy(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<()> {
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = from.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        to.write_all(&buf[..n])?;
        to.flush()?;
    }
}
