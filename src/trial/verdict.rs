//! The four verdicts and the two kinds of criterion. The rules that produce a verdict live in
//! `crate::judge::verdict`; these are only the words.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The outcome of one case (one trial of one persona × scenario).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    Pass,
    Fail,
    Inconclusive,
    InfraError,
}

impl Verdict {
    /// True only for PASS: the one verdict that counts toward a pass rate's numerator.
    pub(crate) fn is_pass(self) -> bool {
        matches!(self, Verdict::Pass)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Inconclusive => "INCONCLUSIVE",
            Verdict::InfraError => "INFRA_ERROR",
        }
    }
}

/// Whether a criterion is something the agent must achieve or a signal it must avoid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CriterionKind {
    Success,
    FailureSignal,
}
