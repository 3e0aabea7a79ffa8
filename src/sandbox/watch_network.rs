//! What the network watch decides for a notified `connect`, or a `sendto`, `sendmsg` or
//! `sendmmsg` that names a destination: a unix socket or the sandbox's own loopback goes on; a
//! DNS query to the loopback (the sandbox's resolv.conf names it) and anything else is refused
//! and recorded as a [`Denial`], the same record the egress proxy keeps.
//!
//! The address is read from the caller's memory. A thread that rewrites it between that read
//! and the kernel's own gains nothing: the network namespace has only `lo`, so such a call
//! still reaches nothing; it only goes unrecorded. A pointer the caller does not own fails with
//! EFAULT, as the kernel would fail it. Memory Ghostlab is not allowed to read (Yama
//! `ptrace_scope`, an LSM) blinds the watch: the call is refused and the session is marked
//! [`Decision::blind`], which makes the case an infrastructure error, never the agent's fault.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::denials::Denial;
use super::watch_memory::{ReadError, read_bytes};

/// The port of a name lookup.
const DNS_PORT: u16 = 53;
/// How a DNS query is recorded: its name is in the packet, which a `connect` does not carry.
pub const NAME_LOOKUP: &str = "(a DNS name lookup)";
/// `struct msghdr` on 64-bit Linux: `msg_name` (8 bytes), `msg_namelen` (4), padding, iov…
const MSGHDR_SIZE: usize = 56;
/// `struct mmsghdr`: a msghdr and the `msg_len` the kernel fills, padded to 8.
const MMSGHDR_SIZE: usize = 64;
/// The kernel sends at most this many messages of one `sendmmsg` (UIO_MAXIOV).
const MAX_MMSG: u64 = 1024;

/// The answer to one call: 0 lets it go on, else the negative errno it fails with.
#[derive(Debug, Default)]
pub(crate) struct Decision {
    pub(crate) error: i32,
    /// The destinations refused (one per refused address of the call).
    pub(crate) records: Vec<Denial>,
    /// Why the watch could not read the caller's memory, if it could not.
    pub(crate) blind: Option<String>,
}

/// Decides a notified network call.
pub(crate) fn decide(req: &libc::seccomp_notif) -> Decision {
    let nr = i64::from(req.data.nr);
    let a = req.data.args;
    let (method, targets) = match nr {
        libc::SYS_connect => ("connect", Ok(vec![(a[1], a[2])])),
        libc::SYS_sendto => ("sendto", Ok(vec![(a[4], a[5])])),
        libc::SYS_sendmsg => ("sendmsg", message_names(req.pid, a[1], 1)),
        _ => ("sendmmsg", message_names(req.pid, a[1], a[2].min(MAX_MMSG))),
    };
    let targets = match targets {
        Ok(t) => t,
        Err(e) => return unread(e),
    };
    let mut out = Decision::default();
    for (addr, len) in targets {
        let bytes = match read_bytes(req.pid, addr, (len as usize).min(128)) {
            Ok(b) if b.len() >= 2 => b,
            Ok(_) => {
                return Decision {
                    error: -libc::EINVAL,
                    ..Decision::default()
                };
            }
            Err(e) => return unread(e),
        };
        let refused = match parse_inet(&bytes) {
            Target::NotInet => None,
            Target::Inet(ip, DNS_PORT) if is_local(ip) => Some((NAME_LOOKUP.to_string(), DNS_PORT)),
            Target::Inet(ip, _) if is_local(ip) => None,
            Target::Inet(ip, port) => Some((ip.to_string(), port)),
            Target::Malformed => Some(("(malformed address)".to_string(), 0)),
        };
        if let Some((host, port)) = refused {
            // A name lookup is refused as the empty loopback resolver would: at once.
            if out.error == 0 {
                out.error = if port == DNS_PORT {
                    -libc::ECONNREFUSED
                } else {
                    -libc::ENETUNREACH
                };
            }
            out.records.push(Denial {
                host,
                port,
                method: format!("{method} (direct, not through the proxy)"),
                time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            });
        }
    }
    out
}

/// The destinations (`msg_name`, `msg_namelen`) of `count` message headers at `addr`, each
/// `MSGHDR_SIZE` or `MMSGHDR_SIZE` apart; headers without one are left out.
fn message_names(pid: u32, addr: u64, count: u64) -> Result<Vec<(u64, u64)>, ReadError> {
    let stride = if count == 1 { MSGHDR_SIZE } else { MMSGHDR_SIZE };
    let headers = read_bytes(pid, addr, stride * count as usize)?;
    let whole = headers.len() / stride;
    if (whole as u64) < count.min(1) {
        return Err(ReadError::BadAddress);
    }
    Ok(headers
        .chunks_exact(stride)
        .take(count as usize)
        .filter_map(|h| {
            let name = u64::from_ne_bytes(h[0..8].try_into().expect("8 bytes"));
            let len = u32::from_ne_bytes(h[8..12].try_into().expect("4 bytes"));
            (name != 0 && len != 0).then_some((name, u64::from(len)))
        })
        .collect())
}

/// The record of a network call whose caller's memory could not be read although the watch
/// had read others in the session: a process that hid itself (the call is refused).
pub(crate) fn hidden(nr: i64) -> Denial {
    let method = match nr {
        libc::SYS_connect => "connect",
        libc::SYS_sendto => "sendto",
        libc::SYS_sendmsg => "sendmsg",
        _ => "sendmmsg",
    };
    Denial {
        host: "(address unreadable: the process hid its memory)".into(),
        port: 0,
        method: format!("{method} (direct, not through the proxy)"),
        time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    }
}

/// A read that failed: a bad pointer fails the call as the kernel would; memory Ghostlab may
/// not read blinds the watch (refused, and the case cannot be judged).
fn unread(e: ReadError) -> Decision {
    match e {
        ReadError::BadAddress => Decision {
            error: -libc::EFAULT,
            ..Decision::default()
        },
        ReadError::Gone => Decision {
            error: -libc::ESRCH,
            ..Decision::default()
        },
        ReadError::NotAllowed(why) => Decision {
            error: -libc::ENETUNREACH,
            blind: Some(why),
            ..Decision::default()
        },
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

    /// A notification as the kernel would send it for a call of this process.
    fn call(nr: i64, args: [u64; 6]) -> libc::seccomp_notif {
        // SAFETY: a plain C struct; all-zero is valid.
        let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        req.pid = std::process::id();
        req.data.nr = nr as i32;
        req.data.args = args;
        req
    }

    /// A msghdr naming `name` (or nothing), laid out as the kernel reads it.
    fn msghdr(name: Option<&[u8]>, stride: usize) -> Vec<u8> {
        let mut h = vec![0u8; stride];
        if let Some(n) = name {
            h[0..8].copy_from_slice(&(n.as_ptr() as u64).to_ne_bytes());
            h[8..12].copy_from_slice(&(n.len() as u32).to_ne_bytes());
        }
        h
    }

    #[test]
    fn sendmsg_and_sendmmsg_are_read_through_their_headers() {
        let away = v4([203, 0, 113, 5], 443);
        let dns = v4([8, 8, 8, 8], 53);
        let local = v4([127, 0, 0, 1], 8080);
        let one = msghdr(Some(&away), MSGHDR_SIZE);
        let d = decide(&call(libc::SYS_sendmsg, [3, one.as_ptr() as u64, 0, 0, 0, 0]));
        assert_eq!(d.error, -libc::ENETUNREACH);
        assert_eq!((d.records[0].host.as_str(), d.records[0].port), ("203.0.113.5", 443));
        assert!(d.records[0].method.starts_with("sendmsg"));
        // A connected socket's sendmsg names nothing: it goes on unrecorded.
        let unnamed = msghdr(None, MSGHDR_SIZE);
        let d = decide(&call(libc::SYS_sendmsg, [3, unnamed.as_ptr() as u64, 0, 0, 0, 0]));
        assert_eq!((d.error, d.records.len()), (0, 0));
        // A batch: nothing, the loopback, a public resolver. One refusal fails the batch.
        let mut batch = msghdr(None, MMSGHDR_SIZE);
        batch.extend(msghdr(Some(&local), MMSGHDR_SIZE));
        batch.extend(msghdr(Some(&dns), MMSGHDR_SIZE));
        let d = decide(&call(libc::SYS_sendmmsg, [3, batch.as_ptr() as u64, 3, 0, 0, 0]));
        assert_eq!(d.error, -libc::ECONNREFUSED, "refused as a lookup is");
        assert_eq!(d.records.len(), 1);
        assert_eq!((d.records[0].host.as_str(), d.records[0].port), ("8.8.8.8", 53));
        // Only `vlen` headers count: the third is beyond it.
        let d = decide(&call(libc::SYS_sendmmsg, [3, batch.as_ptr() as u64, 2, 0, 0, 0]));
        assert_eq!((d.error, d.records.len()), (0, 0));
        assert!(d.blind.is_none());
    }

    #[test]
    fn a_pointer_the_caller_does_not_own_fails_as_the_kernel_would_and_is_not_the_agent_s_attempt() {
        for req in [
            call(libc::SYS_connect, [3, 8, 16, 0, 0, 0]),
            call(libc::SYS_sendmsg, [3, 8, 0, 0, 0, 0]),
            call(libc::SYS_sendmmsg, [3, 8, 4, 0, 0, 0]),
        ] {
            let d = decide(&req);
            assert_eq!(d.error, -libc::EFAULT);
            assert!(d.records.is_empty() && d.blind.is_none());
        }
        // A header whose name points nowhere.
        let mut h = [0u8; MSGHDR_SIZE];
        h[0..8].copy_from_slice(&8u64.to_ne_bytes());
        h[8..12].copy_from_slice(&16u32.to_ne_bytes());
        let d = decide(&call(libc::SYS_sendmsg, [3, h.as_ptr() as u64, 0, 0, 0, 0]));
        assert_eq!(d.error, -libc::EFAULT);
    }

    #[test]
    fn a_forbidden_read_blinds_the_watch_and_refuses_without_blaming_the_agent() {
        let d = unread(ReadError::NotAllowed("cannot read".into()));
        assert_eq!(d.error, -libc::ENETUNREACH);
        assert!(d.records.is_empty());
        assert_eq!(d.blind.as_deref(), Some("cannot read"));
    }
}
