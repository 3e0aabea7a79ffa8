//! Reading a run's loose files for the report: JSON that may be missing or stale, always
//! passed through the redactor on the way in.

use serde_json::Value;
use std::path::Path;

use crate::redact::Redactor;

/// A JSON file as `T`, or `None` when it is missing, does not parse, or is not a regular file
/// within the size bound (a FIFO left in a run folder is skipped, never waited on).
pub(super) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    let text = crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::State)
        .inspect_err(|e| {
            if !e.is_not_found() {
                tracing::warn!("skipped {e}");
            }
        })
        .ok()?;
    serde_json::from_str(&text).ok()
}

/// A JSON file as a loose value (generated files owned by other commands).
pub(super) fn read_value(path: &Path) -> Option<Value> {
    read_json(path)
}

/// A text with every known secret masked.
pub(super) fn red(r: &Redactor, s: &str) -> String {
    r.redact(s).into_owned()
}
