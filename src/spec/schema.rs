//! JSON Schema of job.yaml, generated from the Rust types. The checked-in copy at
//! schemas/job.schema.json lets editors complete job.yaml; a test fails when it is stale.

use serde_json::Value;
use std::sync::LazyLock;

use super::job::Job;

/// The job.yaml schema as a JSON value.
pub(crate) fn job_schema() -> &'static Value {
    static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<Job>();
        let mut value = serde_json::to_value(schema).expect("schema serializes");
        bound_unsigned(&mut value);
        if let Some(obj) = value.as_object_mut() {
            obj.insert("title".into(), Value::String("Ghostlab job.yaml".into()));
        }
        value
    });
    &SCHEMA
}

/// Adds the type's `maximum` to every unsigned integer, so `processes: 4294967296` is a schema
/// error at its key path (with the range) instead of a deserializer error about the document.
fn bound_unsigned(node: &mut Value) {
    match node {
        Value::Object(map) => {
            let max = match map.get("format").and_then(Value::as_str) {
                Some("uint8") => Some(u64::from(u8::MAX)),
                Some("uint16") => Some(u64::from(u16::MAX)),
                Some("uint32" | "uint") => Some(u64::from(u32::MAX)),
                Some("uint64") => Some(u64::MAX),
                _ => None,
            };
            if let Some(max) = max {
                map.entry("maximum").or_insert(Value::from(max));
            }
            map.values_mut().for_each(bound_unsigned);
        }
        Value::Array(items) => items.iter_mut().for_each(bound_unsigned),
        _ => {}
    }
}

/// The schema rendered as the text stored in schemas/job.schema.json.
pub fn job_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(job_schema()).expect("schema serializes");
    text.push('\n');
    text
}

/// Follows a JSON-pointer-like list of schema keywords from the root, resolving `$ref`s, and
/// returns the schema node reached. Used to list valid keys next to an unknown one.
pub(crate) fn node_at<'a>(root: &'a Value, tokens: &[String]) -> Option<&'a Value> {
    let mut node = root;
    for token in tokens {
        if token == "$ref" {
            node = resolve_ref(root, node)?;
            continue;
        }
        node = match node {
            Value::Object(map) => map.get(token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// Resolves `node`'s own `$ref` (`#/$defs/Name`) against `root`; repeats for chained refs.
pub(crate) fn resolve_ref<'a>(root: &'a Value, mut node: &'a Value) -> Option<&'a Value> {
    for _ in 0..8 {
        let Some(reference) = node.get("$ref").and_then(Value::as_str) else {
            return Some(node);
        };
        let pointer = reference.strip_prefix('#')?;
        node = root.pointer(pointer)?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key and every type an editor shows has a description (the rule sub-schemas under
    /// `allOf` only restate keys described above them).
    #[test]
    fn every_key_and_type_is_described() {
        fn walk(node: &Value, path: &str, missing: &mut Vec<String>) {
            match node {
                Value::Object(map) => {
                    let parent = path.rsplit('/').nth(1).unwrap_or_default();
                    if matches!(parent, "properties" | "$defs") && !map.contains_key("description") {
                        missing.push(path.to_string());
                    }
                    for (key, child) in map.iter().filter(|(k, _)| k.as_str() != "allOf") {
                        walk(child, &format!("{path}/{key}"), missing);
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        walk(child, &format!("{path}/{i}"), missing);
                    }
                }
                _ => {}
            }
        }
        let mut missing = Vec::new();
        walk(job_schema(), "", &mut missing);
        assert!(missing.is_empty(), "{} undescribed: {missing:?}", missing.len());
    }

    #[test]
    fn version_is_the_one_this_build_reads() {
        assert_eq!(job_schema()["properties"]["version"]["const"], 1);
    }
}
