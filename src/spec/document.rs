//! Reading one YAML (or JSON) document into a JSON value: bytes → UTF-8 → YAML with duplicate
//! keys refused → a top-level mapping. Shared by job.yaml (`load`) and MCP servers files
//! (`mcp_file`), and by the semantic checks that resolve paths against the job's folder.

use serde_json::Value;
use std::path::{Path, PathBuf};

use super::diagnostics::SpecError;

/// Reads a YAML (or JSON) file into a JSON value, with file-level errors as diagnostics.
pub fn read_yaml_document(path: &Path) -> Result<Value, SpecError> {
    let bytes = std::fs::read(path).map_err(|e| SpecError::one(path, "", format!("cannot read the file: {e}")))?;
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

pub(super) fn parse_yaml(path: &Path, text: &str) -> Result<Value, SpecError> {
    if text.trim().is_empty() {
        return Err(SpecError::one(
            path,
            "",
            "the file is empty; expected a mapping that starts with `version: 1`",
        ));
    }
    // Through yaml_serde's own Value first: it refuses duplicate keys, which a direct
    // conversion into JSON would silently overwrite.
    let yaml: yaml_serde::Value = yaml_serde::from_str(text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(" at line {} column {}", l.line(), l.column()))
            .unwrap_or_default();
        SpecError::one(path, "", format!("malformed YAML{at}: {e}"))
    })?;
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
