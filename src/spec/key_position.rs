//! Where a key path (`mcpServers.github`, `agent.inputs.mcps[0]`) is written in a YAML or
//! JSONC file: its line and column, so a result can point a person at the declaration itself
//! (SARIF regions) rather than at a generated file.

use jsonc_parser::ast::{ObjectPropName, Value as Ast};
use jsonc_parser::common::Ranged;
use std::path::Path;

use super::diagnostics::{index, join};

/// A place in a text file, both from 1; the column counts UTF-16 code units (SARIF's default
/// `columnKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) line: usize,
    pub(crate) column: usize,
    /// The column just past the key's name (or a sequence entry's dash), on the same line.
    pub(crate) end_column: usize,
}

/// Where `key_path` is written in `text` (JSONC or YAML, as `path` names it). When the path
/// itself is not found as a block key (YAML flow style, `{server: a}`), the deepest enclosing
/// key that is; `None` when not even its first segment is in the file.
pub(crate) fn key_position(path: &Path, text: &str, key_path: &str) -> Option<Position> {
    if super::jsonc::is_json_file(path, text) {
        json_position(text, key_path)
    } else {
        yaml_position(text, key_path)
    }
}

/// Whether `prefix` is `key_path` or encloses it.
fn encloses(prefix: &str, key_path: &str) -> bool {
    key_path == prefix
        || key_path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

fn yaml_position(text: &str, key_path: &str) -> Option<Position> {
    // (depth, position) of the deepest enclosing key seen so far, first occurrence.
    let mut best: Option<(usize, Position)> = None;
    for (line, open) in super::yaml_guard::open_paths(text) {
        let mut at = String::new();
        for (depth, (column, segment)) in open.iter().enumerate() {
            at = if segment.starts_with('[') {
                format!("{at}{segment}")
            } else {
                join(&at, segment)
            };
            if !encloses(&at, key_path) {
                break;
            }
            let width = if segment.starts_with('[') {
                1
            } else {
                segment.encode_utf16().count()
            };
            let here = Position {
                line,
                column: *column,
                end_column: column + width,
            };
            if at == key_path {
                return Some(here);
            }
            if best.is_none_or(|(d, _)| depth > d) {
                best = Some((depth, here));
            }
        }
    }
    best.map(|(_, p)| p)
}

fn json_position(text: &str, key_path: &str) -> Option<Position> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        ..jsonc_parser::ParseOptions::default()
    };
    let parsed = jsonc_parser::parse_to_ast(text, &Default::default(), &options).ok()?;
    let mut best = None;
    walk(parsed.value.as_ref()?, "", key_path, &mut best);
    best.map(|(start, end)| {
        let (line, column) = offset_position(text, start);
        let (end_line, end_column) = offset_position(text, end);
        Position {
            line,
            column,
            // A node spanning lines ends, on its first line, one unit after its start.
            end_column: if end_line == line { end_column } else { column + 1 },
        }
    })
}

/// Descends along `key_path`, leaving in `best` the byte range of the deepest key (or array
/// element) on it.
fn walk(value: &Ast<'_>, at: &str, key_path: &str, best: &mut Option<(usize, usize)>) {
    match value {
        Ast::Object(o) => {
            // The last of duplicate keys is the one a JSON reader keeps.
            if let Some(prop) = o
                .properties
                .iter()
                .rev()
                .find(|p| encloses(&join(at, p.name.as_str()), key_path))
            {
                let name = match &prop.name {
                    ObjectPropName::String(lit) => lit.range,
                    ObjectPropName::Word(lit) => lit.range,
                };
                *best = Some((name.start, name.end));
                walk(&prop.value, &join(at, prop.name.as_str()), key_path, best);
            }
        }
        Ast::Array(a) => {
            if let Some((i, element)) = a
                .elements
                .iter()
                .enumerate()
                .find(|(i, _)| encloses(&index(at, *i), key_path))
            {
                let r = element.range();
                *best = Some((r.start, r.end));
                walk(element, &index(at, i), key_path, best);
            }
        }
        _ => {}
    }
}

/// Line and UTF-16 column (both from 1) of byte `offset`.
fn offset_position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    (
        before.matches('\n').count() + 1,
        before.rsplit('\n').next().unwrap_or("").encode_utf16().count() + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(file: &str, text: &str, key: &str) -> Option<(usize, usize)> {
        key_position(Path::new(file), text, key).map(|p| (p.line, p.column))
    }

    #[test]
    fn the_region_spans_the_key_name() {
        let t = "{\"mcpServers\": {\"gh\": {}}}";
        let p = key_position(Path::new("m.json"), t, "mcpServers.gh").unwrap();
        assert_eq!((p.column, p.end_column), (17, 21), "the quoted name");
        let y = "mcpServers:\n  github: {}\n";
        let p = key_position(Path::new("m.yaml"), y, "mcpServers.github").unwrap();
        assert_eq!((p.line, p.column, p.end_column), (2, 3, 9));
    }

    #[test]
    fn a_json_server_is_found_at_its_key() {
        let t = "{\n  // a comment\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n    \"gh\": {\"command\": \"y\"},\n  }\n}";
        assert_eq!(at("mcp.json", t, "mcpServers.gh"), Some((5, 5)));
        assert_eq!(at("mcp.json", t, "mcpServers.a"), Some((4, 5)));
        // A server that is not there: its enclosing section.
        assert_eq!(at("mcp.json", t, "mcpServers.zz"), Some((3, 3)));
        assert_eq!(at("mcp.json", t, "servers.gh"), None);
    }

    #[test]
    fn a_yaml_sequence_entry_is_found_at_its_dash() {
        let t = "version: 1\nagent:\n  id: x\n  inputs:\n    mcps:\n      - server: a\n        command: [a]\n      - config_ref: m.json\n        server: gh\n";
        assert_eq!(at("job.yaml", t, "agent.inputs.mcps[0]"), Some((6, 7)));
        assert_eq!(at("job.yaml", t, "agent.inputs.mcps[1]"), Some((8, 7)));
        assert_eq!(at("job.yaml", t, "agent.inputs.mcps[1].server"), Some((9, 9)));
    }

    #[test]
    fn a_flow_style_entry_falls_back_to_its_enclosing_key() {
        let t = "agent:\n  inputs:\n    mcps: [{server: a, command: [a]}]\n";
        assert_eq!(at("job.yaml", t, "agent.inputs.mcps[0]"), Some((3, 5)));
    }

    #[test]
    fn similar_names_are_not_mistaken_for_the_key() {
        let t = "{\"mcpServers\": {\"github-old\": {}, \"github\": {}}}";
        assert_eq!(at("m.json", t, "mcpServers.github"), Some((1, 35)));
        let y = "mcpServers:\n  github-old: {}\n  github: {}\n";
        assert_eq!(at("m.yaml", y, "mcpServers.github"), Some((3, 3)));
    }

    #[test]
    fn columns_count_utf16_units() {
        let t = "{\"é😀\": 1, \"k\": 2}";
        // `é` is one unit, the emoji two: `"k"` starts after 11 units.
        assert_eq!(at("m.json", t, "k"), Some((1, 12)));
    }
}
