//! JUnit XML for CI systems. FAIL is a `<failure>`; INFRA_ERROR and INCONCLUSIVE are `<error>`s,
//! so neither shows as green in a CI dashboard.

use super::verdict::Verdict;

/// One test case line of the report.
pub struct JunitCase<'a> {
    pub case_id: &'a str,
    pub trial: u32,
    pub verdict: Verdict,
    pub reasons: &'a [String],
    pub duration_s: f64,
}

pub fn render_junit(suite: &str, cases: &[JunitCase<'_>]) -> String {
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
    for c in cases {
        xml.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}#{}\" time=\"{:.3}\"",
            esc(suite),
            esc(c.case_id),
            c.trial,
            c.duration_s
        ));
        let message = esc(&c.reasons.join("; "));
        match c.verdict {
            Verdict::Pass => xml.push_str("/>\n"),
            Verdict::Fail => xml.push_str(&format!(
                ">\n      <failure type=\"FAIL\" message=\"{message}\"/>\n    </testcase>\n"
            )),
            other => xml.push_str(&format!(
                ">\n      <error type=\"{}\" message=\"{message}\"/>\n    </testcase>\n",
                other.as_str()
            )),
        }
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
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
                    case_id: "a",
                    trial: 1,
                    verdict: Verdict::Pass,
                    reasons: &[],
                    duration_s: 1.0,
                },
                JunitCase {
                    case_id: "b<&>",
                    trial: 1,
                    verdict: Verdict::Inconclusive,
                    reasons: &r,
                    duration_s: 1.0,
                },
                JunitCase {
                    case_id: "c",
                    trial: 1,
                    verdict: Verdict::InfraError,
                    reasons: &r,
                    duration_s: 1.0,
                },
                JunitCase {
                    case_id: "d",
                    trial: 1,
                    verdict: Verdict::Fail,
                    reasons: &r,
                    duration_s: 1.0,
                },
            ],
        );
        assert!(xml.contains("tests=\"4\" failures=\"1\" errors=\"2\""));
        assert!(xml.contains("name=\"b&lt;&amp;&gt;#1\""));
        assert!(xml.contains("<error type=\"INCONCLUSIVE\""));
    }
}
