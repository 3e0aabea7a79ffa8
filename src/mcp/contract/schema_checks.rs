//! Findings about one tool's input schema: structure, types, descriptions, bounds, `$ref`
//! and combinators, enums, parameter counts and credential-like parameters.

use serde_json::Value;

use super::finding::Sink;
use super::labels::is_credential_name;
use super::rules::*;
use super::words::split_identifier;

/// Above this many parameters a model picks arguments badly.
const MAX_PARAMS: usize = 12;
/// Names of free-text parameters where a bound is expected.
const FREE_TEXT: &[&str] = &[
    "query",
    "command",
    "cmd",
    "body",
    "content",
    "text",
    "message",
    "prompt",
    "script",
    "code",
    "sql",
    "html",
    "expression",
    "input",
];

/// Checks the input schema of the tool at `at` (e.g. `/tools/3`).
pub(crate) fn check_schema(sink: &mut Sink, tool: &str, at: &str, schema: &Value) {
    let at = format!("{at}/inputSchema");
    let Some(obj) = schema.as_object() else {
        sink.add(
            NOT_OBJECT_SCHEMA,
            Some(tool),
            &at,
            format!("inputSchema is {} instead of an object schema", kind(schema)),
        );
        return;
    };
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        sink.add(
            NOT_OBJECT_SCHEMA,
            Some(tool),
            &format!("{at}/type"),
            format!(
                "inputSchema.type is {} instead of \"object\"",
                obj.get("type")
                    .map(|t| t.to_string())
                    .unwrap_or_else(|| "missing".into())
            ),
        );
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if obj.contains_key(key) {
            sink.add(
                TOP_LEVEL_COMBINATOR,
                Some(tool),
                &format!("{at}/{key}"),
                format!("top-level `{key}` in the input schema"),
            );
        }
    }
    if let Some(p) = find_ref(schema, &at) {
        sink.add(
            SCHEMA_REF,
            Some(tool),
            &p,
            "`$ref` in the input schema; inline the definition",
        );
    }
    let props = match obj.get("properties") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(other) => {
            sink.add(
                MALFORMED_SCHEMA,
                Some(tool),
                &format!("{at}/properties"),
                format!("`properties` is {} instead of an object", kind(other)),
            );
            None
        }
    };
    match obj.get("required") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, r) in items.iter().enumerate() {
                match r.as_str() {
                    Some(name) if props.is_some_and(|p| p.contains_key(name)) => {}
                    Some(name) => sink.add(
                        REQUIRED_NOT_DEFINED,
                        Some(tool),
                        &format!("{at}/required/{i}"),
                        format!("required parameter `{name}` is not defined in properties"),
                    ),
                    None => sink.add(
                        MALFORMED_SCHEMA,
                        Some(tool),
                        &format!("{at}/required/{i}"),
                        format!("`required` holds {} instead of a name", kind(r)),
                    ),
                }
            }
        }
        Some(other) => sink.add(
            MALFORMED_SCHEMA,
            Some(tool),
            &format!("{at}/required"),
            format!("`required` is {} instead of a list of names", kind(other)),
        ),
    }
    let Some(props) = props else { return };
    if props.len() > MAX_PARAMS {
        sink.add(
            TOO_MANY_PARAMS,
            Some(tool),
            &format!("{at}/properties"),
            format!("{} parameters (more than {MAX_PARAMS})", props.len()),
        );
    }
    for (name, p) in props {
        let here = format!("{at}/properties/{}", name.replace('~', "~0").replace('/', "~1"));
        check_param(sink, tool, name, &here, p);
    }
}

fn check_param(sink: &mut Sink, tool: &str, name: &str, at: &str, p: &Value) {
    let Some(obj) = p.as_object() else {
        if p != &Value::Bool(true) {
            sink.add(
                MALFORMED_SCHEMA,
                Some(tool),
                at,
                format!("parameter `{name}` is {} instead of a schema object", kind(p)),
            );
        }
        return;
    };
    let param = Param { tool, name, at, obj };
    let described = param.check_description(sink);
    let types = param.check_type(sink);
    param.check_enum(sink, described);
    param.check_bounds(sink, &types);
    if is_credential_name(name) {
        sink.add(
            CREDENTIAL_PARAM,
            Some(tool),
            at,
            format!("parameter `{name}` asks the model for a credential"),
        );
    }
}

/// One parameter's schema object, with the tool, name and pointer its findings carry.
struct Param<'a> {
    tool: &'a str,
    name: &'a str,
    at: &'a str,
    obj: &'a serde_json::Map<String, Value>,
}

/// The JSON Schema type names.
const TYPES: &[&str] = &["string", "number", "integer", "boolean", "object", "array", "null"];

impl Param<'_> {
    /// Reports a missing or blank description; true when the parameter has one.
    fn check_description(&self, sink: &mut Sink) -> bool {
        let described = self
            .obj
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| !d.trim().is_empty());
        if !described {
            sink.add(
                MISSING_PARAM_DESCRIPTION,
                Some(self.tool),
                self.at,
                format!("parameter `{}` has no description", self.name),
            );
        }
        described
    }

    /// Reports a missing, unknown or malformed `type`; returns the type names it declares.
    fn check_type(&self, sink: &mut Sink) -> Vec<&str> {
        let (obj, name) = (self.obj, self.name);
        let ty = obj.get("type");
        let typed = ty.is_some()
            || ["enum", "const", "$ref", "oneOf", "anyOf", "allOf"]
                .iter()
                .any(|k| obj.contains_key(*k));
        if !typed {
            sink.add(
                UNTYPED_PARAM,
                Some(self.tool),
                self.at,
                format!("parameter `{name}` has no type"),
            );
        }
        let types: Vec<&str> = match ty {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let at_type = format!("{}/type", self.at);
        for t in &types {
            if !TYPES.contains(t) {
                sink.add(
                    MALFORMED_SCHEMA,
                    Some(self.tool),
                    &at_type,
                    format!("parameter `{name}` has unknown type \"{t}\""),
                );
            }
        }
        if matches!(ty, Some(v) if !v.is_string() && !v.is_array()) {
            sink.add(
                MALFORMED_SCHEMA,
                Some(self.tool),
                &at_type,
                format!("parameter `{name}` has a `type` that is neither a string nor a list"),
            );
        }
        types
    }

    /// An enum needs a description of its values and a default among them.
    fn check_enum(&self, sink: &mut Sink, described: bool) {
        let (obj, name, at) = (self.obj, self.name, self.at);
        let enumerated = obj.get("enum").and_then(Value::as_array);
        if enumerated.is_some() && !described {
            sink.add(
                UNDOCUMENTED_ENUM,
                Some(self.tool),
                &format!("{at}/enum"),
                format!("enum parameter `{name}` does not say what its values mean"),
            );
        }
        if let (Some(values), Some(default)) = (enumerated, obj.get("default"))
            && !values.contains(default)
        {
            sink.add(
                DEFAULT_NOT_IN_ENUM,
                Some(self.tool),
                &format!("{at}/default"),
                format!("default {default} of `{name}` is not one of its enum values"),
            );
        }
    }

    /// Arrays need `maxItems`; free-text strings (by name) need a length, pattern or format.
    fn check_bounds(&self, sink: &mut Sink, types: &[&str]) {
        let (obj, name, at) = (self.obj, self.name, self.at);
        if types.contains(&"array") && !obj.contains_key("maxItems") {
            sink.add(
                UNBOUNDED_ARRAY,
                Some(self.tool),
                at,
                format!("array parameter `{name}` has no maxItems"),
            );
        }
        let words = split_identifier(name);
        let free_text = words.last().is_some_and(|w| FREE_TEXT.contains(&w.as_str()));
        let bounded = ["maxLength", "pattern", "enum", "const", "format"]
            .iter()
            .any(|k| obj.contains_key(*k));
        if types.contains(&"string") && free_text && !bounded {
            sink.add(
                UNBOUNDED_STRING,
                Some(self.tool),
                at,
                format!("free-text parameter `{name}` has no maxLength or pattern"),
            );
        }
    }
}

/// The pointer of the first `$ref` under `v`, if any.
fn find_ref(v: &Value, at: &str) -> Option<String> {
    match v {
        Value::Object(m) => {
            if m.contains_key("$ref") {
                return Some(format!("{at}/$ref"));
            }
            m.iter()
                .find_map(|(k, c)| find_ref(c, &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"))))
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, c)| find_ref(c, &format!("{at}/{i}"))),
        _ => None,
    }
}

/// A short name for a JSON value's kind, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
