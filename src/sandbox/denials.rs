//! Network attempts the sandbox refused, as one record shape for every source (the egress
//! proxy, the watch of direct attempts), and a bounded log of them.

/// One refused egress attempt; these become findings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Denial {
    /// Requested host (as the client wrote it).
    pub host: String,
    /// Requested port.
    pub port: u16,
    /// `CONNECT` or the HTTP method of a plain request; for a direct attempt the call
    /// (`connect (direct, not through the proxy)`).
    pub(crate) method: String,
    /// RFC 3339 UTC time of the attempt.
    pub(crate) time: String,
}

/// At most this many refused attempts are kept per record (a proxy's, a session's watch);
/// later ones are counted. A loop of refused requests must not grow Ghostlab's memory, its log
/// or the run's events without bound.
pub(crate) const MAX_DENIALS: usize = 1000;

/// A DNS name has at most 253 characters; a longer "host" is cut here so that a thousand
/// kept denials stay small.
pub(crate) const MAX_HOST: usize = 255;

/// `host` as a denial keeps it: cut at [`MAX_HOST`] bytes, saying so.
pub(crate) fn kept_host(host: &str) -> String {
    if host.len() <= MAX_HOST {
        return host.to_string();
    }
    let mut end = MAX_HOST;
    while !host.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…({} bytes)", &host[..end], host.len())
}

/// Refused attempts, bounded.
#[derive(Debug, Clone, Default)]
pub(crate) struct DenialLog {
    pub(crate) kept: Vec<Denial>,
    /// Attempts refused after [`MAX_DENIALS`]: counted, not kept.
    pub(crate) more: u64,
    /// How the first of those was made (`connect (direct…)`, `CONNECT`).
    more_method: String,
}

impl DenialLog {
    /// Keeps `d` while under the bound; `false` when it was only counted.
    pub(crate) fn push(&mut self, d: Denial) -> bool {
        if self.kept.len() < MAX_DENIALS {
            self.kept.push(d);
            return true;
        }
        if self.more == 0 {
            self.more_method = d.method;
        }
        self.more += 1;
        false
    }

    /// The kept attempts, plus one record standing for those not kept.
    pub(crate) fn all(&self) -> Vec<Denial> {
        let mut out = self.kept.clone();
        if self.more > 0 {
            let last = self.kept.last().map(|d| d.time.clone()).unwrap_or_default();
            out.push(Denial {
                host: format!("({} more refused attempts, not kept)", self.more),
                port: 0,
                method: self.more_method.clone(),
                time: last,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denial(i: u32, method: &str) -> Denial {
        Denial {
            host: format!("203.0.113.{}", i % 250),
            port: 80,
            method: method.into(),
            time: format!("t{i}"),
        }
    }

    #[test]
    fn a_flood_of_refused_attempts_keeps_a_bounded_record_that_still_says_so() {
        let mut log = DenialLog::default();
        for i in 0..MAX_DENIALS as u32 {
            assert!(log.push(denial(i, "connect")));
        }
        assert!(!log.push(denial(0, "CONNECT")));
        for i in 0..6 {
            log.push(denial(i, "GET"));
        }
        let all = log.all();
        assert_eq!(all.len(), MAX_DENIALS + 1);
        let summary = all.last().unwrap();
        assert_eq!(summary.host, "(7 more refused attempts, not kept)");
        assert_eq!(summary.method, "CONNECT", "named by the first one not kept");
        assert_eq!(DenialLog::default().all(), Vec::new());
    }

    #[test]
    fn a_huge_host_is_kept_cut() {
        assert_eq!(kept_host("example.com"), "example.com");
        let cut = kept_host(&"é".repeat(20_000));
        assert!(cut.len() < MAX_HOST + 20 && cut.ends_with("(40000 bytes)"), "{cut}");
    }
}
