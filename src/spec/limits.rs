//! The value rules of job.yaml, stated once: ranges and text forms. The schema
//! (`schema_rules`, `#[schemars]` attributes on the spec types) and the semantic checks
//! (`check*`, `rules`) read the same constants, so editors and `validate` refuse the same values.

use std::fmt;

/// An inclusive range of allowed values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bounds<T> {
    pub(crate) min: T,
    pub(crate) max: T,
}

impl<T: PartialOrd + Copy> Bounds<T> {
    pub(crate) const fn new(min: T, max: T) -> Self {
        Bounds { min, max }
    }

    pub(crate) fn contains(&self, v: T) -> bool {
        self.min <= v && v <= self.max
    }
}

impl<T: fmt::Display> fmt::Display for Bounds<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..={}", self.min, self.max)
    }
}

/// The job.yaml format version this build reads and writes (`job::JOB_VERSION`).
pub(crate) const JOB_VERSION: u32 = 1;

/// Sampling temperature, as in the providers' APIs (agents and model roles).
pub(crate) const TEMPERATURE: Bounds<f64> = Bounds::new(0.0, 2.0);
/// `top_p` is a probability mass.
pub(crate) const TOP_P: Bounds<f64> = Bounds::new(0.0, 1.0);
/// Gate rates are fractions of cases.
pub(crate) const FRACTION: Bounds<f64> = Bounds::new(0.0, 1.0);
/// An OpenCode agent's step budget.
pub(crate) const STEPS: Bounds<u64> = Bounds::new(1, 1000);
pub(crate) const SUBAGENT_DEPTH: Bounds<u64> = Bounds::new(0, 16);
/// A setup step's timeout, seconds (up to a day).
pub(crate) const SETUP_TIMEOUT_SECS: Bounds<u64> = Bounds::new(1, 86_400);
/// An MCP server's startup/request timeout, milliseconds (up to an hour).
pub(crate) const MCP_TIMEOUT_MS: Bounds<u64> = Bounds::new(1, 3_600_000);
/// `generation.personas` and `generation.scenarios_per_persona`.
pub(crate) const GENERATED_COUNT: Bounds<u64> = Bounds::new(1, 100);
/// `review.gates.pass_k.k`: trials per case.
pub(crate) const PASS_K: Bounds<u64> = Bounds::new(1, 100);
pub(crate) const SANDBOX_PROCESSES: Bounds<u64> = Bounds::new(8, 65_536);
pub(crate) const SANDBOX_CPU: Bounds<u64> = Bounds::new(1, 256);
/// `sandbox.memory` in bytes: 64MiB..=1TiB.
pub(crate) const SANDBOX_MEMORY: Bounds<u64> = Bounds::new(64 << 20, 1 << 40);
/// `sandbox.file_size` in bytes: 1KiB..=1TiB.
pub(crate) const SANDBOX_FILE_SIZE: Bounds<u64> = Bounds::new(1 << 10, 1 << 40);
/// `sandbox.timeout` in seconds: 1s..=24h.
pub(crate) const SANDBOX_TIMEOUT_SECS: Bounds<u64> = Bounds::new(1, 86_400);

/// A number as `util::units` reads it: digits with at most one `.` (`5`, `5.`, `.5`, `1.25`).
macro_rules! number {
    () => {
        r"([0-9]+(\.[0-9]*)?|\.[0-9]+)"
    };
}

/// The exact grammar `util::units::parse_bytes` accepts: a number, then optionally `b` or
/// `k`/`m`/`g`/`t` with an optional `b`/`ib`, any case; spaces around and between.
pub(crate) const SIZE_PATTERN: &str = concat!(r"^\s*", number!(), r"\s*([KkMmGgTt]([Ii]?[Bb])?|[Bb])?\s*$");
/// The exact grammar `util::units::parse_duration` accepts: a number and `ms`, `s`, `m` or
/// `h` (a bare number is seconds); spaces around and between.
pub(crate) const DURATION_PATTERN: &str = concat!(r"^\s*", number!(), r"\s*(ms|s|m|h)?\s*$");
/// `host:port` as `rules::network_rules` reads it: a non-empty host before the last `:`, a
/// port 1..=65535 as Rust parses a u16 (an optional `+`, leading zeros).
pub(crate) const HOST_PORT_PATTERN: &str =
    r"^[\s\S]+:\+?0*(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})$";
/// An environment variable name.
pub(crate) const VAR_NAME_PATTERN: &str = r"^[A-Za-z_][A-Za-z0-9_]*$";
/// Holds something other than whitespace.
pub(crate) const NON_BLANK_PATTERN: &str = r"\S";
/// Holds no NUL byte (no command line can carry one).
pub(crate) const NO_NUL_PATTERN: &str = r"^[^\x00]*$";
/// Contains a `${VAR}` reference (`util::secret_ref`).
pub(crate) const SECRET_REF_PATTERN: &str = r"\$\{[A-Za-z_][A-Za-z0-9_]*\}";

/// What a value matching each pattern looks like, for messages about a schema `pattern`.
pub(crate) fn pattern_meaning(pattern: &str) -> Option<&'static str> {
    Some(match pattern {
        SIZE_PATTERN => "is not a size (such as `512MiB` or `2GiB`)",
        DURATION_PATTERN => "is not a duration (such as `90s` or `10m`)",
        HOST_PORT_PATTERN => "is not `host:port` with a port 1..=65535",
        VAR_NAME_PATTERN => "is not a variable name (letters, digits and `_`)",
        NON_BLANK_PATTERN => "must not be empty",
        NO_NUL_PATTERN => "holds a NUL byte, which no command line can carry",
        SECRET_REF_PATTERN => "is a literal credential; use a `${VAR}` reference",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::units::{parse_bytes, parse_duration};
    use regex::Regex;

    /// The patterns accept exactly what the parsers accept, over a spread of near misses.
    #[test]
    fn size_and_duration_patterns_match_the_parsers() {
        let size = Regex::new(SIZE_PATTERN).unwrap();
        let duration = Regex::new(DURATION_PATTERN).unwrap();
        let samples = [
            "512MiB",
            "2G",
            "2 gigs",
            "1.5 GiB",
            " 64mib ",
            "5.",
            ".5k",
            ".",
            "1.2.3M",
            "",
            "  ",
            "10",
            "10b",
            "10B",
            "10kb",
            "10KIB",
            "10ki",
            "10 k b",
            "-5M",
            "+5M",
            "5e3",
            "5 minutes",
            "90s",
            "10m",
            "250ms",
            "1h",
            "1.5h",
            "1 h",
            "1H",
            "2d",
            "ms",
            "s5",
            "5s ",
            "\t5s",
            "1 0s",
            "10mb",
            "0",
            "0.0s",
            "١٢s",
        ];
        for s in samples {
            assert_eq!(size.is_match(s), parse_bytes(s).is_some(), "size {s:?}");
            assert_eq!(duration.is_match(s), parse_duration(s).is_some(), "duration {s:?}");
        }
    }

    #[test]
    fn host_port_pattern_matches_the_rule() {
        let re = Regex::new(HOST_PORT_PATTERN).unwrap();
        let rule = |e: &str| {
            e.rsplit_once(':')
                .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0))
        };
        for e in [
            "a:1",
            "a:0",
            "a:00",
            "a:0080",
            "a:+443",
            "a:-1",
            "a:65535",
            "a:65536",
            "a:99999",
            "a:",
            ":443",
            "[::1]:443",
            "h:1:2",
            "h:443x",
            "h 443",
            "h:6553",
            "h:64000",
            "h:59999",
            "h:1000000",
        ] {
            assert_eq!(re.is_match(e), rule(e), "{e:?}");
        }
    }

    #[test]
    fn bounds_display_and_contain() {
        assert_eq!(TEMPERATURE.to_string(), "0..=2");
        assert!(TEMPERATURE.contains(2.0) && !TEMPERATURE.contains(2.01) && !TEMPERATURE.contains(-0.1));
        assert!(!STEPS.contains(0) && STEPS.contains(1000));
    }
}
