//! The containment table: one row a probe (what was expected, what was observed, the
//! verdict), and the short texts its cells are made of.

use ghostlab::sandbox::ExecOutput;

pub struct Row {
    pub probe: String,
    pub expected: &'static str,
    pub observed: String,
    pub verdict: &'static str,
}

/// A row for a probe whose `expected` is `denied` (PASS when `contained`) or `allowed` (a
/// control: PASS when not `contained`).
pub fn row(probe: &str, expected: &'static str, observed: String, contained: bool) -> Row {
    let ok = if expected == "denied" { contained } else { !contained };
    Row {
        probe: probe.to_string(),
        expected,
        observed,
        verdict: if ok { "PASS" } else { "FAIL" },
    }
}

/// A row for a probe that could not run here, with `why` (never a PASS).
pub fn skipped_row(probe: &str, why: String) -> Row {
    Row {
        probe: probe.to_string(),
        expected: "denied",
        observed: why,
        verdict: "SKIPPED",
    }
}

pub fn table(rows: &[Row]) -> String {
    let w0 = rows.iter().map(|r| r.probe.len()).max().unwrap_or(5).max(5);
    let w2 = rows.iter().map(|r| r.observed.len()).max().unwrap_or(8).max(8);
    let mut s = format!(
        "| {:w0$} | {:8} | {:w2$} | {:7} |\n",
        "probe", "expected", "observed", "verdict"
    );
    s.push_str(&format!(
        "|{}|{}|{}|{}|\n",
        "-".repeat(w0 + 2),
        "-".repeat(10),
        "-".repeat(w2 + 2),
        "-".repeat(9)
    ));
    for r in rows {
        s.push_str(&format!(
            "| {:w0$} | {:8} | {:w2$} | {:7} |\n",
            r.probe, r.expected, r.observed, r.verdict
        ));
    }
    s
}

/// `text` on one line, cut at 70 characters.
pub fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 70 {
        format!("{}…", one.chars().take(70).collect::<String>())
    } else {
        one
    }
}

/// The exit code and the output (stdout, else stderr) of a probe, shortened.
pub fn summary(o: &ExecOutput) -> String {
    let body = if o.stdout.is_empty() {
        o.stderr_text()
    } else {
        o.stdout_text()
    };
    short(&format!("exit {}: {}", o.status, body.trim()))
}
