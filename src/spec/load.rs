//! Reading job.yaml: bytes → UTF-8 → YAML → schema check (every error, with key paths and
//! nearest keys) → typed `Job` → semantic checks of referenced files.

use serde_json::Value;
use std::path::Path;

use super::check::check_job;
use super::diagnostics::SpecError;
use super::document::parse_yaml;
pub use super::document::{job_dir, json_type, read_yaml_document};
use super::job::{JOB_VERSION, Job};
use super::resolved::LoadedJob;
use super::schema::job_schema;
pub use super::schema_errors::schema_diagnostics;

/// Loads, validates and resolves a job file. All problems are reported together.
pub fn load_job(path: &Path) -> Result<LoadedJob, SpecError> {
    // A save killed mid-write leaves a temp file beside job.yaml; the next start removes it.
    crate::util::atomic::sweep_stale_temps(&job_dir(path), crate::util::atomic::STALE_TEMP_AGE);
    let value = read_yaml_document(path)?;
    let job = typed_job(path, value)?;
    check_job(path, job)
}

/// Parses a job from YAML text already in memory (no referenced-file checks).
pub fn parse_job_text(path: &Path, text: &str) -> Result<Job, SpecError> {
    let value = parse_yaml(path, text)?;
    typed_job(path, value)
}

fn typed_job(path: &Path, value: Value) -> Result<Job, SpecError> {
    match value.get("version") {
        None => {
            return Err(SpecError::one(
                path,
                "version",
                "missing required key; this build reads `version: 1`",
            ));
        }
        Some(v) if v.as_u64() != Some(u64::from(JOB_VERSION)) => {
            return Err(SpecError::one(
                path,
                "version",
                format!("unsupported format version {v}; this build reads version {JOB_VERSION}"),
            ));
        }
        Some(_) => {}
    }
    let diagnostics = schema_diagnostics(path, job_schema(), &value);
    if !diagnostics.is_empty() {
        return Err(SpecError { diagnostics });
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let at = e.path().to_string();
        let at = if at == "." { String::new() } else { at };
        SpecError::one(path, at, format!("invalid value: {}", e.inner()))
    })
}
