//! JSON Schema of `ghostlab view --json`, generated from `stored_run::Dump`. The checked-in copy
//! at schemas/view.schema.json is what scripts validate against; a test fails when it is stale
//! and validates real `view --json` output with it. Its words for the run's figures are
//! summary.json's (`summary`, `gates`, `case_id`): one vocabulary, both schemas generated from
//! the same types (`judge::Summary`, `judge::GateResult`).

use serde_json::Value;

use super::stored_run::{Dump, VIEW_JSON_VERSION};

/// The `view --json` schema; `version` is pinned to the one this build prints.
pub(crate) fn view_schema() -> Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Dump<'static>>();
    let mut value = serde_json::to_value(schema).expect("schema serializes");
    if let Some(obj) = value.as_object_mut() {
        obj.insert("title".into(), Value::String("Ghostlab view --json".into()));
        obj.insert(
            "$id".into(),
            Value::String("https://ghostlab.dev/schemas/view.schema.json".into()),
        );
    }
    if let Some(version) = value.pointer_mut("/properties/version") {
        *version = serde_json::json!({ "const": VIEW_JSON_VERSION, "description": "`view --json` format version" });
    }
    value
}

/// The schema as the checked-in file's text.
pub(crate) fn view_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&view_schema()).expect("schema serializes");
    text.push('\n');
    text
}
