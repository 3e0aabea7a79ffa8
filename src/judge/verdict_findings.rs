//! Verdict findings: the evidence policy's observations in a trial (`judge::evidence_policy`:
//! unsanctioned file changes, links out, git internals, writes outside, tool storms, tool
//! results carrying instructions, harness talk, network attempts, rejected calls), named so
//! people can accept or waive them like contract findings (`<job>.decisions.json`).
//!
//! The id is the class, the case and — where a case can hold several of a class — a digest of
//! what it is about: `workspace-added:p1-s2`, `network-attempt:p1-s2@3f9a1c`. It is the same in
//! every run and trial of the case. The evidence digest is the observation's words without
//! event ids (they differ between runs of the same behaviour): when the evidence changes (a
//! different file list, another call count) the decision expires and the finding counts again.
//!
//! What a decision changes is a gate count, never a verdict: an INCONCLUSIVE trial stays
//! INCONCLUSIVE and never counts as PASS; a trial whose every reason is a decided verdict finding
//! is left out of `max_inconclusive_rate`'s numerator (`reviewed_inconclusive`). A FAIL comes from
//! a failed check, which is not a finding and cannot be waived.

use super::case_verdict::VerdictFile;
use super::evidence_policy::unsettled;
use super::verdict::{Observation, Verdict, observation_reason};
use crate::mcp::contract::decisions::{Decisions, Standing, standing_of_id};
use crate::trial::CaseSpec;
use schemars::JsonSchema;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// One evidence-policy observation of one trial, named for decisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct VerdictFinding {
    /// Stable across runs for the same evidence, e.g. `workspace-added:p1-s2`.
    pub(crate) id: String,
    pub(crate) case: String,
    pub(crate) trial: u32,
    /// The evidence policy's class (`workspace-added`, `tool-storm`, …).
    pub(crate) kind: String,
    /// What was observed, as the verdict's reasons say it.
    pub(crate) what: String,
    /// `sha256:` digest of what the finding rests on; a decision holds while it is unchanged.
    pub(crate) evidence: String,
}

/// Drops event ids (`e7`, `e12:`, `(e3:`) so one behaviour digests the same in every run.
fn without_event_ids(text: &str) -> String {
    text.split_whitespace()
        .filter(|w| {
            let w = w
                .trim_start_matches(['(', '['])
                .trim_end_matches([':', ',', ';', ')', ']']);
            !(w.len() > 1 && w.starts_with('e') && w[1..].bytes().all(|b| b.is_ascii_digit()))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn short_digest(text: &str) -> String {
    format!("{:x}", Sha256::digest(text.as_bytes()))[..6].to_string()
}

/// The finding of observation `o` in trial `trial` of `case`.
pub(crate) fn finding_of(case: &str, trial: u32, o: &Observation) -> VerdictFinding {
    let subject = without_event_ids(&o.subject);
    let id = if subject.is_empty() {
        format!("{}:{case}", o.kind)
    } else {
        format!("{}:{case}@{}", o.kind, short_digest(&subject))
    };
    let mut h = Sha256::new();
    for part in [o.kind, subject.as_str(), without_event_ids(&o.what).as_str()] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    VerdictFinding {
        id,
        case: case.to_string(),
        trial,
        kind: o.kind.to_string(),
        what: o.what.clone(),
        evidence: format!("sha256:{:x}", h.finalize()),
    }
}

/// The verdict findings of one judged trial: the policy applied to what verdict.json recorded,
/// with the scenario's checks from case.json. An INFRA_ERROR trial has none (nothing about the
/// agent was concluded, and its observations were never weighed).
pub(crate) fn trial_findings(v: &VerdictFile, case: &CaseSpec) -> Vec<VerdictFinding> {
    if v.verdict == Verdict::InfraError {
        return Vec::new();
    }
    unsettled(&v.observed, &case.scenario.expected.checks)
        .iter()
        .map(|o| finding_of(&v.case, v.trial, o))
        .collect()
}

/// How `f` stands under `decisions`.
pub(crate) fn standing(f: &VerdictFinding, decisions: &Decisions) -> Standing {
    standing_of_id(&f.id, &f.evidence, decisions)
}

/// Whether an INCONCLUSIVE trial's every reason is a verdict finding people decided on (and
/// whose evidence is unchanged): the gate `max_inconclusive_rate` leaves it out. Any other doubt
/// (an unanswered criterion, a check that could not run, an open or expired finding) keeps it in.
pub(crate) fn reviewed_inconclusive(v: &VerdictFile, findings: &[VerdictFinding], decisions: &Decisions) -> bool {
    if v.verdict != Verdict::Inconclusive || v.reasons.is_empty() {
        return false;
    }
    let decided: Vec<String> = findings
        .iter()
        .filter(|f| f.case == v.case && f.trial == v.trial)
        .filter(|f| matches!(standing(f, decisions), Standing::Decided(_)))
        .map(|f| observation_reason(&f.what))
        .collect();
    v.reasons
        .iter()
        .all(|r| decided.iter().any(|d| r.starts_with(d.as_str())))
}

#[cfg(test)]
#[path = "verdict_findings_tests.rs"]
mod tests;
