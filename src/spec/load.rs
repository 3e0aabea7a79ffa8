//! Reading job.yaml: bytes → UTF-8 → YAML → schema check (every error, with key paths and
//! nearest keys) → typed `Job` → semantic checks of referenced files.

use serde_json::Value;
use std::path::Path;

use super::check::check_job;
use super::diagnostics::SpecError;
pub(crate) use super::document::job_dir;
use super::document::parse_yaml;
pub use super::document::read_yaml_document;
use super::job::{JOB_VERSION, Job};
use super::resolved::LoadedJob;
use super::schema::job_schema;
pub(crate) use super::schema_errors::schema_diagnostics;
use super::schema_errors::schema_rule_check;

/// Loads, validates and resolves a job file. All problems are reported together.
pub fn load_job(path: &Path) -> Result<LoadedJob, SpecError> {
    // A save killed mid-write leaves a temp file beside job.yaml; the next start removes it.
    crate::util::atomic::sweep_stale_temps(&job_dir(path), crate::util::atomic::STALE_TEMP_AGE);
    let value = read_yaml_document(path)?;
    check_version(path, &value)?;
    let (schema_errors, only_rules) = schema_rule_check(path, &value);
    // A value that breaks only value rules (a range, a form, a key another key needs) still has
    // its type: the semantic checks name the same problem in their own words and add the
    // checks the schema cannot make. A schema error they did not name is kept, so the job is
    // refused whenever the schema refuses it.
    if only_rules {
        let job = match deserialize(path, value) {
            Ok(job) => job,
            Err(e) if schema_errors.is_empty() => return Err(e),
            // The schema's range error explains a value too large for its type better.
            Err(_) => {
                return Err(SpecError {
                    diagnostics: schema_errors,
                });
            }
        };
        return match check_job(path, job) {
            Ok(loaded) if schema_errors.is_empty() => Ok(loaded),
            Ok(_) => Err(SpecError {
                diagnostics: schema_errors,
            }),
            Err(mut checked) => {
                let named =
                    |d: &super::diagnostics::Diagnostic| checked.diagnostics.iter().any(|c| overlaps(&c.path, &d.path));
                let unnamed: Vec<_> = schema_errors.iter().filter(|d| !named(d)).cloned().collect();
                checked.diagnostics.extend(unnamed);
                Err(checked)
            }
        };
    }
    Err(SpecError {
        diagnostics: schema_errors,
    })
}

/// One key path is the other or lies under it (`a.b` and `a.b[0]`, `a.b` and `a.b.c`).
fn overlaps(a: &str, b: &str) -> bool {
    let under = |long: &str, short: &str| {
        long == short
            || long
                .strip_prefix(short)
                .is_some_and(|rest| rest.starts_with(['.', '[']))
    };
    under(a, b) || under(b, a)
}

/// Parses a job from YAML text already in memory (no referenced-file checks).
pub(crate) fn parse_job_text(path: &Path, text: &str) -> Result<Job, SpecError> {
    let value = parse_yaml(path, text)?;
    typed_job(path, value)
}

fn typed_job(path: &Path, value: Value) -> Result<Job, SpecError> {
    check_version(path, &value)?;
    let diagnostics = schema_diagnostics(path, job_schema(), &value);
    if !diagnostics.is_empty() {
        return Err(SpecError { diagnostics });
    }
    let mut job = deserialize(path, value)?;
    super::target::normalise_target(path, &mut job).map_err(|diagnostics| SpecError { diagnostics })?;
    Ok(job)
}

/// `version` first: a file of another version is not judged by this version's schema.
fn check_version(path: &Path, value: &Value) -> Result<(), SpecError> {
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
    Ok(())
}

fn deserialize(path: &Path, value: Value) -> Result<Job, SpecError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let at = e.path().to_string();
        let at = if at == "." { String::new() } else { at };
        SpecError::one(path, at, format!("invalid value: {}", e.inner()))
    })
}
