//! Writing job.yaml atomically. `${VAR}` references are written as they are, never expanded.

use std::path::Path;

use super::job::Job;

/// Header written above every saved job.
const HEADER: &str = "# Ghostlab job. Reference: docs/job-yaml.md; schema: schemas/job.schema.json\n";

/// Renders a job as YAML text.
pub(crate) fn job_to_yaml(job: &Job) -> String {
    let body = yaml_serde::to_string(job).expect("a job always serializes");
    format!("{HEADER}{body}")
}

/// Saves a job atomically (temp file + rename): a crash leaves the old or the new file.
pub fn save_job(path: &Path, job: &Job) -> std::io::Result<()> {
    crate::util::write_atomic(path, job_to_yaml(job).as_bytes())
}
