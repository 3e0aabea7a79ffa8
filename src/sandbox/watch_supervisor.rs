//! Ghostlab's side of the watch: it takes the listeners the shims (`watch_shim`) send and
//! answers every notified call. `connect` and addressed `sendto`/`sendmsg`/`sendmmsg` are
//! decided by `watch_network` (refused and recorded when they leave the sandbox); `execve`/`execveat` are recorded by `watch_exec`
//! and always go on. If Ghostlab is gone, the kernel fails every watched call (ENOSYS): the
//! watch fails closed.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::denials::DenialLog;
use super::watch_exec::{CommandLog, IssuedHops};
use super::watch_memory::ReadError;

/// How often an idle watcher checks whether its session ended.
const POLL_MS: i32 = 250;

/// Where a session's watch records go, and the flag that ends its threads.
#[derive(Debug, Clone, Default)]
pub(crate) struct WatchLog {
    pub(crate) denials: Arc<Mutex<DenialLog>>,
    pub(crate) commands: Arc<Mutex<CommandLog>>,
    /// Set when the watch could not read a caller's memory it had to read: what the session
    /// did is then not known, so its case cannot be judged.
    pub(crate) blind: Arc<Mutex<Option<String>>>,
    /// Whether a read of a caller's memory has succeeded in this session.
    pub(crate) sighted: Arc<AtomicBool>,
    pub(crate) stop: Arc<AtomicBool>,
}

/// Serves the shims of one prepared command: `ours` is Ghostlab's end of the socket pair;
/// `issued` is what the shim execs (its execs and their tails are not recorded).
pub(crate) fn serve(ours: OwnedFd, log: WatchLog, issued: Vec<String>) {
    let issued = Arc::new(IssuedHops::new(issued));
    // Before the shim can write: its pid comes with its message, or the watch never starts
    // (and the shim, unanswered, never runs its command).
    if let Err(e) = super::watch_shim::expect_credentials(ours.as_raw_fd()) {
        tracing::warn!("the sandbox's watch cannot start: {e}");
        return;
    }
    std::thread::spawn(move || {
        while !log.stop.load(Ordering::Relaxed) {
            if !readable(ours.as_raw_fd()) {
                continue;
            }
            match super::watch_shim::take_fd(ours.as_raw_fd()) {
                Ok(Some(fd)) => {
                    // SAFETY: a descriptor the kernel just gave us.
                    let listener = unsafe { OwnedFd::from_raw_fd(fd) };
                    let (log, issued) = (log.clone(), issued.clone());
                    std::thread::spawn(move || answer(listener, log, &issued));
                    // SAFETY: one-byte write to our socket: the shim may now exec.
                    unsafe { libc::write(ours.as_raw_fd(), [1u8].as_ptr().cast(), 1) };
                }
                Ok(None) => return,
                // The shim, unanswered, never runs its command; the reason is the session's.
                Err(e) => {
                    let why = format!("cannot take the watch's listener from the sandbox: {e}");
                    log.blind.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(why);
                    return;
                }
            }
        }
    });
}

/// Whether `fd` has something to read (or hung up) within one poll interval.
fn readable(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll on one valid pollfd.
    unsafe { libc::poll(&mut p, 1, POLL_MS) > 0 }
}

/// Answers the notifications of one listener until its processes are gone or the session ends.
fn answer(listener: OwnedFd, log: WatchLog, issued: &IssuedHops) {
    let fd = listener.as_raw_fd();
    while !log.stop.load(Ordering::Relaxed) {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll on one valid pollfd.
        let n = unsafe { libc::poll(&mut p, 1, POLL_MS) };
        if n <= 0 {
            continue;
        }
        if p.revents & libc::POLLIN == 0 {
            return; // POLLHUP: every process under this filter has exited.
        }
        // SAFETY: the kernel requires a zeroed struct.
        let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: ioctl with the struct it expects.
        if unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut req) } != 0 {
            continue; // ENOENT: the caller was interrupted or died.
        }
        let nr = i64::from(req.data.nr);
        let is_exec = nr == libc::SYS_execveat || nr == libc::SYS_execve;
        // Once a read succeeded in this session, the watch can see: a read refused later is a
        // process hiding itself (the agent's act), not a blind watch.
        let sighted = log.sighted.load(Ordering::Relaxed);
        let (error, mut denials, commands, blind) = if is_exec {
            match super::watch_exec::read(&req) {
                Ok((c, _)) if issued.take(req.pid, &c) => (0, Vec::new(), Vec::new(), None),
                // A command cut at a bound is kept and also counted as missed.
                Ok((c, cut)) => (
                    0,
                    Vec::new(),
                    if cut { vec![Some(c), None] } else { vec![Some(c)] },
                    None,
                ),
                // The call goes on, but what it runs is not known: counted as missed.
                Err(ReadError::NotAllowed(why)) if !sighted => (0, Vec::new(), vec![None], Some(why)),
                Err(_) => (0, Vec::new(), vec![None], None),
            }
        } else {
            let d = super::watch_network::decide(&req);
            (d.error, d.records, Vec::new(), d.blind)
        };
        let blind = match blind {
            Some(_) if sighted && !is_exec => {
                denials.push(super::watch_network::hidden(nr));
                None
            }
            other => other,
        };
        if blind.is_none() && error != -libc::EFAULT && error != -libc::ESRCH {
            log.sighted.store(true, Ordering::Relaxed);
        }
        // What was read came from the caller's memory: if the caller died meanwhile, that PID may be
        // another process's, so it is not recorded.
        // SAFETY: ioctl with a pointer to the notification id.
        if unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) } != 0 {
            continue;
        }
        if !denials.is_empty() {
            let mut kept = log.denials.lock().unwrap_or_else(|p| p.into_inner());
            for d in denials {
                kept.push(d);
            }
        }
        if !commands.is_empty() {
            let mut kept = log.commands.lock().unwrap_or_else(|p| p.into_inner());
            for c in commands {
                kept.push(c);
            }
        }
        if let Some(why) = blind {
            log.blind.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(why);
        }
        let mut resp = libc::seccomp_notif_resp {
            id: req.id,
            val: 0,
            error,
            flags: if error == 0 {
                libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32
            } else {
                0
            },
        };
        // SAFETY: ioctl with the struct it expects; failure means the caller is gone.
        unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp) };
    }
}
