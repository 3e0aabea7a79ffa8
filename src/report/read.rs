//! Reading a run's loose files for the report: JSON that may be missing or stale, always
//! passed through the redactor on the way in.

use serde_json::Value;
use std::path::Path;

use crate::redact::Redactor;

/// A JSON file as `T`, or `None` when it is missing or does not parse.
pub(super) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// A JSON file as a loose value (generated files owned by other commands).
pub(super) fn read_value(path: &Path) -> Option<Value> {
    read_json(path)
}

/// A text with every known secret masked.
pub(super) fn red(r: &Redactor, s: &str) -> String {
    r.redact(s).into_owned()
}
