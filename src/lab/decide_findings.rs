//! The lab's executor side of deciding on findings: the job as saved on disk, its contract
//! findings and the verdict findings of its newest run, read and decided through
//! `mcp::contract::decide`, the code `ghostlab findings` uses.

use std::path::Path;

pub use super::findings_error::FindingsError;
use super::findings_review::FindingChoice;
use crate::judge::verdict_findings::{VerdictFinding, standing};
use crate::mcp::contract::decide::{self, DecideError, KnownFinding, job_findings, who};
use crate::mcp::contract::decisions::{Standing, Verdict, decisions_path};

/// The verdict findings of the job's newest run, one per id and evidence (every trial of a case
/// with the same evidence shares its finding).
fn newest_run_findings(state: &Path) -> Vec<VerdictFinding> {
    let Some(run) = super::stored_run::pick_run(None, state) else {
        return Vec::new();
    };
    let mut shown: Vec<VerdictFinding> = Vec::new();
    for f in crate::run::results::run_findings::run_findings(&run) {
        if !shown.iter().any(|s| s.id == f.id && s.evidence == f.evidence) {
            shown.push(f);
        }
    }
    shown
}

/// The saved job's contract findings and its newest run's verdict findings, with their standing.
pub fn load(job_file: &Path) -> Result<Vec<FindingChoice>, FindingsError> {
    let state = crate::spec::load_job(job_file)?.state_dir();
    let verdict = newest_run_findings(&state);
    let mut rows: Vec<FindingChoice> = match job_findings(job_file, &state) {
        Ok(found) => found.rows().iter().map(FindingChoice::from).collect(),
        // Without a contract the run's findings can still be decided on.
        Err(DecideError::NoContract { .. }) if !verdict.is_empty() => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    let decisions = crate::mcp::contract::decisions::load(&decisions_path(job_file))?;
    rows.extend(verdict.iter().map(|f| {
        let standing = standing(f, &decisions);
        FindingChoice {
            id: f.id.clone(),
            severity: "verdict".into(),
            message: format!("{} (trial {})", f.what, f.trial),
            standing: decide::describe(&standing),
            counts: !matches!(standing, Standing::Decided(_)),
        }
    }));
    Ok(rows)
}

/// Records one decision by the person at the keyboard, then reads the findings again.
pub fn decide(
    job_file: &Path,
    finding: &str,
    verdict: Verdict,
    reason: &str,
) -> Result<Vec<FindingChoice>, FindingsError> {
    let state = crate::spec::load_job(job_file)?.state_dir();
    let known: Vec<KnownFinding> = newest_run_findings(&state)
        .into_iter()
        .map(|f| KnownFinding {
            id: f.id,
            evidence: f.evidence,
        })
        .collect();
    decide::decide_with(
        job_file,
        &state,
        &known,
        &[finding.to_string()],
        verdict,
        reason,
        &who(),
    )?;
    load(job_file)
}
