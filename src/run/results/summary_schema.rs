//! JSON Schema of summary.json, generated from `SuiteSummary`. The checked-in copy at
//! schemas/summary.schema.json is what CI consumers validate against; a test fails when it is
//! stale and validates real summaries with it.

use serde_json::Value;

use crate::run::suite::{SUMMARY_VERSION, SuiteSummary};

/// The summary.json schema; `version` is pinned to the one this build writes.
pub(crate) fn summary_schema() -> Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<SuiteSummary>();
    let mut value = serde_json::to_value(schema).expect("schema serializes");
    if let Some(obj) = value.as_object_mut() {
        obj.insert("title".into(), Value::String("Ghostlab summary.json".into()));
        obj.insert(
            "$id".into(),
            Value::String("https://ghostlab.dev/schemas/summary.schema.json".into()),
        );
    }
    if let Some(version) = value.pointer_mut("/properties/version") {
        *version = serde_json::json!({ "const": SUMMARY_VERSION, "description": "summary.json format version" });
    }
    value
}

/// The schema as the checked-in file's text.
pub(crate) fn summary_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&summary_schema()).expect("schema serializes");
    text.push('\n');
    text
}
