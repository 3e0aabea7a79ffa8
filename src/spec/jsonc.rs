//! One reader for every JSON input: OpenCode configs (`opencode.json[c]`), every MCP servers
//! dialect and VS Code's `.vscode/mcp.json`. All of them are JSONC in practice: `//` and
//! `/* */` comments and trailing commas, which OpenCode and VS Code both accept.
//!
//! Parsing is done by the maintained `jsonc-parser` crate (dprint's), restricted to what those
//! tools accept (comments and trailing commas, nothing of JSON5 beyond that), so a file is
//! never read more loosely here than by the program the user wrote it for. Errors carry the
//! line and column.

use serde_json::Value;
use std::path::Path;

use super::bounded::{MAX_INPUT_BYTES, read_regular_file};
use super::diagnostics::SpecError;
use super::document::{json_type, read_yaml_document};

/// The JSONC dialect of OpenCode and VS Code: comments and trailing commas only.
fn options() -> jsonc_parser::ParseOptions {
    jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// Parses JSONC text into a JSON value (keys keep their order).
pub(crate) fn parse_jsonc(path: &Path, text: &str) -> Result<Value, SpecError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(SpecError::one(path, "", "the file is empty; expected a JSON object"));
    }
    let value = jsonc_parser::parse_to_serde_value::<Value>(text, &options()).map_err(|e| {
        SpecError::one(
            path,
            "",
            format!(
                "malformed JSON at line {} column {}: {}",
                e.line_display(),
                e.column_display(),
                e.kind()
            ),
        )
    })?;
    let diagnostics = super::jsonc_duplicates::duplicate_keys(path, text);
    if diagnostics.is_empty() {
        Ok(value)
    } else {
        Err(SpecError { diagnostics })
    }
}

/// Reads a JSONC file whose top level must be an object.
pub(crate) fn read_jsonc_document(path: &Path) -> Result<Value, SpecError> {
    let text = read_text(path)?;
    let value = parse_jsonc(path, &text)?;
    if !value.is_object() {
        return Err(SpecError::one(
            path,
            "",
            format!("expected a JSON object at the top level, found {}", json_type(&value)),
        ));
    }
    Ok(value)
}

/// True when a file is JSON by name (`.json`, `.jsonc`) or by content (its first character
/// after whitespace and comments opens an object or a comment).
pub(crate) fn is_json_file(path: &Path, text: &str) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ext == "json" || ext == "jsonc" {
        return true;
    }
    if ext == "yaml" || ext == "yml" {
        return false;
    }
    let body = text.trim_start_matches('\u{feff}').trim_start();
    body.starts_with('{') || body.starts_with("//") || body.starts_with("/*")
}

/// Reads a file that may be JSONC or YAML: JSON files are never parsed as YAML first.
pub(crate) fn read_json_or_yaml(path: &Path) -> Result<Value, SpecError> {
    let text = read_text(path)?;
    if is_json_file(path, &text) {
        let value = parse_jsonc(path, &text)?;
        if !value.is_object() {
            return Err(SpecError::one(
                path,
                "",
                format!("expected a JSON object at the top level, found {}", json_type(&value)),
            ));
        }
        Ok(value)
    } else {
        read_yaml_document(path)
    }
}

fn read_text(path: &Path) -> Result<String, SpecError> {
    // Bounded and typed like every other input: no FIFO, device or oversized file is read.
    let bytes = read_regular_file(path, MAX_INPUT_BYTES).map_err(|e| SpecError::one(path, "", e.reason()))?;
    String::from_utf8(bytes).map_err(|e| {
        SpecError::one(
            path,
            "",
            format!(
                "the file is not valid UTF-8 (first bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn comments_and_trailing_commas() {
        let t = "{\n // c\n \"a\": \"x//y /* z */\", /* b */ \"b\": [1,2,],\n}";
        let v = parse_jsonc(Path::new("x.jsonc"), t).unwrap();
        assert_eq!(v, json!({"a": "x//y /* z */", "b": [1, 2]}));
    }

    #[test]
    fn errors_name_line_and_column() {
        let t = "{\n  // servers\n  \"servers\": {\n    \"a\": { \"command\": \"x\" \"args\": [] }\n  }\n}";
        let e = parse_jsonc(Path::new("mcp.json"), t).unwrap_err();
        let msg = &e.diagnostics[0].message;
        assert!(msg.starts_with("malformed JSON at line 4 column"), "{msg}");
    }

    #[test]
    fn json5_extras_are_refused_like_opencode_does() {
        assert!(parse_jsonc(Path::new("x.json"), "{a: 1}").is_err());
        assert!(parse_jsonc(Path::new("x.json"), "{\"a\": 'b'}").is_err());
    }

    #[test]
    fn json_is_recognized_by_name_or_content() {
        assert!(is_json_file(Path::new("mcp.json"), "servers: {}"));
        assert!(is_json_file(Path::new("config"), "  // hi\n{}"));
        assert!(!is_json_file(Path::new("agent.yaml"), "{}"));
        assert!(!is_json_file(Path::new("agent"), "id: x"));
    }

    #[test]
    fn key_order_is_kept() {
        let v = parse_jsonc(Path::new("x.json"), r#"{"z": 1, "a": 2, "m": 3}"#).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "m"]);
    }
}
