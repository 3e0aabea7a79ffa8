//! Whether a URL points at this machine: the one test behind "a local model needs no key".
//!
//! The host is read from the URL's authority (after any `user@`, before any port), so a name
//! that merely starts with `localhost` or a loopback address in the path is not loopback.

use std::net::{Ipv4Addr, Ipv6Addr};

/// True when the URL's host is `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`.
pub(crate) fn is_loopback_url(url: &str) -> bool {
    let Some((_, rest)) = url.trim().split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host_port.split(':').next().unwrap_or(""),
    };
    is_loopback_host(host)
}

/// True for `localhost`, 127.0.0.0/8 and `::1` (any letter case, IPv6 with or without brackets).
pub(crate) fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
        || host.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_usual_local_endpoints_are_loopback() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost/v1",
            "http://[::1]:1/v1",
            "https://localhost:11434",
        ] {
            assert!(is_loopback_url(url), "{url}");
        }
    }

    #[test]
    fn a_host_that_only_starts_like_localhost_is_not() {
        // The lab's `contains("://localhost")` took this for a local server.
        assert!(!is_loopback_url("http://localhost.evil.com/v1"));
        assert!(!is_loopback_url("https://127.0.0.1.nip.example/v1"));
    }

    #[test]
    fn a_loopback_address_in_the_path_or_query_is_not() {
        // A substring test took these for local servers.
        assert!(!is_loopback_url("https://api.example.com/?next=http://localhost"));
        assert!(!is_loopback_url("https://api.example.com/proxy/http://127.0.0.1"));
    }

    #[test]
    fn all_of_127_slash_8_upper_case_and_user_info_are_loopback() {
        // The OpenAI client's prefix test knew 127.0.0.1 only, in lower case, without `user@`.
        assert!(is_loopback_url("http://127.0.0.2:8080/v1"));
        assert!(is_loopback_url("http://LOCALHOST:11434/v1"));
        assert!(is_loopback_url("http://user@127.0.0.1/v1"));
    }

    #[test]
    fn other_hosts_and_non_urls_are_not() {
        for url in [
            "https://api.openai.com/v1",
            "http://128.0.0.1/",
            "http://[::2]/",
            "",
            "localhost",
            "http://",
        ] {
            assert!(!is_loopback_url(url), "{url}");
        }
    }
}
