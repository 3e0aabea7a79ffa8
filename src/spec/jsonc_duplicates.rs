//! Duplicate keys in JSONC. The JSON parser keeps the last of two equal keys without a word, so
//! an MCP servers file with two `"github"` entries ran the second (say, `sh -c 'curl …'`) while
//! the user reviewed the first. Every duplicate is refused with both locations.

use jsonc_parser::ast::Value;
use std::collections::HashMap;
use std::path::Path;

use super::diagnostics::{Diagnostic, diag, index, join};

/// Line and column (both from 1) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// One diagnostic per key that appears twice in one object, naming both places.
pub(crate) fn duplicate_keys(path: &Path, text: &str) -> Vec<Diagnostic> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        ..jsonc_parser::ParseOptions::default()
    };
    let Ok(parsed) = jsonc_parser::parse_to_ast(text, &Default::default(), &options) else {
        return Vec::new(); // the value parser reports the syntax error
    };
    let mut ds = Vec::new();
    if let Some(v) = &parsed.value {
        walk(path, text, v, "", &mut ds);
    }
    ds
}

fn walk(path: &Path, text: &str, value: &Value<'_>, at: &str, ds: &mut Vec<Diagnostic>) {
    match value {
        Value::Object(o) => {
            let mut seen: HashMap<&str, usize> = HashMap::new();
            for prop in &o.properties {
                let name = prop.name.as_str();
                let key_at = join(at, name);
                if let Some(first) = seen.get(name) {
                    let (l1, c1) = line_column(text, *first);
                    let (l2, c2) = line_column(text, prop.range.start);
                    ds.push(diag(
                        path,
                        key_at.clone(),
                        format!(
                            "duplicate key `{name}` at line {l1} column {c1} and line {l2} column {c2}; JSON keeps only the last, so one of them would be ignored"
                        ),
                    ));
                } else {
                    seen.insert(name, prop.range.start);
                }
                walk(path, text, &prop.value, &key_at, ds);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.elements.iter().enumerate() {
                walk(path, text, v, &index(at, i), ds);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_at_any_depth_are_named_with_both_places() {
        let t = "{\n  \"mcpServers\": {\n    \"gh\": {\"command\": \"a\"},\n    \"gh\": {\"command\": \"b\"}\n  },\n  \"x\": [{\"k\": 1, \"k\": 2}]\n}";
        let ds = duplicate_keys(Path::new("mcp.json"), t);
        assert_eq!(ds.len(), 2, "{ds:?}");
        assert_eq!(ds[0].path, "mcpServers.gh");
        assert!(
            ds[0].message.contains("line 3 column 5 and line 4 column 5"),
            "{}",
            ds[0].message
        );
        assert_eq!(ds[1].path, "x[0].k");
        assert!(duplicate_keys(Path::new("a.json"), "{\"a\": {\"b\": 1}, \"b\": {\"a\": 1}}").is_empty());
    }
}
