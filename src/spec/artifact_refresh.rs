//! Keeping `lab.artifacts` true after a command other than the lab rewrote a generated file.
//! Apart from `artifact_refs` (which the job model uses) because it loads and saves the job.

use std::path::{Path, PathBuf};

use super::SpecError;
use crate::util::bounded::BoundedError;

/// Why `lab.artifacts` could not be refreshed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RefreshError {
    #[error(transparent)]
    Unreadable(#[from] BoundedError),
    #[error(transparent)]
    Job(#[from] SpecError),
    #[error("{}: {source}", path.display())]
    Save {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// After a command other than the lab rewrote a generated file (`generate`, `profile`,
/// `dataset approve|reject|needs-edit|edit`): when job.yaml records `lab.artifacts`, they are
/// refreshed so the job keeps naming the files its runs read; otherwise nothing is written.
/// Returns whether job.yaml was rewritten.
pub(crate) fn refresh_recorded(job_file: &Path) -> Result<bool, RefreshError> {
    let text = crate::util::bounded::read_bounded_string(job_file, crate::util::bounded::FileKind::Config)?;
    let mut job = super::parse_job_text(job_file, &text)?;
    if job.lab.artifacts.is_empty() {
        return Ok(false);
    }
    let fresh = super::artifact_refs::record(&super::load::job_dir(job_file), &job.paths.state_dir);
    if fresh == job.lab.artifacts {
        return Ok(false);
    }
    job.lab.artifacts = fresh;
    super::save_job(job_file, &job).map_err(|source| RefreshError::Save {
        path: job_file.to_path_buf(),
        source,
    })?;
    Ok(true)
}
