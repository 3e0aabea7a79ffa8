//! The one-line account of a suite, the same for `test`, `merge`, `rescore` and the lab.

use std::fmt;

use crate::run::suite::SuiteSummary;

impl fmt::Display for SuiteSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.summary;
        write!(
            f,
            "{} case(s), {} trial(s): {} PASS, {} FAIL, {} INCONCLUSIVE, {} INFRA_ERROR · settled by evidence: {} PASS, {} FAIL · pass@1 {:.1}% · pass^k {:.1}% · {} · gates {}",
            s.cases,
            s.trials,
            s.pass,
            s.fail,
            s.inconclusive,
            s.infra_error,
            s.pass_by_evidence,
            s.fail_by_evidence,
            s.pass_at_1 * 100.0,
            s.pass_hat_k * 100.0,
            self.usage.cost_line(),
            if self.gates_met { "met" } else { "NOT met" }
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::judge::{CaseTrials, summarize};
    use crate::run::suite::{SUMMARY_VERSION, SuiteSummary};
    use crate::trial::Verdict;

    #[test]
    fn the_line_counts_every_verdict_and_says_whether_gates_are_met() {
        let cases = vec![CaseTrials {
            case_id: "c".into(),
            trials: vec![Verdict::Pass, Verdict::InfraError],
        }];
        let line = SuiteSummary {
            version: SUMMARY_VERSION,
            run_id: "r".into(),
            summary: summarize(&cases),
            gates: Vec::new(),
            gates_met: false,
            cases,
            usage: Default::default(),
        }
        .to_string();
        assert!(
            line.starts_with("1 case(s), 2 trial(s): 1 PASS, 0 FAIL, 0 INCONCLUSIVE, 1 INFRA_ERROR"),
            "{line}"
        );
        assert!(line.ends_with("· cost $0.0000 · gates NOT met"), "{line}");
        assert!(line.contains("· settled by evidence: 0 PASS, 0 FAIL ·"), "{line}");
    }
}
