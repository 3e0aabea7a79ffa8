//! The lab's executor side of deciding on findings: the job as saved on disk, read and decided
//! through `mcp::contract::decide`, the code `ghostlab findings` uses.

use std::path::Path;

use super::findings_review::FindingChoice;
use crate::mcp::contract::decide::{self, job_findings, who};
use crate::mcp::contract::decisions::Verdict;

/// The saved job's contract findings with their standing.
pub fn load(job_file: &Path) -> Result<Vec<FindingChoice>, String> {
    let state = crate::spec::load_job(job_file).map_err(|e| e.to_string())?.state_dir();
    let found = job_findings(job_file, &state).map_err(|e| e.to_string())?;
    Ok(found.rows().iter().map(FindingChoice::from).collect())
}

/// Records one decision by the person at the keyboard, then reads the findings again.
pub fn decide(job_file: &Path, finding: &str, verdict: Verdict, reason: &str) -> Result<Vec<FindingChoice>, String> {
    let state = crate::spec::load_job(job_file).map_err(|e| e.to_string())?.state_dir();
    decide::decide(job_file, &state, &[finding.to_string()], verdict, reason, &who()).map_err(|e| e.to_string())?;
    load(job_file)
}
