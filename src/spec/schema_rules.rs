//! Schema rules that tie keys together (`provider: replay` needs `cassette`, `network:
//! allowlist` needs `allow`, …), attached to the spec types with `#[schemars(transform = …)]`.
//! Each mirrors one check in `check*.rs`/`rules.rs`/`mcp_inputs.rs`; the agreement test
//! (tests/it/schema_agreement.rs) holds them to the same answers.

use schemars::Schema;
use serde_json::{Value, json};

use super::limits::{JOB_VERSION, NO_NUL_PATTERN, NON_BLANK_PATTERN};

/// Appends `rule` to the schema's `allOf`.
fn all_of(schema: &mut Schema, rule: Value) {
    let Some(obj) = schema.as_object_mut() else { return };
    let list = obj.entry("allOf").or_insert_with(|| Value::Array(Vec::new()));
    if let Some(items) = list.as_array_mut() {
        items.push(rule);
    }
}

/// `version` is exactly the version this build reads.
pub(crate) fn job(schema: &mut Schema) {
    if let Some(version) = schema.get_mut("properties").and_then(|p| p.get_mut("version")) {
        version["const"] = json!(JOB_VERSION);
    }
    // `target` is a mapping or absent: without the `null` alternative a broken target is
    // reported at its own key (`target.connection.command`), not as "expected a null".
    if let Some(target) = schema.get_mut("properties").and_then(|p| p.get_mut("target"))
        && let Some(reference) = target
            .get("anyOf")
            .and_then(Value::as_array)
            .and_then(|alts| alts.iter().find(|a| a.get("$ref").is_some()))
            .cloned()
        && let Some(obj) = target.as_object_mut()
    {
        obj.remove("anyOf");
        obj.insert("$ref".into(), reference["$ref"].clone());
    }
}

/// `network: allowlist` needs entries; `policy` needs a policy file; otherwise (`disabled`, the
/// default) `allow` must be empty (`rules::network_rules`).
pub(crate) fn sandbox(schema: &mut Schema) {
    let mode = |m: &str| json!({ "required": ["network"], "properties": { "network": { "const": m } } });
    all_of(
        schema,
        json!({ "if": mode("allowlist"), "then": { "required": ["allow"], "properties": { "allow": { "minItems": 1 } } } }),
    );
    all_of(
        schema,
        json!({ "if": mode("policy"), "then": { "required": ["policy"], "properties": { "policy": { "type": "string" } } } }),
    );
    all_of(
        schema,
        json!({
            "if": { "not": { "required": ["network"], "properties": { "network": { "enum": ["allowlist", "policy"] } } } },
            "then": { "properties": { "allow": { "maxItems": 0 } } }
        }),
    );
}

/// `replay` and `record` need a cassette; `openai`, `anthropic` and `record` need a model
/// (`check::check_generation`).
pub(crate) fn model_role(schema: &mut Schema) {
    let provider = |p: &[&str]| json!({ "required": ["provider"], "properties": { "provider": { "enum": p } } });
    let needs = |key: &str| json!({ "required": [key], "properties": { key: { "type": "string" } } });
    all_of(
        schema,
        json!({ "if": provider(&["replay", "record"]), "then": needs("cassette") }),
    );
    all_of(
        schema,
        json!({ "if": provider(&["openai", "anthropic", "record"]), "then": needs("model") }),
    );
}

/// Every entry names its `server`. With `config_ref` it takes no inline `command`/`url`;
/// inline it has exactly one of them (`mcp_inputs::resolve_mcps`).
pub(crate) fn mcp_input(schema: &mut Schema) {
    if let Some(obj) = schema.as_object_mut() {
        let required = obj.entry("required").or_insert_with(|| Value::Array(Vec::new()));
        if let Some(list) = required.as_array_mut() {
            list.push(json!("server"));
        }
    }
    if let Some(server) = schema.get_mut("properties").and_then(|p| p.get_mut("server")) {
        server["type"] = json!("string");
    }
    let stdio =
        json!({ "required": ["command"], "properties": { "command": { "minItems": 1 }, "url": { "type": "null" } } });
    let remote =
        json!({ "required": ["url"], "properties": { "url": { "type": "string" }, "command": { "maxItems": 0 } } });
    all_of(
        schema,
        json!({
            "if": { "required": ["config_ref"], "properties": { "config_ref": { "type": "string" } } },
            "then": { "properties": { "command": { "maxItems": 0 }, "url": { "type": "null" } } },
            "else": { "oneOf": [stdio, remote] }
        }),
    );
}

/// A `target` has what its transport needs and nothing another transport takes
/// (`spec::target`): stdio a `command`, sse and streamable-http a `url`, skill a `path`.
pub(crate) fn target(schema: &mut Schema) {
    let when = |t: &[&str]| json!({ "required": ["transport"], "properties": { "transport": { "enum": t } } });
    let connection = |c: Value| json!({ "required": ["connection"], "properties": { "connection": c } });
    let absent = json!({ "type": "null" });
    let none = json!({ "maxProperties": 0 });
    let no_items = json!({ "maxItems": 0 });
    let text = json!({ "type": "string", "pattern": NON_BLANK_PATTERN });
    all_of(
        schema,
        json!({ "if": when(&["stdio"]), "then": connection(json!({
            "required": ["command"],
            "properties": { "command": { "minItems": 1 }, "url": absent, "headers": none, "path": absent }
        })) }),
    );
    all_of(
        schema,
        json!({ "if": when(&["sse", "streamable-http"]), "then": connection(json!({
            "required": ["url"],
            "properties": { "url": { "type": "string" }, "command": no_items, "env": none, "path": absent }
        })) }),
    );
    let skill = connection(json!({
        "required": ["path"],
        "properties": { "path": text, "command": no_items, "url": absent, "env": none, "headers": none }
    }));
    all_of(
        schema,
        json!({ "if": when(&["skill"]), "then": { "allOf": [skill, { "not": { "required": ["startup"] } }] } }),
    );
}

/// A setup step runs a command: a first word that is not blank, and no NUL in any word.
pub(crate) fn setup_run(schema: &mut Schema) {
    schema.insert("minItems".into(), json!(1));
    schema.insert(
        "prefixItems".into(),
        json!([{ "type": "string", "pattern": NON_BLANK_PATTERN }]),
    );
    schema.insert("items".into(), json!({ "type": "string", "pattern": NO_NUL_PATTERN }));
}
