//! The `version` every file Ghostlab writes carries, checked before a reader trusts the rest:
//! a file from a newer Ghostlab, or one without a version, is refused with its path, instead of
//! being half-read (unknown fields dropped, a trial skipped) as if it were understood.

use serde_json::Value;
use std::path::{Path, PathBuf};

use super::bounded::{FileKind, read_optional_string};

/// Why a stored file cannot be read by this build.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatVersionError {
    #[error("{}: no `version`: not a {what} this Ghostlab wrote", path.display())]
    Missing { path: PathBuf, what: &'static str },
    #[error(
        "{}: {what} format version {found} is newer than this Ghostlab reads (up to {supported}): read it with the Ghostlab that wrote it, or a newer one",
        path.display()
    )]
    Newer {
        path: PathBuf,
        what: &'static str,
        found: u64,
        supported: u32,
    },
    #[error("{}: {what} format version {found} is not one Ghostlab ever wrote (1 to {supported})", path.display())]
    Unknown {
        path: PathBuf,
        what: &'static str,
        found: String,
        supported: u32,
    },
    #[error("{}: not a {what}: {reason}", path.display())]
    Unreadable {
        path: PathBuf,
        what: &'static str,
        reason: String,
    },
}

/// Checks the top-level `version` of `doc` (read from `path`) against 1..=`supported`.
pub(crate) fn check_version(
    path: &Path,
    doc: &Value,
    what: &'static str,
    supported: u32,
) -> Result<(), FormatVersionError> {
    let path = path.to_path_buf();
    match doc.get("version") {
        None | Some(Value::Null) => Err(FormatVersionError::Missing { path, what }),
        Some(v) => match v.as_u64() {
            Some(n) if (1..=u64::from(supported)).contains(&n) => Ok(()),
            Some(n) if n > u64::from(supported) => Err(FormatVersionError::Newer {
                path,
                what,
                found: n,
                supported,
            }),
            _ => Err(FormatVersionError::Unknown {
                path,
                what,
                found: v.to_string(),
                supported,
            }),
        },
    }
}

/// Reads the JSON file at `path` and checks its version; `Ok(None)` when there is no file.
pub(crate) fn read_checked(
    path: &Path,
    what: &'static str,
    supported: u32,
) -> Result<Option<Value>, FormatVersionError> {
    let unreadable = |reason: String| FormatVersionError::Unreadable {
        path: path.to_path_buf(),
        what,
        reason,
    };
    let Some(text) = read_optional_string(path, FileKind::State).map_err(|e| unreadable(e.reason()))? else {
        return Ok(None);
    };
    let doc: Value = serde_json::from_str(&text).map_err(|e| unreadable(format!("not JSON: {e}")))?;
    check_version(path, &doc, what, supported)?;
    Ok(Some(doc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(doc: Value) -> Result<(), FormatVersionError> {
        check_version(Path::new("run/summary.json"), &doc, "summary.json", 1)
    }

    #[test]
    fn the_current_version_reads_and_others_are_refused_naming_the_file() {
        assert_eq!(check(json!({"version": 1})), Ok(()));
        let newer = check(json!({"version": 2})).unwrap_err().to_string();
        assert!(
            newer.starts_with("run/summary.json: ") && newer.contains("version 2 is newer"),
            "{newer}"
        );
        let missing = check(json!({"run_id": "x"})).unwrap_err().to_string();
        assert!(missing.contains("no `version`"), "{missing}");
        for odd in [json!(0), json!(-1), json!("1"), json!(1.5), json!(null)] {
            assert!(check(json!({"version": odd})).is_err(), "{odd} accepted");
        }
    }

    #[test]
    fn a_missing_file_is_none_and_a_broken_one_names_itself() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("verdict.json");
        assert_eq!(read_checked(&p, "verdict.json", 1), Ok(None));
        std::fs::write(&p, "{not json").unwrap();
        let e = read_checked(&p, "verdict.json", 1).unwrap_err().to_string();
        assert!(e.contains("verdict.json") && e.contains("not JSON"), "{e}");
    }
}
