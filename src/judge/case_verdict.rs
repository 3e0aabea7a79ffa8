//! Putting a case together: conversation end + judge answers + deterministic checks → the
//! decision, and the `verdict.json` artifact.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;

use super::checks::{CheckInput, run_checks};
use super::dataset_checks::run_dataset_checks;
use super::evidence_criteria::settle;
use super::evidence_policy::{Observation, unsettled};
use super::exercises::Coverage;
use super::llm_judge::Judge;
use super::observed::{ObservedFacts, default_checks, observe_events};
use super::verdict::{CheckResult, CriterionResult, Evidence, Verdict, decide};
use crate::redact::Redactor;
use crate::trial::CaseSpec;
use crate::trial::ConversationEnd;
use crate::trial::events::StopReason;

/// Format version of verdict.json.
pub const VERDICT_VERSION: u32 = 1;

/// verdict.json: the decision and everything it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerdictFile {
    pub version: u32,
    pub case: String,
    pub trial: u32,
    pub verdict: Verdict,
    pub reasons: Vec<String>,
    pub criteria: Vec<CriterionResult>,
    pub checks: Vec<CheckResult>,
    pub judge: String,
    /// Wall time of the whole case, judge included.
    #[serde(default)]
    pub duration_ms: u64,
    /// What the harness itself observed (files, network, tool calls, output, secrets).
    #[serde(default)]
    pub observed: ObservedFacts,
}

/// Judges a finished conversation. The judge is not asked when the conversation already
/// failed for infrastructure reasons or because the emulator broke character.
pub async fn judge_case(
    case: &CaseSpec,
    end: &ConversationEnd,
    judge: &dyn Judge,
    checks: &CheckInput<'_>,
) -> VerdictFile {
    let mut evidence = Evidence {
        expected_criteria: case.criterion_ids().len(),
        ..Evidence::default()
    };
    match end {
        ConversationEnd::Infra { component, reason } => evidence.infra_error = Some(format!("{component}: {reason}")),
        ConversationEnd::EmulatorBroke { kind, evidence: ev } => {
            evidence.emulator_break = Some(format!("{kind} ({ev})"))
        }
        ConversationEnd::Completed(_) => match judge.judge(case, checks.events).await {
            Ok(criteria) => evidence.criteria = criteria,
            Err(e) => evidence.infra_error = Some(format!("judge: {e}")),
        },
    }
    let observed = observe_case(checks);
    if evidence.infra_error.is_none() {
        add_harness_evidence(&mut evidence, case, end, checks, &observed);
    }
    let decision = decide(&evidence);
    VerdictFile {
        version: VERDICT_VERSION,
        case: case.id.clone(),
        trial: case.trial,
        verdict: decision.verdict,
        reasons: decision.reasons,
        criteria: evidence.criteria,
        checks: evidence.checks,
        judge: judge.label(),
        duration_ms: 0,
        observed,
    }
}

/// What the harness observed: the events' facts, the files, and every secret found in what
/// the agent wrote (or why the final workspace could not be searched).
fn observe_case(checks: &CheckInput<'_>) -> ObservedFacts {
    let mut observed = observe_events(checks.events);
    observed.files = checks.files.cloned();
    if let Some(f) = checks.files {
        observed.secrets_seen.extend(
            f.outside_secrets
                .iter()
                .map(|p| format!("file written outside the workspace {p}")),
        );
    }
    search_workspace_for_secrets(&mut observed, checks);
    observed
}

/// Secrets in the final workspace: searched in the masked copy, or live where the copy was
/// not kept; a workspace that could be neither leaves the secret check unsettled.
fn search_workspace_for_secrets(observed: &mut ObservedFacts, checks: &CheckInput<'_>) {
    let touched_any = checks
        .files
        .is_some_and(|f| !f.workspace.added.is_empty() || !f.workspace.changed.is_empty());
    if let (false, Some(live)) = (checks.workspace_masked, checks.live_secret_search) {
        match live {
            Ok(hits) => observed
                .secrets_seen
                .extend(hits.iter().map(|p| format!("workspace file {p}"))),
            Err(why) => observed.secrets_unsearched = Some(why.to_string()),
        }
    } else if !checks.workspace_masked && (checks.workspace.is_some() || touched_any) {
        observed.secrets_unsearched = Some(
            "the final workspace was not kept (too large, or it could not be copied), so its files could not be searched for secrets"
                .into(),
        );
    } else if let Some(ws) = checks.workspace {
        // Only files the case added or changed: a secret-shaped fixture the project ships is
        // not the agent's doing.
        let touched = |p: &String| {
            checks
                .files
                .is_none_or(|f| f.workspace.added.contains(p) || f.workspace.changed.contains(p))
        };
        let found = super::secret_scan::masked_files(ws);
        observed
            .secrets_seen
            .extend(found.into_iter().filter(touched).map(|p| format!("workspace file {p}")));
    }
}

/// The harness's own evidence: every deterministic check, the coverage of what the case was
/// written to show, the judge's answers settled against the checks, and the observations no
/// check settles.
fn add_harness_evidence(
    evidence: &mut Evidence,
    case: &CaseSpec,
    end: &ConversationEnd,
    checks: &CheckInput<'_>,
    observed: &ObservedFacts,
) {
    let scenario_checks = &case.scenario.expected.checks;
    evidence.checks = run_checks(checks);
    evidence.checks.extend(default_checks(observed, scenario_checks));
    evidence.checks.extend(run_dataset_checks(
        scenario_checks,
        observed,
        checks.events,
        checks.workspace,
        checks.observability,
    ));
    evidence
        .checks
        .extend(super::exercises::unknown_named_tools(case, checks.known_tools));
    match super::exercises::coverage(case, checks.events) {
        Coverage::Reached(check) => evidence.checks.push(check),
        Coverage::Missed(gap) => evidence.coverage_gaps.push(gap),
        Coverage::NotApplicable => {}
    }
    evidence.criteria = settle(case, std::mem::take(&mut evidence.criteria), &evidence.checks);
    evidence.observations = unsettled(observed, scenario_checks);
    if matches!(end, ConversationEnd::Completed(StopReason::UserGaveUp)) {
        evidence.observations.push(Observation {
            kind: "user-gave-up",
            subject: String::new(),
            what: "the simulated user gave up on its goal".into(),
            event: None,
        });
    }
}

/// Writes verdict.json atomically, redacted.
pub fn write_verdict(path: &Path, verdict: &VerdictFile, redactor: &Redactor) -> std::io::Result<()> {
    crate::util::write_atomic(path, &verdict_bytes(verdict, redactor)?)
}

/// verdict.json's text, redacted (for a caller that commits it as a trial's marker).
pub(crate) fn verdict_bytes(verdict: &VerdictFile, redactor: &Redactor) -> std::io::Result<Vec<u8>> {
    let mut value = serde_json::to_value(verdict).map_err(std::io::Error::other)?;
    redactor.redact_value(&mut value);
    let mut text = serde_json::to_vec_pretty(&value).map_err(std::io::Error::other)?;
    text.push(b'\n');
    Ok(text)
}
