//! Aggregation over cases and trials (pass@1, pass^k, flakiness) and the release gates.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::verdict::Verdict;
use crate::spec::Gates;
use crate::spec::review::PassK;

/// All trials of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CaseTrials {
    pub case_id: String,
    pub trials: Vec<Verdict>,
}

impl CaseTrials {
    pub(crate) fn passes(&self) -> usize {
        self.trials.iter().filter(|v| v.is_pass()).count()
    }

    /// Share of trials that passed (0 when there were none).
    pub(crate) fn pass_at_1(&self) -> f64 {
        if self.trials.is_empty() {
            0.0
        } else {
            self.passes() as f64 / self.trials.len() as f64
        }
    }

    /// Every trial passed (and there was at least one).
    pub(crate) fn pass_all(&self) -> bool {
        !self.trials.is_empty() && self.trials.iter().all(|v| v.is_pass())
    }

    /// Some trials passed and some did not.
    pub(crate) fn is_flaky(&self) -> bool {
        let p = self.passes();
        p > 0 && p < self.trials.len()
    }
}

/// Run-wide figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, JsonSchema)]
pub struct Summary {
    pub cases: usize,
    pub trials: usize,
    pub pass: usize,
    pub fail: usize,
    pub inconclusive: usize,
    pub infra_error: usize,
    /// Of `pass`, the trials whose every criterion the evidence settled (no judge needed);
    /// absent in summaries written before it.
    #[serde(default)]
    pub pass_by_evidence: usize,
    /// Of `fail`, the trials the evidence found failing (a failed check or a bound criterion
    /// found violated), whatever a judge said; absent in summaries written before it.
    #[serde(default)]
    pub fail_by_evidence: usize,
    /// Mean over cases of each case's pass share.
    pub pass_at_1: f64,
    /// Share of cases whose every trial passed.
    pub pass_hat_k: f64,
    pub flaky_cases: Vec<String>,
}

pub fn summarize(cases: &[CaseTrials]) -> Summary {
    let mut s = Summary {
        cases: cases.len(),
        ..Summary::default()
    };
    for c in cases {
        for v in &c.trials {
            s.trials += 1;
            match v {
                Verdict::Pass => s.pass += 1,
                Verdict::Fail => s.fail += 1,
                Verdict::Inconclusive => s.inconclusive += 1,
                Verdict::InfraError => s.infra_error += 1,
            }
        }
        if c.is_flaky() {
            s.flaky_cases.push(c.case_id.clone());
        }
    }
    if !cases.is_empty() {
        s.pass_at_1 = cases.iter().map(CaseTrials::pass_at_1).sum::<f64>() / cases.len() as f64;
        s.pass_hat_k = cases.iter().filter(|c| c.pass_all()).count() as f64 / cases.len() as f64;
    }
    s
}

/// Facts from outside the verdicts that some gates read. The default knows no contract, so a
/// contract gate built on it is not met: facts nobody gathered never read as "none found".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GateFacts {
    pub contract: ContractFacts,
    pub denied_egress: usize,
    /// People's decisions on the job's findings (`<job>.decisions.json`), for the verdict
    /// findings of the trials (`judge::verdict_findings`).
    #[serde(default)]
    pub decisions: crate::mcp::contract::decisions::Decisions,
    /// INCONCLUSIVE trials whose every reason is a decided verdict finding: still INCONCLUSIVE,
    /// never a pass, but left out of `max_inconclusive_rate`. Filled when the outcome is written.
    #[serde(default)]
    pub reviewed_inconclusive: usize,
}

/// What the MCP contract says, or why it could not say anything.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ContractFacts {
    Linted {
        high_security_findings: usize,
        tool_schema_errors: usize,
    },
    Missing {
        reason: String,
    },
}

impl Default for ContractFacts {
    fn default() -> Self {
        ContractFacts::Missing {
            reason: "contract facts not gathered".into(),
        }
    }
}

impl ContractFacts {
    /// A contract with these counts.
    pub fn linted(high_security_findings: usize, tool_schema_errors: usize) -> Self {
        ContractFacts::Linted {
            high_security_findings,
            tool_schema_errors,
        }
    }
}

/// One gate's outcome: `required`/`actual` for people, the flattened `figures` for machines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GateResult {
    pub gate: String,
    pub required: String,
    pub actual: String,
    pub met: bool,
    /// The requirement and the measured value as numbers (absent in summaries written before
    /// them, and where nothing could be measured: `value` is then absent too).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub figures: Option<GateFigures>,
}

/// A gate's requirement as numbers: met when `value` `comparison` `threshold`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GateFigures {
    pub(crate) threshold: f64,
    /// The measured value; absent when its input was missing (e.g. no contract.json).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<f64>,
    pub(crate) unit: GateUnit,
    pub(crate) comparison: Comparison,
}

/// What a gate's numbers count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum GateUnit {
    /// A share between 0 and 1 (0.8 = 80 %).
    Ratio,
    /// A number of findings, attempts or trials.
    Count,
}

/// How `value` must relate to `threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) enum Comparison {
    #[serde(rename = ">=")]
    AtLeast,
    #[serde(rename = "<=")]
    AtMost,
}

impl GateFigures {
    pub(crate) fn new(threshold: f64, value: Option<f64>, unit: GateUnit, comparison: Comparison) -> Option<Self> {
        Some(GateFigures {
            threshold,
            value,
            unit,
            comparison,
        })
    }
}

/// Applies every configured gate. With no cases at all, rate gates are not met: an empty run
/// proves nothing.
pub fn apply_gates(gates: &Gates, summary: &Summary, cases: &[CaseTrials], facts: &GateFacts) -> Vec<GateResult> {
    let run = RunFigures { summary, cases };
    [
        gates.min_pass_rate.map(|min| run.min_pass_rate(min)),
        gates.pass_k.as_ref().map(|pk| run.pass_k(pk)),
        gates
            .max_inconclusive_rate
            .map(|max| run.max_inconclusive_rate(max, facts.reviewed_inconclusive)),
        gates.max_infra_error_rate.map(|max| run.max_infra_error_rate(max)),
        (gates.no_high_security_findings == Some(true))
            .then(|| contract_gate(&facts.contract, "no_high_security_findings", |security, _| security)),
        (gates.no_tool_schema_errors == Some(true))
            .then(|| contract_gate(&facts.contract, "no_tool_schema_errors", |_, schema| schema)),
        (gates.no_denied_egress == Some(true)).then(|| denied_egress_gate(facts.denied_egress)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// What the rate gates read: the summary and the cases. No rate gate is met by an empty run.
struct RunFigures<'a> {
    summary: &'a Summary,
    cases: &'a [CaseTrials],
}

impl RunFigures<'_> {
    fn empty(&self) -> bool {
        self.summary.trials == 0
    }

    /// The denominator of the per-trial rates (1 for an empty run, which meets no gate anyway).
    fn trials(&self) -> f64 {
        self.summary.trials.max(1) as f64
    }

    fn min_pass_rate(&self, min: f64) -> GateResult {
        let rate = self.summary.pass_at_1;
        GateResult {
            gate: "min_pass_rate".into(),
            required: format!(">= {}", pct(min)),
            actual: pct(rate),
            met: !self.empty() && rate + 1e-12 >= min,
            figures: GateFigures::new(min, Some(rate), GateUnit::Ratio, Comparison::AtLeast),
        }
    }

    /// Share of cases whose every trial passed, counting only cases that ran at least k trials;
    /// a case that ran fewer keeps the gate unmet.
    fn pass_k(&self, pk: &PassK) -> GateResult {
        let cases = self.cases;
        let enough: Vec<&CaseTrials> = cases.iter().filter(|c| c.trials.len() >= pk.k as usize).collect();
        let rate = if cases.is_empty() {
            0.0
        } else {
            enough.iter().filter(|c| c.pass_all()).count() as f64 / cases.len() as f64
        };
        let short = cases.len() - enough.len();
        let actual = if short > 0 {
            format!("{} ({short} case(s) ran fewer than {} trials)", pct(rate), pk.k)
        } else {
            pct(rate)
        };
        GateResult {
            gate: format!("pass^{}", pk.k),
            required: format!(">= {}", pct(pk.min_rate)),
            actual,
            met: !self.empty() && short == 0 && rate + 1e-12 >= pk.min_rate,
            figures: GateFigures::new(pk.min_rate, Some(rate), GateUnit::Ratio, Comparison::AtLeast),
        }
    }

    fn max_inconclusive_rate(&self, max: f64, reviewed_inconclusive: usize) -> GateResult {
        // Reviewed trials (every doubt a decided verdict finding) stay INCONCLUSIVE elsewhere.
        let reviewed = reviewed_inconclusive.min(self.summary.inconclusive);
        let rate = (self.summary.inconclusive - reviewed) as f64 / self.trials();
        let actual = if reviewed > 0 {
            format!(
                "{} ({reviewed} INCONCLUSIVE trial(s) left out: their only doubts are decided findings)",
                pct(rate)
            )
        } else {
            pct(rate)
        };
        GateResult {
            gate: "max_inconclusive_rate".into(),
            required: format!("<= {}", pct(max)),
            actual,
            met: !self.empty() && rate <= max + 1e-12,
            figures: GateFigures::new(max, Some(rate), GateUnit::Ratio, Comparison::AtMost),
        }
    }

    fn max_infra_error_rate(&self, max: f64) -> GateResult {
        let rate = self.summary.infra_error as f64 / self.trials();
        GateResult {
            gate: "max_infra_error_rate".into(),
            required: format!("<= {}", pct(max)),
            actual: pct(rate),
            met: !self.empty() && rate <= max + 1e-12,
            figures: GateFigures::new(max, Some(rate), GateUnit::Ratio, Comparison::AtMost),
        }
    }
}

/// A contract gate: met when the picked count is 0; never met when the contract facts are
/// missing (facts nobody gathered never read as "none found").
fn contract_gate(contract: &ContractFacts, name: &str, pick: fn(usize, usize) -> usize) -> GateResult {
    let (actual, met, value) = match contract {
        ContractFacts::Linted {
            high_security_findings,
            tool_schema_errors,
        } => {
            let n = pick(*high_security_findings, *tool_schema_errors);
            (n.to_string(), n == 0, Some(n as f64))
        }
        ContractFacts::Missing { reason } => (reason.clone(), false, None),
    };
    GateResult {
        gate: name.into(),
        required: "0".into(),
        actual,
        met,
        figures: GateFigures::new(0.0, value, GateUnit::Count, Comparison::AtMost),
    }
}

fn denied_egress_gate(denied: usize) -> GateResult {
    GateResult {
        gate: "no_denied_egress".into(),
        required: "0".into(),
        actual: denied.to_string(),
        met: denied == 0,
        figures: GateFigures::new(0.0, Some(denied as f64), GateUnit::Count, Comparison::AtMost),
    }
}

#[cfg(test)]
#[path = "gates_tests.rs"]
mod tests;
