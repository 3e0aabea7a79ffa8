//! The findings `ghostlab view` shows beside a run: the job's contract findings and the run's
//! verdict findings (`judge::verdict_findings`), each with what people decided on it
//! (`<job>.decisions.json`), in the words `ghostlab findings list` uses. What could not be read
//! is said in `notes`, never left out silently.

use schemars::JsonSchema;
use serde::Serialize;
use std::path::{Path, PathBuf};

use super::findings_error::FindingsError;
use crate::judge::verdict_findings::{VerdictFinding, standing as verdict_standing};
use crate::mcp::contract::decide::{DecideError, job_findings, verdict_word};
use crate::mcp::contract::decisions::{Decisions, Standing, decisions_path, load};

/// Where a finding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FindingSource {
    /// The MCP contract (`contract.json`, `ghostlab discover`/`lint`).
    Contract,
    /// The evidence policy in a trial's verdict.
    Verdict,
}

/// How a finding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FindingStanding {
    /// Nobody decided: it counts.
    Open,
    /// Accepted or waived on the evidence it still rests on.
    Decided,
    /// Decided on other evidence: it counts again.
    Expired,
    /// No job, so its decisions were not read.
    Unknown,
}

/// A decision as `view --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct ViewDecision {
    /// `accepted` or `waived`.
    pub(crate) decision: String,
    pub(crate) who: String,
    pub(crate) when: String,
    pub(crate) reason: String,
}

/// One finding with its standing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct ViewFinding {
    /// The id `ghostlab findings accept|waive` takes.
    pub(crate) id: String,
    pub(crate) source: FindingSource,
    /// The contract finding's severity; absent for verdict findings.
    pub(crate) severity: Option<String>,
    /// The trial a verdict finding was observed in; absent for contract findings.
    pub(crate) case_id: Option<String>,
    pub(crate) trial: Option<u32>,
    pub(crate) what: String,
    pub(crate) standing: FindingStanding,
    /// The latest decision on it, in force or expired.
    pub(crate) decision: Option<ViewDecision>,
}

/// The findings section of `view --json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct ViewFindings {
    /// The decisions file read; absent when no job was found.
    pub(crate) decisions_file: Option<PathBuf>,
    /// What could not be listed, and why (no contract yet, no job).
    pub(crate) notes: Vec<String>,
    pub(crate) items: Vec<ViewFinding>,
}

fn word(s: &Standing) -> (FindingStanding, Option<ViewDecision>) {
    let view = |d: &crate::mcp::contract::decisions::Decision| ViewDecision {
        decision: verdict_word(d.decision).to_string(),
        who: d.who.clone(),
        when: d.when.clone(),
        reason: d.reason.clone(),
    };
    match s {
        Standing::Open => (FindingStanding::Open, None),
        Standing::Decided(d) => (FindingStanding::Decided, Some(view(d))),
        Standing::Expired(d) => (FindingStanding::Expired, Some(view(d))),
    }
}

fn verdict_item(f: &VerdictFinding, decisions: Option<&Decisions>) -> ViewFinding {
    let (standing, decision) = match decisions {
        Some(d) => word(&verdict_standing(f, d)),
        None => (FindingStanding::Unknown, None),
    };
    ViewFinding {
        id: f.id.clone(),
        source: FindingSource::Verdict,
        severity: None,
        case_id: Some(f.case.clone()),
        trial: Some(f.trial),
        what: f.what.clone(),
        standing,
        decision,
    }
}

/// The job whose decisions and contract apply: its file and state folder.
pub(crate) struct JobPaths<'a> {
    pub(crate) file: &'a Path,
    pub(crate) state_dir: &'a Path,
}

/// The findings of `verdict_findings` (a run's) and of the job's contract, with decisions.
/// An unreadable decisions file or contract is an error naming it; a job without a contract yet
/// gets a note.
pub(crate) fn view_findings(
    job: Option<JobPaths<'_>>,
    verdict_findings: &[VerdictFinding],
) -> Result<ViewFindings, FindingsError> {
    let Some(job) = job else {
        return Ok(ViewFindings {
            decisions_file: None,
            notes: vec!["no job found (pass --job): contract findings and decisions not read".into()],
            items: verdict_findings.iter().map(|f| verdict_item(f, None)).collect(),
        });
    };
    let path = decisions_path(job.file);
    let decisions = load(&path)?;
    let mut out = ViewFindings {
        decisions_file: Some(path),
        ..ViewFindings::default()
    };
    match job_findings(job.file, job.state_dir) {
        Ok(found) => {
            for row in found.rows() {
                let (standing, decision) = word(&row.standing);
                out.items.push(ViewFinding {
                    id: row.id,
                    source: FindingSource::Contract,
                    severity: Some(row.finding.severity.as_str().to_string()),
                    case_id: None,
                    trial: None,
                    what: row.finding.message,
                    standing,
                    decision,
                });
            }
        }
        Err(e @ DecideError::NoContract { .. }) => out.notes.push(e.to_string()),
        Err(e) => return Err(e.into()),
    }
    out.items
        .extend(verdict_findings.iter().map(|f| verdict_item(f, Some(&decisions))));
    Ok(out)
}
