//! JUnit XML for CI systems. FAIL is a `<failure>`; INFRA_ERROR and INCONCLUSIVE are `<error>`s,
//! so neither shows as green in a CI dashboard.
//!
//! The strict JUnit XSD (junit-10.xsd, as Jenkins' xunit reads it) allows `<properties>` only on
//! the suite: the suite carries the totals there (`ghostlab.<role>.tokens`,
//! `ghostlab.<role>.cost_usd`, `ghostlab.tokens`, `ghostlab.cost_usd`), and each test case (one
//! trial) the same figures as `name=value` lines in its `<system-out>`. A cost without a known
//! price is `unknown`, never 0. The figures are `trial::Usage`'s, the same the summary and the
//! report show.

use super::verdict::Verdict;
use crate::trial::Usage;

/// One test case line of the report.
pub(crate) struct JunitCase<'a> {
    pub(crate) case_id: &'a str,
    /// The persona's id and the scenario's title, from the trial's case.json; without them the
    /// case is grouped under the suite and named by its id alone.
    pub(crate) persona: Option<String>,
    pub(crate) scenario: Option<String>,
    pub(crate) trial: u32,
    pub(crate) verdict: Verdict,
    pub(crate) reasons: &'a [String],
    pub(crate) duration_s: f64,
    /// Tokens and cost per role, from the trial's events.
    pub(crate) usage: Usage,
    /// The evidence alone decided this PASS or FAIL (`evidence_criteria::decided_by_evidence`).
    pub(crate) by_evidence: bool,
}

pub(crate) fn render_junit(suite: &str, cases: &[JunitCase<'_>]) -> String {
    let failures = cases.iter().filter(|c| c.verdict == Verdict::Fail).count();
    let errors = cases
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::InfraError | Verdict::Inconclusive))
        .count();
    let time: f64 = cases.iter().map(|c| c.duration_s).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!(
        "<testsuites name=\"ghostlab\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{time:.3}\">\n",
        cases.len()
    ));
    xml.push_str(&format!(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{time:.3}\">\n",
        esc(suite),
        cases.len()
    ));
    let mut total = Usage::default();
    for c in cases {
        total.add(&c.usage);
    }
    let settled = |v: Verdict| cases.iter().filter(|c| c.by_evidence && c.verdict == v).count();
    let counts = [
        ("ghostlab.pass_by_evidence", settled(Verdict::Pass)),
        ("ghostlab.fail_by_evidence", settled(Verdict::Fail)),
    ];
    xml.push_str(&properties(&total, &counts, "    "));
    for c in cases {
        // Grouped by persona; the case id and trial keep every name unique.
        let name = match &c.scenario {
            Some(title) => format!("{title} ({}#{})", c.case_id, c.trial),
            None => format!("{}#{}", c.case_id, c.trial),
        };
        xml.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\">\n",
            esc(c.persona.as_deref().unwrap_or(suite)),
            esc(&name),
            c.duration_s
        ));
        let message = esc(&c.reasons.join("; "));
        match c.verdict {
            Verdict::Pass => {}
            Verdict::Fail => xml.push_str(&format!("      <failure type=\"FAIL\" message=\"{message}\"/>\n")),
            other => xml.push_str(&format!(
                "      <error type=\"{}\" message=\"{message}\"/>\n",
                other.as_str()
            )),
        }
        // The reasons also for a PASS: whether evidence or a judge settled it.
        let reasons = format!(
            "ghostlab.settled_by_evidence={}\nghostlab.reasons={}\n",
            c.by_evidence,
            c.reasons.join("; ").replace('\n', " ")
        );
        xml.push_str(&format!(
            "      <system-out>{}{}</system-out>\n",
            esc_text(&usage_lines(&c.usage)),
            esc_text(&reasons)
        ));
        xml.push_str("    </testcase>\n");
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

/// A usage's figures: the emulator and the judge always (no call is a real zero), the agent
/// when it reported messages, then the total.
fn figures(usage: &Usage) -> Vec<(String, String)> {
    let mut props = Vec::new();
    for (role, r) in usage.roles() {
        if role == "agent" && r.calls == 0 {
            continue;
        }
        props.push((format!("ghostlab.{role}.tokens"), r.tokens.to_string()));
        props.push((format!("ghostlab.{role}.cost_usd"), r.plain()));
    }
    let total = usage.total();
    props.push(("ghostlab.tokens".into(), total.tokens.to_string()));
    props.push(("ghostlab.cost_usd".into(), total.plain()));
    props
}

/// A usage's figures as `name=value` lines (a test case's `<system-out>`).
fn usage_lines(usage: &Usage) -> String {
    figures(usage).into_iter().map(|(n, v)| format!("{n}={v}\n")).collect()
}

/// The suite's `<properties>` block.
fn properties(usage: &Usage, counts: &[(&str, usize)], indent: &str) -> String {
    let mut out = format!("{indent}<properties>\n");
    let counts = counts.iter().map(|(n, c)| (n.to_string(), c.to_string()));
    for (name, value) in figures(usage).into_iter().chain(counts) {
        out.push_str(&format!(
            "{indent}  <property name=\"{name}\" value=\"{}\"/>\n",
            esc(&value)
        ));
    }
    out.push_str(&format!("{indent}</properties>\n"));
    out
}

/// Escapes element text (newlines kept) and drops characters XML 1.0 cannot carry.
fn esc_text(text: &str) -> String {
    text.split('\n').map(esc).collect::<Vec<_>>().join("\n")
}

/// Escapes text for XML attributes and drops characters XML 1.0 cannot carry.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            c if (c as u32) < 0x20 && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inconclusive_and_infra_are_errors_not_passes() {
        let r = vec!["judge did not answer".to_string()];
        let xml = render_junit(
            "release-bot",
            &[
                JunitCase {
                    persona: None,
                    scenario: None,
                    case_id: "a",
                    trial: 1,
                    verdict: Verdict::Pass,
                    reasons: &[],
                    duration_s: 1.0,
                    usage: Usage::default(),
                    by_evidence: false,
                },
                JunitCase {
                    persona: None,
                    scenario: None,
                    case_id: "b<&>",
                    trial: 1,
                    verdict: Verdict::Inconclusive,
                    reasons: &r,
                    duration_s: 1.0,
                    usage: Usage::default(),
                    by_evidence: false,
                },
                JunitCase {
                    persona: None,
                    scenario: None,
                    case_id: "c",
                    trial: 1,
                    verdict: Verdict::InfraError,
                    reasons: &r,
                    duration_s: 1.0,
                    usage: Usage::default(),
                    by_evidence: false,
                },
                JunitCase {
                    persona: None,
                    scenario: None,
                    case_id: "d",
                    trial: 1,
                    verdict: Verdict::Fail,
                    reasons: &r,
                    duration_s: 1.0,
                    usage: Usage::default(),
                    by_evidence: false,
                },
            ],
        );
        assert!(xml.contains("tests=\"4\" failures=\"1\" errors=\"2\""));
        assert!(
            xml.contains("<property name=\"ghostlab.pass_by_evidence\" value=\"0\"/>"),
            "{xml}"
        );
        assert!(xml.contains("ghostlab.settled_by_evidence=false"), "{xml}");
        assert!(xml.contains("name=\"b&lt;&amp;&gt;#1\""));
        assert!(xml.contains("<error type=\"INCONCLUSIVE\""));
    }

    #[test]
    fn cost_per_role_in_system_out_and_suite_total_as_properties() {
        use crate::trial::{Role, RunEvent};
        let call = |role, cost: f64, unknown| RunEvent::ModelCall {
            role,
            model: "m".into(),
            prompt_tokens: 90,
            completion_tokens: 10,
            cost_usd: cost,
            latency_ms: 1,
            cost_unknown: unknown,
        };
        let priced = Usage::from_events(&[call(Role::Emulator, 0.25, false), call(Role::Judge, 0.5, false)]);
        let unpriced = Usage::from_events(&[call(Role::Judge, 0.0, true)]);
        let case = |id, usage| JunitCase {
            persona: None,
            scenario: None,
            case_id: id,
            trial: 1,
            verdict: Verdict::Pass,
            reasons: &[],
            duration_s: 1.0,
            usage,
            by_evidence: false,
        };
        let xml = render_junit("s", &[case("a", priced), case("b", unpriced)]);
        let a = &xml[xml.find("name=\"a#1\"").unwrap()..xml.find("name=\"b#1\"").unwrap()];
        assert!(a.contains("ghostlab.emulator.tokens=100\n"), "{xml}");
        assert!(a.contains("ghostlab.emulator.cost_usd=0.250000\n"), "{xml}");
        assert!(a.contains("ghostlab.judge.cost_usd=0.500000\n"), "{xml}");
        assert!(a.contains("ghostlab.cost_usd=0.750000\n"), "{xml}");
        assert!(
            !a.contains("ghostlab.agent."),
            "no agent messages, no agent figures: {xml}"
        );
        let b = &xml[xml.find("name=\"b#1\"").unwrap()..];
        assert!(b.contains("ghostlab.judge.cost_usd=unknown\n"), "{xml}");
        assert!(b.contains("ghostlab.emulator.cost_usd=0.000000\n"), "{xml}");
        assert!(b.contains("ghostlab.cost_usd=unknown\n"), "{xml}");
        // The suite's total: before the first test case, unknown because one case is.
        let suite = &xml[..xml.find("<testcase").unwrap()];
        assert!(
            suite.contains("<property name=\"ghostlab.tokens\" value=\"300\"/>"),
            "{xml}"
        );
        assert!(
            suite.contains("<property name=\"ghostlab.cost_usd\" value=\"unknown\"/>"),
            "{xml}"
        );
        assert!(
            suite.contains("<property name=\"ghostlab.emulator.cost_usd\" value=\"0.250000\"/>"),
            "{xml}"
        );
    }

    /// Validates with `xmllint --schema` against the strict junit-10.xsd that
    /// scripts/install-deps.sh fetches (pinned pytest sdist, checksum verified).
    #[test]
    fn output_is_valid_under_the_strict_junit_xsd() {
        let xsd = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/xsd/junit-10.xsd");
        let xmllint = std::process::Command::new("xmllint").arg("--version").output().is_ok();
        if !xsd.is_file() || !xmllint {
            assert!(
                std::env::var("GHOSTLAB_REQUIRE_ALL").as_deref() != Ok("1"),
                "xmllint or {} missing: run scripts/install-deps.sh",
                xsd.display()
            );
            eprintln!("SKIP: xmllint or tools/xsd/junit-10.xsd missing");
            return;
        }
        let long = vec!["x".repeat(1 << 20)];
        let odd = vec!["quote \" amp & lt < nul \u{0} end".to_string()];
        let case = |id, verdict, reasons| JunitCase {
            persona: Some("p&<>\"".to_string()),
            scenario: Some("Title \"quoted\" & <tagged>".to_string()),
            case_id: id,
            trial: 2,
            verdict,
            reasons,
            duration_s: 0.5,
            usage: Usage::default(),
            by_evidence: false,
        };
        let xml = render_junit(
            "s&<>\"",
            &[
                case("a&<>\"'", Verdict::Pass, &[]),
                case("b", Verdict::Fail, &long),
                case("c", Verdict::InfraError, &odd),
                case("d", Verdict::Inconclusive, &odd),
            ],
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("junit.xml");
        std::fs::write(&file, &xml).unwrap();
        let out = std::process::Command::new("xmllint")
            .args(["--noout", "--schema"])
            .arg(&xsd)
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(xml.contains("classname=\"p&amp;&lt;&gt;&quot;\""), "{xml}");
        assert!(
            xml.contains("name=\"Title &quot;quoted&quot; &amp; &lt;tagged&gt; (b#2)\""),
            "{xml}"
        );
    }
}
