//! What the network watch decides for a notified `connect` or addressed `sendto`: a unix
//! socket or the sandbox's own loopback goes on; a DNS query to the loopback (the sandbox's
//! resolv.conf names it) and anything else is refused and recorded as a [`Denial`], the same
//! record the egress proxy keeps.
//!
//! The address is read from the caller's memory. A thread that rewrites it between that read
//! and the kernel's own gains nothing: the network namespace has only `lo`, so such a call
//! still reaches nothing; it only goes unrecorded. An address that cannot be read is refused
//! and recorded.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::proxy::Denial;
use super::watch_memory::read_bytes;

/// The port of a name lookup.
const DNS_PORT: u16 = 53;
/// How a DNS query is recorded: its name is in the packet, which a `connect` does not carry.
pub const NAME_LOOKUP: &str = "(a DNS name lookup)";

/// The answer to one call: 0 lets it go on, else the negative errno it fails with.
pub struct Decision {
    pub error: i32,
    pub record: Option<Denial>,
}

/// Decides a `connect(fd, addr, len)` or `sendto(fd, buf, n, flags, addr, len)`.
pub fn decide(req: &libc::seccomp_notif) -> Decision {
    let (addr, len, method) = if i64::from(req.data.nr) == libc::SYS_connect {
        (req.data.args[1], req.data.args[2], "connect")
    } else {
        (req.data.args[4], req.data.args[5], "sendto")
    };
    let refuse = |host: String, port: u16| Decision {
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
    let bytes = match read_bytes(req.pid, addr, (len as usize).min(128)) {
        Ok(b) if b.len() >= 2 => b,
        _ => return refuse("(address unreadable)".into(), 0),
    };
    match parse_inet(&bytes) {
        Target::NotInet => Decision { error: 0, record: None },
        Target::Inet(ip, DNS_PORT) if is_local(ip) => refuse(NAME_LOOKUP.into(), DNS_PORT),
        Target::Inet(ip, _) if is_local(ip) => Decision { error: 0, record: None },
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
