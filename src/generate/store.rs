//! Reading and writing the generated artifacts under the job's state dir. Every artifact is
//! schema-checked on the way in and on the way out, and written atomically.
//!
//! Nothing else in Ghostlab writes these files.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::{Path, PathBuf};

use super::GenerateError;
use super::schema::{ArtifactKind, checked_value, parse_artifact};

/// Where `kind` lives under `state_dir`.
pub(crate) fn artifact_path(state_dir: &Path, kind: ArtifactKind) -> PathBuf {
    state_dir.join(kind.artifact_file())
}

/// Validates `artifact` against its schema, then writes it atomically; returns the path.
pub(crate) fn write_artifact<T: Serialize>(
    state_dir: &Path,
    kind: ArtifactKind,
    artifact: &T,
) -> Result<PathBuf, GenerateError> {
    let value = checked_value(kind, artifact).map_err(|problems| GenerateError::Invalid {
        artifact: kind.name(),
        detail: problems.join("; "),
    })?;
    let path = artifact_path(state_dir, kind);
    crate::util::write_json_atomic(&path, &value).map_err(|e| GenerateError::Artifact {
        path: path.clone(),
        detail: format!("cannot write: {e}"),
    })?;
    Ok(path)
}

/// Reads and validates an artifact; `Ok(None)` when the file does not exist.
pub(crate) fn read_artifact_opt<T: DeserializeOwned>(
    state_dir: &Path,
    kind: ArtifactKind,
) -> Result<Option<T>, GenerateError> {
    let path = artifact_path(state_dir, kind);
    let text = match crate::util::bounded::read_optional_string(&path, crate::util::bounded::FileKind::State) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => {
            return Err(GenerateError::Artifact {
                path,
                detail: e.reason(),
            });
        }
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| GenerateError::Artifact {
        path: path.clone(),
        detail: format!("not valid JSON: {e}"),
    })?;
    parse_artifact(kind, value)
        .map(Some)
        .map_err(|problems| GenerateError::Artifact {
            path,
            detail: format!("does not match schemas/{}: {}", kind.schema_file(), problems.join("; ")),
        })
}

/// Reads and validates an artifact that must exist.
pub fn read_artifact<T: DeserializeOwned>(state_dir: &Path, kind: ArtifactKind) -> Result<T, GenerateError> {
    read_artifact_opt(state_dir, kind)?.ok_or_else(|| GenerateError::Artifact {
        path: artifact_path(state_dir, kind),
        detail: "missing; run `ghostlab generate --job <job.yaml>` first".into(),
    })
}

/// Why `set_path` cannot set a dotted key (the caller names the flag or file).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SetPathError {
    #[error("unknown key `{0}`")]
    UnknownKey(String),
    #[error("`{part}` in `{dotted}` is not an index")]
    NotAnIndex { part: String, dotted: String },
    #[error("index {index} in `{dotted}` is out of range (length {len})")]
    OutOfRange { index: usize, dotted: String, len: usize },
    #[error("`{0}` goes inside a value that has no keys")]
    NoKeys(String),
    #[error("empty key")]
    Empty,
}

/// Sets `dotted` (`goal`, `expected_outcome.must_include`, `success_criteria.0`) in a JSON value.
pub(crate) fn set_path(target: &mut Value, dotted: &str, new: Value) -> Result<(), SetPathError> {
    let mut node = target;
    let parts: Vec<&str> = dotted.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        node = match node {
            Value::Object(map) => {
                if last {
                    if !map.contains_key(*part) {
                        return Err(SetPathError::UnknownKey(dotted.to_string()));
                    }
                    map.insert((*part).to_string(), new);
                    return Ok(());
                }
                map.get_mut(*part)
                    .ok_or_else(|| SetPathError::UnknownKey(dotted.to_string()))?
            }
            Value::Array(items) => {
                let index: usize = part.parse().map_err(|_| SetPathError::NotAnIndex {
                    part: part.to_string(),
                    dotted: dotted.to_string(),
                })?;
                let len = items.len();
                let slot = items.get_mut(index).ok_or_else(|| SetPathError::OutOfRange {
                    index,
                    dotted: dotted.to_string(),
                    len,
                })?;
                if last {
                    *slot = new;
                    return Ok(());
                }
                slot
            }
            _ => return Err(SetPathError::NoKeys(dotted.to_string())),
        };
    }
    Err(SetPathError::Empty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_path_edits_nested_values_and_refuses_unknown_keys() {
        let mut v = json!({"goal": "a", "expected_outcome": {"must_include": []}, "steps": ["x", "y"]});
        set_path(&mut v, "goal", json!("b")).unwrap();
        set_path(&mut v, "expected_outcome.must_include", json!(["ok"])).unwrap();
        set_path(&mut v, "steps.1", json!("z")).unwrap();
        assert_eq!(
            v,
            json!({"goal": "b", "expected_outcome": {"must_include": ["ok"]}, "steps": ["x", "z"]})
        );
        let err = |v: &mut Value, key: &str| set_path(v, key, json!(1)).unwrap_err().to_string();
        assert_eq!(err(&mut v, "gaol"), "unknown key `gaol`");
        assert_eq!(
            err(&mut v, "steps.9"),
            "index 9 in `steps.9` is out of range (length 2)"
        );
        assert_eq!(err(&mut v, "steps.x"), "`x` in `steps.x` is not an index");
        assert_eq!(
            err(&mut v, "goal.more"),
            "`goal.more` goes inside a value that has no keys"
        );
        assert_eq!(
            err(&mut v, "expected_outcome.nope"),
            "unknown key `expected_outcome.nope`"
        );
    }

    #[test]
    fn invalid_artifact_on_disk_names_file_and_schema() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("dataset.json"), r#"{"version": 1}"#).unwrap();
        let err = read_artifact::<super::super::Dataset>(dir.path(), ArtifactKind::Dataset).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("dataset.json") && msg.contains("dataset.schema.json"),
            "{msg}"
        );
    }
}
