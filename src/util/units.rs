//! Human sizes (`512MiB`, `2G`) and durations (`90s`, `10m`, `1h`) used in job.yaml.
//!
//! Every conversion is checked: a value too large for its type is `None`, never a panic or a
//! silent wrap (`99999999999999999999h`, `18446744073709551616s`).

use std::time::Duration;

/// Parses a byte size with an optional unit (K/M/G/T, with or without `i`/`B`).
pub(crate) fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return None,
    };
    let bytes = n * mult as f64;
    // `u64::MAX as f64` rounds up to 2^64, so `<` (not `<=`) keeps the cast exact-or-smaller.
    (bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// Parses a duration such as `250ms`, `90s`, `10m`, `1h`; a bare number is seconds.
pub(crate) fn parse_duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().ok()?;
    let secs = match unit.trim() {
        "ms" => n / 1000.0,
        "" | "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(secs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations() {
        assert_eq!(parse_bytes("512MiB"), Some(512 << 20));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_duration("90s"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("10m"), Some(Duration::from_secs(600)));
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("soon"), None);
    }

    #[test]
    fn huge_values_are_none_not_a_panic() {
        for t in [
            "99999999999999999999h",
            "18446744073709551616s",
            "1e400s",
            "999999999999999999999999ms",
        ] {
            assert_eq!(parse_duration(t), None, "{t}");
        }
        for t in ["99999999999999999999T", "18446744073709551616", "16777216TiB"] {
            assert_eq!(parse_bytes(t), None, "{t}");
        }
        assert_eq!(parse_bytes("16777215TiB"), Some(16777215 << 40));
    }
}
