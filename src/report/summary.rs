//! The summary page: rates and counts from summary.json, run facts from manifest.json,
//! token and cost totals from the events, the chart data and the readiness verdict.
//!
//! Readiness never treats INCONCLUSIVE or INFRA_ERROR as a pass.

use super::model::*;
use super::read::red;
use crate::judge::Verdict;
use crate::redact::Redactor;
use crate::run::store::manifest::Manifest;
use crate::run::suite::SuiteSummary;

pub(super) fn summary_page(
    m: Option<&Manifest>,
    s: Option<&SuiteSummary>,
    trials: &[TrialReport],
    r: &Redactor,
) -> SummaryPage {
    let mut manifest = Vec::new();
    if let Some(m) = m {
        manifest.push(("Harness".into(), m.harness.clone()));
        manifest.push(("Started".into(), m.started.format("%Y-%m-%d %H:%M:%S UTC").to_string()));
        manifest.push(("Agent runner".into(), m.agent_runner.clone()));
        manifest.push(("User emulator".into(), m.emulator.clone()));
        manifest.push(("Judge".into(), m.judge.clone()));
        manifest.push(("Trials per case".into(), m.repeat.to_string()));
        if let Some((i, n)) = m.partition {
            manifest.push(("Partition".into(), format!("{i} of {n}")));
        }
        manifest.push(("Replay".into(), m.replay_note.clone()));
    } else {
        manifest.push(("Manifest".into(), "manifest.json not found in the run folder".into()));
    }
    let manifest = manifest.into_iter().map(|(k, v)| (k, red(r, &v))).collect();
    let mut chart: Vec<ScenarioBar> = Vec::new();
    for t in trials {
        let id = if t.scenario_id.is_empty() {
            t.case_id.clone()
        } else {
            t.scenario_id.clone()
        };
        let idx = match chart.iter().position(|b| b.id == id) {
            Some(i) => i,
            None => {
                // Titles read better than ids (`adversarial-requester--risk-push…`).
                let title = if t.scenario.is_empty() {
                    id.clone()
                } else {
                    t.scenario.clone()
                };
                chart.push(ScenarioBar {
                    scenario: title,
                    id,
                    ..Default::default()
                });
                chart.len() - 1
            }
        };
        let bar = &mut chart[idx];
        match t.verdict {
            Some(Verdict::Pass) => bar.pass += 1,
            Some(Verdict::Fail) => bar.fail += 1,
            Some(Verdict::Inconclusive) => bar.inconclusive += 1,
            // An unfinished trial has no verdict; it is an infrastructure problem, never a pass.
            Some(Verdict::InfraError) | None => bar.infra_error += 1,
        }
    }
    distinct_labels(&mut chart);
    SummaryPage {
        figures: s.map(|s| s.summary.clone()),
        tokens: TokenTotals::default(),
        readiness: readiness(s),
        chart,
        manifest,
    }
}

/// Two scenarios sharing a title are told apart by their ids.
fn distinct_labels(chart: &mut [ScenarioBar]) {
    let titles: Vec<String> = chart.iter().map(|b| b.scenario.clone()).collect();
    for b in chart.iter_mut() {
        if titles.iter().filter(|t| **t == b.scenario).count() > 1 && b.scenario != b.id {
            b.scenario = format!("{} ({})", b.scenario, b.id);
        }
    }
}

/// READY only with a finished run, at least one trial, and every gate met (or, with no gates
/// configured, every trial a PASS). INCONCLUSIVE and INFRA_ERROR never help.
pub(crate) fn readiness(s: Option<&SuiteSummary>) -> Readiness {
    let not = |reasons: Vec<String>| Readiness {
        ready: false,
        label: "NOT READY".into(),
        reasons,
    };
    let Some(s) = s else {
        return not(vec!["the run has no summary.json: it did not finish".into()]);
    };
    if s.summary.trials == 0 {
        return not(vec!["the run has no trials: an empty run proves nothing".into()]);
    }
    let mut reasons: Vec<String> = s
        .gates
        .iter()
        .filter(|g| !g.met)
        .map(|g| format!("gate {} not met: required {}, actual {}", g.gate, g.required, g.actual))
        .collect();
    if s.gates.is_empty() && s.summary.pass < s.summary.trials {
        reasons.push(format!(
            "no gates configured and {} of {} trials did not pass",
            s.summary.trials - s.summary.pass,
            s.summary.trials
        ));
    }
    if reasons.is_empty() {
        let why = if s.gates.is_empty() {
            "no gates configured; every trial passed".to_string()
        } else {
            format!("all {} gates met", s.gates.len())
        };
        Readiness {
            ready: true,
            label: "READY".into(),
            reasons: vec![why],
        }
    } else {
        not(reasons)
    }
}

/// Token, call and cost totals per role, summed over the trials' usage (each counted from its
/// events when the trial was read, so no events.jsonl is read a second time).
pub(super) fn role_tokens(trials: &[TrialReport], emulator_label: Option<&str>) -> TokenTotals {
    let mut usage = crate::trial::Usage::default();
    for t in trials {
        usage.add(&t.usage);
    }
    let total = usage.total();
    TokenTotals {
        roles: super::spend::role_spend(trials, emulator_label).to_vec(),
        cost_usd: total.cost_usd,
        cost_unknown: total.cost_unknown,
        usage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{GateResult, Summary};

    fn suite(pass: usize, trials: usize, gates: Vec<GateResult>) -> SuiteSummary {
        SuiteSummary {
            version: 1,
            run_id: "r".into(),
            summary: Summary {
                cases: 1,
                trials,
                pass,
                inconclusive: trials - pass,
                ..Summary::default()
            },
            gates_met: gates.iter().all(|g| g.met),
            gates,
            cases: vec![],
            usage: Default::default(),
        }
    }

    fn gate(met: bool) -> GateResult {
        GateResult {
            gate: "min_pass_rate".into(),
            required: ">= 80%".into(),
            actual: "50%".into(),
            met,
            figures: None,
        }
    }

    #[test]
    fn readiness_needs_a_finished_non_empty_run_and_every_gate() {
        assert!(!readiness(None).ready);
        assert!(!readiness(Some(&suite(0, 0, vec![]))).ready);
        assert!(!readiness(Some(&suite(1, 2, vec![gate(false)]))).ready);
        assert!(readiness(Some(&suite(1, 2, vec![gate(true)]))).ready);
        // Without gates an INCONCLUSIVE trial is not a pass.
        assert!(!readiness(Some(&suite(1, 2, vec![]))).ready);
        assert!(readiness(Some(&suite(2, 2, vec![]))).ready);
    }
}
