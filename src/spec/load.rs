//! Reading job.yaml: bytes → UTF-8 → YAML → schema check (every error, with key paths and
//! nearest keys) → typed `Job` → semantic checks of referenced files.

use serde_json::Value;
use std::path::{Path, PathBuf};

use super::bounded::{MAX_INPUT_BYTES, read_regular_file};
use super::check::check_job;
use super::diagnostics::{SpecError, join};
use super::job::{JOB_VERSION, Job};
use super::resolved::LoadedJob;
use super::schema::job_schema;
pub use super::schema_errors::schema_diagnostics;
use super::yaml_guard::{check_structure, key_path_at, mapping_path_at};

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

/// Reads a YAML (or JSON) file into a JSON value, with file-level errors as diagnostics.
pub fn read_yaml_document(path: &Path) -> Result<Value, SpecError> {
    let bytes = read_regular_file(path, MAX_INPUT_BYTES).map_err(|e| SpecError::one(path, "", e))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        SpecError::one(
            path,
            "",
            format!(
                "the file is not valid UTF-8 (first bad byte at offset {})",
                e.valid_up_to()
            ),
        )
    })?;
    parse_yaml(path, text)
}

fn parse_yaml(path: &Path, text: &str) -> Result<Value, SpecError> {
    if text.trim().is_empty() {
        return Err(SpecError::one(
            path,
            "",
            "the file is empty; expected a mapping that starts with `version: 1`",
        ));
    }
    // A linear pre-scan refuses deep nesting and alias bombs before the parser spends time.
    check_structure(text).map_err(|g| {
        SpecError::one(
            path,
            g.path,
            format!("{} at line {} column {}", g.message, g.line, g.column),
        )
    })?;
    // Through yaml_serde's own Value first: it refuses duplicate keys, which a direct
    // conversion into JSON would silently overwrite.
    let yaml: yaml_serde::Value = yaml_serde::from_str(text).map_err(|e| yaml_error(path, text, &e))?;
    let value: Value = serde_json::to_value(&yaml)
        .map_err(|e| SpecError::one(path, "", format!("malformed YAML: {e} (keys must be strings)")))?;
    if !value.is_object() {
        return Err(SpecError::one(
            path,
            "",
            format!("expected a mapping at the top level, found {}", json_type(&value)),
        ));
    }
    Ok(value)
}

/// A parser error with the key path at its position (duplicate keys, bad indentation) and the
/// line and column.
fn yaml_error(path: &Path, text: &str, e: &yaml_serde::Error) -> SpecError {
    let message = e.to_string();
    let message = match message.split_once(" at line ") {
        Some((head, _)) => head.to_string(),
        None => message,
    };
    let duplicate = message
        .split_once("duplicate entry with key \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(key, _)| key.to_string());
    match e.location() {
        Some(l) => {
            let at = match &duplicate {
                Some(key) => join(&mapping_path_at(text, l.line(), l.column()), key),
                None => key_path_at(text, l.line()),
            };
            SpecError::one(
                path,
                at,
                format!("malformed YAML at line {} column {}: {message}", l.line(), l.column()),
            )
        }
        None if message.contains("repetition limit") => SpecError::one(
            path,
            "",
            "aliases expand the document too far (the parser's alias-expansion budget)",
        ),
        None => SpecError::one(path, "", format!("malformed YAML: {message}")),
    }
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

/// A short human name for a JSON value's type.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing (null)",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// The directory a job's relative paths resolve against.
pub fn job_dir(path: &Path) -> PathBuf {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}
