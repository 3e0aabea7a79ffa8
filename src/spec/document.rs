//! Reading one YAML (or JSON) document into a JSON value: bytes (a bounded read of a regular
//! file) → UTF-8 → a linear structure pre-scan (nesting, aliases) → YAML with duplicate keys
//! refused → a top-level mapping. Shared by job.yaml (`load`) and MCP servers files
//! (`mcp_file`), and by the semantic checks that resolve paths against the job's folder.

use serde_json::Value;
use std::path::{Path, PathBuf};

use super::bounded::{MAX_INPUT_BYTES, read_regular_file};
use super::diagnostics::{SpecError, join};
use super::yaml_guard::{check_structure, key_path_at, mapping_path_at};

/// Reads a YAML (or JSON) file into a JSON value, with file-level errors as diagnostics.
pub fn read_yaml_document(path: &Path) -> Result<Value, SpecError> {
    let bytes = read_regular_file(path, MAX_INPUT_BYTES).map_err(|e| SpecError::one(path, "", e.reason()))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| not_utf8(path, &bytes, e.valid_up_to()))?;
    parse_yaml(path, text)
}

/// Where the first invalid byte is, as a person finds it: line, column and the key it is under.
fn not_utf8(path: &Path, bytes: &[u8], valid_up_to: usize) -> SpecError {
    // The prefix up to the bad byte is valid UTF-8 by definition.
    let before = std::str::from_utf8(&bytes[..valid_up_to]).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    SpecError::one(
        path,
        key_path_at(before, line),
        format!(
            "the file is not valid UTF-8: byte 0x{:02x} at line {line} column {column} (byte offset {valid_up_to}); save it as UTF-8",
            bytes[valid_up_to]
        ),
    )
}

pub(super) fn parse_yaml(path: &Path, text: &str) -> Result<Value, SpecError> {
    // A byte-order mark is allowed at the start of a YAML stream; the parser would take it for
    // the start of a second document.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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
    // JSON has no NaN or infinity: the conversion below would turn `.nan` into null, which
    // reads as "not set" and slips past every range check.
    let mut ds = Vec::new();
    super::non_finite::find_non_finite(path, &yaml, "", &mut ds);
    if !ds.is_empty() {
        return Err(SpecError { diagnostics: ds });
    }
    let value: Value = serde_json::to_value(&yaml)
        .map_err(|e| SpecError::one(path, "", format!("malformed YAML: {e} (keys must be strings)")))?;
    super::control_chars::find_control_chars(path, &value, "", &mut ds);
    if !ds.is_empty() {
        return Err(SpecError { diagnostics: ds });
    }
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

/// A short human name for a JSON value's type.
pub(crate) fn json_type(value: &Value) -> &'static str {
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
pub(crate) fn job_dir(path: &Path) -> PathBuf {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}
