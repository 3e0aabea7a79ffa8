//! Reading job.yaml: bytes → UTF-8 → YAML → schema check (every error, with key paths and
//! nearest keys) → typed `Job` → semantic checks of referenced files.

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde_json::Value;
use std::path::Path;
use std::sync::LazyLock;

use super::check::check_job;
use super::diagnostics::{Diagnostic, SpecError, diag, join, nearest};
use super::document::parse_yaml;
pub use super::document::{job_dir, json_type, read_yaml_document};
use super::job::{JOB_VERSION, Job};
use super::resolved::LoadedJob;
use super::schema::{job_schema, node_at, resolve_ref};

/// Loads, validates and resolves a job file. All problems are reported together.
pub fn load_job(path: &Path) -> Result<LoadedJob, SpecError> {
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
    serde_json::from_value(value).map_err(|e| SpecError::one(path, "", format!("invalid job: {e}")))
}

/// Validates `value` against `schema` and turns every violation into a diagnostic.
pub fn schema_diagnostics(path: &Path, schema: &Value, value: &Value) -> Vec<Diagnostic> {
    static JOB_VALIDATOR: LazyLock<jsonschema::Validator> =
        LazyLock::new(|| jsonschema::validator_for(job_schema()).expect("job schema compiles"));
    let owned;
    let validator = if std::ptr::eq(schema, job_schema()) {
        &*JOB_VALIDATOR
    } else {
        owned = match jsonschema::validator_for(schema) {
            Ok(v) => v,
            Err(e) => return vec![diag(path, "", format!("internal schema error: {e}"))],
        };
        &owned
    };
    let mut out = Vec::new();
    for error in validator.iter_errors(value) {
        let at = dotted(error.instance_path().segments());
        let schema_tokens: Vec<String> = error.schema_path().segments().map(|s| s.to_string()).collect();
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let parent_tokens = &schema_tokens[..schema_tokens.len().saturating_sub(1)];
                let known = known_keys(schema, parent_tokens);
                for key in unexpected {
                    let mut d = diag(path, join(&at, key), format!("unknown key `{key}`"));
                    d.hint = match nearest(key, known.iter().map(String::as_str)) {
                        Some(k) => Some(format!("did you mean `{k}`?")),
                        None if !known.is_empty() => Some(format!("valid keys here: {}", known.join(", "))),
                        None => None,
                    };
                    out.push(d);
                }
            }
            ValidationErrorKind::Required { property } => {
                let key = property.as_str().unwrap_or_default();
                out.push(diag(path, join(&at, key), "missing required key"));
            }
            ValidationErrorKind::Type { kind } => {
                out.push(diag(
                    path,
                    at,
                    format!(
                        "wrong type: expected {}, found {}",
                        type_names(kind),
                        json_type(error.instance())
                    ),
                ));
            }
            ValidationErrorKind::Enum { options } => {
                let allowed: Vec<String> = options
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|v| v.as_str().map(str::to_string).unwrap_or(v.to_string()))
                            .collect()
                    })
                    .unwrap_or_default();
                let found = error
                    .instance()
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or(error.instance().to_string());
                let mut d = diag(path, at, format!("`{found}` is not one of: {}", allowed.join(", ")));
                d.hint = nearest(&found, allowed.iter().map(String::as_str)).map(|k| format!("did you mean `{k}`?"));
                out.push(d);
            }
            ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
                let node = node_at(schema, &schema_tokens[..schema_tokens.len().saturating_sub(1)]);
                if let Some(allowed) = node.and_then(|n| enum_choices(schema, n)) {
                    let found = error
                        .instance()
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or(error.instance().to_string());
                    let mut d = diag(path, at, format!("`{found}` is not one of: {}", allowed.join(", ")));
                    d.hint =
                        nearest(&found, allowed.iter().map(String::as_str)).map(|k| format!("did you mean `{k}`?"));
                    out.push(d);
                    continue;
                }
                let what = node
                    .and_then(|n| n.get("description"))
                    .and_then(Value::as_str)
                    .map(|d| d.lines().next().unwrap_or(d).to_string())
                    .unwrap_or_else(|| "one of the allowed forms".to_string());
                out.push(diag(
                    path,
                    at,
                    format!("invalid value {}: expected {what}", short(error.instance())),
                ));
            }
            _ => out.push(diag(path, at, error.to_string())),
        }
    }
    out
}

/// For a `oneOf`/`anyOf` whose alternatives are all constants (how documented enums are
/// generated), the allowed values.
fn enum_choices(schema: &Value, node: &Value) -> Option<Vec<String>> {
    let node = resolve_ref(schema, node)?;
    let alternatives = node.get("oneOf").or_else(|| node.get("anyOf"))?.as_array()?;
    let mut out = Vec::new();
    for alt in alternatives {
        let alt = resolve_ref(schema, alt)?;
        if let Some(c) = alt.get("const").and_then(Value::as_str) {
            out.push(c.to_string());
        } else if let Some(values) = alt.get("enum").and_then(Value::as_array) {
            out.extend(values.iter().filter_map(Value::as_str).map(str::to_string));
        } else {
            return None;
        }
    }
    Some(out)
}

/// The property names valid at the schema node reached by `tokens`.
fn known_keys(schema: &Value, tokens: &[String]) -> Vec<String> {
    node_at(schema, tokens)
        .and_then(|n| resolve_ref(schema, n))
        .and_then(|n| n.get("properties"))
        .and_then(Value::as_object)
        .map(|props| props.keys().cloned().collect())
        .unwrap_or_default()
}

fn dotted<'a>(segments: impl Iterator<Item = LocationSegment<'a>>) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            LocationSegment::Index(i) => out.push_str(&format!("[{i}]")),
            LocationSegment::Property(p) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&p);
            }
        }
    }
    out
}

fn type_names(kind: &jsonschema::error::TypeKind) -> String {
    match kind {
        jsonschema::error::TypeKind::Single(t) => t.to_string(),
        jsonschema::error::TypeKind::Multiple(set) => {
            set.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" or ")
        }
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}
