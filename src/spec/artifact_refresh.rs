//! Keeping `lab.artifacts` true after a command other than the lab rewrote a generated file.
//! Apart from `artifact_refs` (which the job model uses) because it loads and saves the job.

use std::path::Path;

/// After a command other than the lab rewrote a generated file (`generate`, `profile`,
/// `dataset approve|reject|needs-edit|edit`): when job.yaml records `lab.artifacts`, they are
/// refreshed so the job keeps naming the files its runs read; otherwise nothing is written.
/// Returns whether job.yaml was rewritten.
pub fn refresh_recorded(job_file: &Path) -> Result<bool, String> {
    let text = crate::util::bounded::read_bounded_string(job_file, crate::util::bounded::FileKind::Config)
        .map_err(|e| e.to_string())?;
    let mut job = super::parse_job_text(job_file, &text).map_err(|e| e.to_string())?;
    if job.lab.artifacts.is_empty() {
        return Ok(false);
    }
    let fresh = super::artifact_refs::record(&super::load::job_dir(job_file), &job.paths.state_dir);
    if fresh == job.lab.artifacts {
        return Ok(false);
    }
    job.lab.artifacts = fresh;
    super::save_job(job_file, &job).map_err(|e| format!("{}: {e}", job_file.display()))?;
    Ok(true)
}
