//! Ghostlab's side of the watch: it takes the listeners the shims (`watch_shim`) send and
//! answers every notified call. `connect`/`sendto` are decided by `watch_network` (refused
//! and recorded when they leave the sandbox); `execve`/`execveat` are recorded by `watch_exec`
//! and always go on. If Ghostlab is gone, the kernel fails every watched call (ENOSYS): the
//! watch fails closed.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::proxy::Denial;
use super::watch_exec::CommandLog;

/// How often an idle watcher checks whether its session ended.
const POLL_MS: i32 = 250;

/// At most this many direct attempts are kept per session; later ones are counted. A loop of
/// refused connects must not grow Ghostlab's memory or the run's events without bound.
pub const MAX_DENIALS: usize = 1000;

/// Where a session's watch records go, and the flag that ends its threads.
#[derive(Debug, Clone, Default)]
pub struct WatchLog {
    pub denials: Arc<Mutex<DenialLog>>,
    pub commands: Arc<Mutex<CommandLog>>,
    pub stop: Arc<AtomicBool>,
}

/// The direct attempts of one session, bounded.
#[derive(Debug, Clone, Default)]
pub struct DenialLog {
    pub kept: Vec<Denial>,
    /// Attempts refused after [`MAX_DENIALS`]: counted, not kept.
    pub more: u64,
}

impl DenialLog {
    fn push(&mut self, d: Denial) {
        if self.kept.len() < MAX_DENIALS {
            self.kept.push(d);
        } else {
            self.more += 1;
        }
    }

    /// The kept attempts, plus one record standing for those not kept.
    pub fn all(&self) -> Vec<Denial> {
        let mut out = self.kept.clone();
        if self.more > 0 {
            let last = self.kept.last().map(|d| d.time.clone()).unwrap_or_default();
            out.push(Denial {
                host: format!("({} more direct attempts, not kept)", self.more),
                port: 0,
                method: "connect/sendto (direct)".into(),
                time: last,
            });
        }
        out
    }
}

/// Serves the shims of one prepared command: `ours` is Ghostlab's end of the socket pair;
/// `issued` is what the shim execs (its execs and their tails are not recorded).
pub fn serve(ours: OwnedFd, log: WatchLog, issued: Vec<String>) {
    let issued = Arc::new(issued);
    std::thread::spawn(move || {
        while !log.stop.load(Ordering::Relaxed) {
            if !readable(ours.as_raw_fd()) {
                continue;
            }
            match super::watch_shim::recv_fd(ours.as_raw_fd()) {
                Ok(Some(fd)) => {
                    // SAFETY: a descriptor the kernel just gave us.
                    let listener = unsafe { OwnedFd::from_raw_fd(fd) };
                    let (log, issued) = (log.clone(), issued.clone());
                    std::thread::spawn(move || answer(listener, log, &issued));
                    // SAFETY: one-byte write to our socket: the shim may now exec.
                    unsafe { libc::write(ours.as_raw_fd(), [1u8].as_ptr().cast(), 1) };
                }
                Ok(None) | Err(_) => return,
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
fn answer(listener: OwnedFd, log: WatchLog, issued: &[String]) {
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
        let is_exec = nr == libc::SYS_execve || nr == libc::SYS_execveat;
        let (error, denial, command) = if is_exec {
            match super::watch_exec::read(&req) {
                Some(c) if c.is_issued(issued) => (0, None, None),
                read => (0, None, Some(read)),
            }
        } else {
            let d = super::watch_network::decide(&req);
            (d.error, d.record, None)
        };
        // What was read came from /proc/PID/mem: if the caller died meanwhile, that PID may be
        // another process's, so it is not recorded.
        // SAFETY: ioctl with a pointer to the notification id.
        if unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) } != 0 {
            continue;
        }
        if let Some(d) = denial {
            log.denials.lock().unwrap_or_else(|p| p.into_inner()).push(d);
        }
        if let Some(c) = command {
            log.commands.lock().unwrap_or_else(|p| p.into_inner()).push(c);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_refused_attempts_keeps_a_bounded_record_that_still_says_so() {
        let mut log = DenialLog::default();
        for i in 0..MAX_DENIALS as u32 + 7 {
            log.push(Denial {
                host: format!("203.0.113.{}", i % 250),
                port: 80,
                method: "connect".into(),
                time: "t".into(),
            });
        }
        let all = log.all();
        assert_eq!(all.len(), MAX_DENIALS + 1);
        assert_eq!(all.last().unwrap().host, "(7 more direct attempts, not kept)");
    }
}
