//! Ghostlab's side of the network watch: it takes the listeners the shims (`watch_shim`)
//! send, answers each notified `connect`/`sendto`, and records a direct attempt to leave the
//! sandbox as a [`Denial`], the same record the egress proxy keeps.
//!
//! The decision is made on the address read from the caller's memory: a unix socket or a
//! loopback address goes on (`CONTINUE`, the kernel redoes the call); a DNS query to the
//! loopback (the sandbox's resolv.conf names it) and anything else is refused and recorded. A thread that rewrites the address between the read
//! and the kernel's own read gains nothing: the network namespace has only `lo`, so such a
//! call still reaches nothing, it is only not recorded. An address that cannot be read is
//! refused and recorded. If Ghostlab is gone, the kernel fails every watched call (ENOSYS).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::proxy::Denial;

/// The port of a name lookup.
const DNS_PORT: u16 = 53;
/// How a DNS query is recorded: its name is in the packet, which a `connect` does not carry.
pub const NAME_LOOKUP: &str = "(a DNS name lookup)";

/// How often an idle watcher checks whether its session ended.
const POLL_MS: i32 = 250;

/// Where a session's watch records go, and the flag that ends its threads.
#[derive(Debug, Clone, Default)]
pub struct WatchLog {
    pub denials: Arc<Mutex<Vec<Denial>>>,
    pub stop: Arc<AtomicBool>,
}

/// Serves the shims of one prepared command: `ours` is Ghostlab's end of the socket pair.
pub fn serve(ours: OwnedFd, log: WatchLog) {
    std::thread::spawn(move || {
        while !log.stop.load(Ordering::Relaxed) {
            if !readable(ours.as_raw_fd()) {
                continue;
            }
            match super::watch_shim::recv_fd(ours.as_raw_fd()) {
                Ok(Some(fd)) => {
                    // SAFETY: a descriptor the kernel just gave us.
                    let listener = unsafe { OwnedFd::from_raw_fd(fd) };
                    let log = log.clone();
                    std::thread::spawn(move || answer(listener, log));
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
fn answer(listener: OwnedFd, log: WatchLog) {
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
        let verdict = decide(&req);
        // The address was read from /proc/PID/mem: if the caller died meanwhile, that PID may
        // be another process's, so what was read is not recorded.
        // SAFETY: ioctl with a pointer to the notification id.
        if unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) } != 0 {
            continue;
        }
        if let Some(denial) = verdict.record {
            log.denials.lock().unwrap_or_else(|p| p.into_inner()).push(denial);
        }
        let mut resp = libc::seccomp_notif_resp {
            id: req.id,
            val: 0,
            error: verdict.error,
            flags: if verdict.error == 0 {
                libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32
            } else {
                0
            },
        };
        // SAFETY: ioctl with the struct it expects; failure means the caller is gone.
        unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp) };
    }
}

struct Verdict {
    /// 0 to let the call go on, else the negative errno it fails with.
    error: i32,
    record: Option<Denial>,
}

fn decide(req: &libc::seccomp_notif) -> Verdict {
    let nr = i64::from(req.data.nr);
    let (addr, len, method) = if nr == libc::SYS_connect {
        (req.data.args[1], req.data.args[2], "connect")
    } else {
        (req.data.args[4], req.data.args[5], "sendto")
    };
    let refuse = |host: String, port: u16| Verdict {
        // A name lookup is refused as the empty loopback resolver would: at once.
        error: if port == DNS_PORT {
            -libc::ECONNREFUSED
        } else {
            -libc::ENETUNREACH
        },
        record: Some(Denial {
            host,
            port,
            method: format!("{method} (direct, not through the proxy)"),
            time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        }),
    };
    let bytes = match read_memory(req.pid, addr, (len as usize).min(128)) {
        Ok(b) if b.len() >= 2 => b,
        _ => return refuse("(address unreadable)".into(), 0),
    };
    match parse_inet(&bytes) {
        Target::NotInet => Verdict { error: 0, record: None },
        // The sandbox's resolv.conf names the loopback: a query there is a lookup of a name
        // outside, which only the proxy may resolve.
        Target::Inet(ip, DNS_PORT) if is_local(ip) => refuse(NAME_LOOKUP.into(), DNS_PORT),
        Target::Inet(ip, _) if is_local(ip) => Verdict { error: 0, record: None },
        Target::Inet(ip, port) => refuse(ip.to_string(), port),
        Target::Malformed => refuse("(malformed address)".into(), 0),
    }
}

#[derive(Debug, PartialEq)]
enum Target {
    NotInet,
    Inet(IpAddr, u16),
    Malformed,
}

/// Reads the socket address a caller passed.
fn parse_inet(b: &[u8]) -> Target {
    let family = i32::from(u16::from_ne_bytes([b[0], b[1]]));
    let port = |b: &[u8]| u16::from_be_bytes([b[2], b[3]]);
    match family {
        libc::AF_INET if b.len() >= 8 => Target::Inet(IpAddr::V4(Ipv4Addr::new(b[4], b[5], b[6], b[7])), port(b)),
        libc::AF_INET6 if b.len() >= 24 => {
            let octets: [u8; 16] = b[8..24].try_into().expect("16 bytes");
            Target::Inet(IpAddr::V6(Ipv6Addr::from(octets)), port(b))
        }
        libc::AF_INET | libc::AF_INET6 => Target::Malformed,
        _ => Target::NotInet,
    }
}

/// Addresses that stay inside the sandbox's own network namespace.
fn is_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_unspecified(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.is_unspecified() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// Reads `len` bytes at `addr` of process `pid`.
fn read_memory(pid: u32, addr: u64, len: usize) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(format!("/proc/{pid}/mem"))?;
    let mut buf = vec![0u8; len];
    let n = f.read_at(&mut buf, addr)?;
    buf.truncate(n);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(ip: [u8; 4], port: u16) -> Vec<u8> {
        let mut b = (libc::AF_INET as u16).to_ne_bytes().to_vec();
        b.extend(port.to_be_bytes());
        b.extend(ip);
        b.extend([0u8; 8]);
        b
    }

    #[test]
    fn addresses_are_read_as_the_kernel_reads_them() {
        assert_eq!(
            parse_inet(&v4([1, 2, 3, 4], 443)),
            Target::Inet("1.2.3.4".parse().unwrap(), 443)
        );
        let unix = (libc::AF_UNIX as u16).to_ne_bytes();
        assert_eq!(parse_inet(&[unix[0], unix[1], b'/', b'x']), Target::NotInet);
        assert_eq!(parse_inet(&v4([1, 2, 3, 4], 443)[..6]), Target::Malformed);
        let mut v6 = (libc::AF_INET6 as u16).to_ne_bytes().to_vec();
        v6.extend(53u16.to_be_bytes());
        v6.extend([0u8; 4]);
        v6.extend("2001:db8::1".parse::<Ipv6Addr>().unwrap().octets());
        assert_eq!(parse_inet(&v6), Target::Inet("2001:db8::1".parse().unwrap(), 53));
    }

    #[test]
    fn only_the_sandbox_s_own_loopback_is_local() {
        for local in ["127.0.0.1", "127.9.9.9", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1"] {
            assert!(is_local(local.parse().unwrap()), "{local}");
        }
        for away in [
            "10.0.2.3",
            "169.254.169.254",
            "::ffff:8.8.8.8",
            "2001:db8::1",
            "fe80::1",
        ] {
            assert!(!is_local(away.parse().unwrap()), "{away}");
        }
    }
}
