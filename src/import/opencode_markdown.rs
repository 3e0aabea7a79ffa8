//! OpenCode's markdown agents and commands: `.opencode/agent/*.md` (also `agents/`, nested
//! folders, and `mode/`/`modes/` for primary agents) and `.opencode/command/*.md` (also
//! `commands/`). YAML frontmatter holds the keys; the body is the prompt or the template.
//! OpenCode 1.18.33 reads every one of these spellings (checked with `opencode debug config`),
//! names a definition by its frontmatter `name:` when it has one (at any depth), and reads a
//! frontmatter that strict YAML refuses once unquoted values holding a colon are read as text.

use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

use crate::spec::diagnostics::SpecError;

/// One markdown definition: its name (frontmatter `name:`, else the path below the folder
/// without `.md`), its file, and its keys as OpenCode would merge them.
#[derive(Debug, Clone)]
pub(crate) struct MarkdownDef {
    pub(crate) name: String,
    pub(crate) file: PathBuf,
    pub(crate) value: Map<String, Value>,
}

/// Agents from `<dot>/agent`, `<dot>/agents` (any depth) and `<dot>/mode`, `<dot>/modes`
/// (top level; these are primary agents), in that order; a later file of the same name wins.
pub(crate) fn markdown_agents(dot: &Path) -> Result<Vec<MarkdownDef>, SpecError> {
    let mut out = Vec::new();
    for folder in ["agent", "agents"] {
        for (name, file) in markdown_files(&dot.join(folder), None) {
            let (mut value, body) = read_markdown(&file)?;
            let name = own_name(&mut value).unwrap_or(name);
            value.insert("prompt".into(), json!(body));
            out.push(MarkdownDef { name, file, value });
        }
    }
    for folder in ["mode", "modes"] {
        for (name, file) in markdown_files(&dot.join(folder), Some(1)) {
            let (mut value, body) = read_markdown(&file)?;
            let name = own_name(&mut value).unwrap_or(name);
            value.insert("prompt".into(), json!(body));
            value.entry("mode").or_insert(json!("primary"));
            out.push(MarkdownDef { name, file, value });
        }
    }
    Ok(out)
}

/// Commands from `<dot>/command` and `<dot>/commands` (any depth).
pub(crate) fn markdown_commands(dot: &Path) -> Result<Vec<MarkdownDef>, SpecError> {
    let mut out = Vec::new();
    for folder in ["command", "commands"] {
        for (name, file) in markdown_files(&dot.join(folder), None) {
            let (mut value, body) = read_markdown(&file)?;
            let name = own_name(&mut value).unwrap_or(name);
            value.insert("template".into(), json!(body));
            out.push(MarkdownDef { name, file, value });
        }
    }
    Ok(out)
}

/// The frontmatter's `name:`, which OpenCode uses instead of the file's path; removed from the
/// keys either way (it is not a setting).
fn own_name(value: &mut Map<String, Value>) -> Option<String> {
    match value.remove("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => Some(n),
        _ => None,
    }
}

/// `*.md` files below `folder`, sorted, named by their path without `.md`.
fn markdown_files(folder: &Path, max_depth: Option<usize>) -> Vec<(String, PathBuf)> {
    if !folder.is_dir() {
        return Vec::new();
    }
    let mut walker = walkdir::WalkDir::new(folder).min_depth(1).sort_by_file_name();
    if let Some(d) = max_depth {
        walker = walker.max_depth(d);
    }
    walker
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "md"))
        .filter_map(|e| {
            let rel = e.path().strip_prefix(folder).ok()?.with_extension("");
            let name = rel.to_string_lossy().replace('\\', "/");
            Some((name, e.into_path()))
        })
        .collect()
}

/// Splits a markdown file into its frontmatter keys and its trimmed body.
pub(crate) fn read_markdown(file: &Path) -> Result<(Map<String, Value>, String), SpecError> {
    let text = crate::util::bounded::read_bounded_string(file, crate::util::bounded::FileKind::Text)
        .map_err(|e| SpecError::one(file, "", e.reason()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text).replace("\r\n", "\n");
    let Some(rest) = text.strip_prefix("---\n") else {
        return Ok((Map::new(), text.trim().to_string()));
    };
    let (front, body) = match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            let body = after.split_once('\n').map(|(_, b)| b).unwrap_or("");
            (&rest[..end], body)
        }
        None if rest.starts_with("---") => ("", rest.trim_start_matches("---")),
        None => {
            return Err(SpecError::one(
                file,
                "",
                "the frontmatter that starts on line 1 has no closing `---` line",
            ));
        }
    };
    let keys = if front.trim().is_empty() {
        Map::new()
    } else {
        // The same linear pre-scan as job.yaml: a frontmatter of 100k brackets costs milliseconds.
        crate::spec::yaml_guard::check_structure(front).map_err(|g| {
            SpecError::one(
                file,
                g.path,
                format!("frontmatter: {} at line {} column {}", g.message, g.line + 1, g.column),
            )
        })?;
        // Like OpenCode: strict YAML first, then once more with unquoted values that hold a
        // colon read as text (Claude Code writes `description: Use when: …`).
        let yaml: yaml_serde::Value = yaml_serde::from_str(front)
            .or_else(|e| yaml_serde::from_str(&colon_values_as_text(front)).map_err(|_| e))
            .map_err(|e| {
                let at = e
                    .location()
                    .map(|l| format!(" at line {} column {}", l.line() + 1, l.column()))
                    .unwrap_or_default();
                SpecError::one(file, "", format!("malformed YAML frontmatter{at}: {e}"))
            })?;
        let mut ds = Vec::new();
        crate::spec::find_non_finite(file, &yaml, "", &mut ds);
        if !ds.is_empty() {
            return Err(SpecError { diagnostics: ds });
        }
        match serde_json::to_value(&yaml) {
            Ok(Value::Object(m)) => m,
            Ok(Value::Null) => Map::new(),
            Ok(_) => return Err(SpecError::one(file, "", "the frontmatter is not a mapping of keys")),
            Err(e) => {
                return Err(SpecError::one(
                    file,
                    "",
                    format!("malformed YAML frontmatter: {e} (keys must be strings)"),
                ));
            }
        }
    };
    Ok((keys, body.trim().to_string()))
}

/// Rewrites each top-level `key: value` line whose plain value holds a colon as a literal
/// block, so the value is read as the text it is. Indented, quoted, block and empty values
/// stay as written.
fn colon_values_as_text(front: &str) -> String {
    let mut out = Vec::new();
    for line in front.lines() {
        let trimmed = line.trim();
        let plain_key = |k: &str| {
            let mut chars = k.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        let split = line.split_once(':').filter(|(k, _)| plain_key(k.trim_end()));
        match split {
            Some((key, value))
                if !line.starts_with(char::is_whitespace)
                    && !trimmed.starts_with('#')
                    && value.contains(':')
                    && !matches!(value.trim(), "" | ">" | "|")
                    && !value.trim().starts_with(['"', '\'']) =>
            {
                out.push(format!("{}: |-", key.trim_end()));
                out.push(format!("  {}", value.trim()));
            }
            _ => out.push(line.to_string()),
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn frontmatter_and_body() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "agent/review.md",
            "---\ndescription: Reviews\ntools:\n  write: false\n---\n\nYou review.\n",
        );
        write(d.path(), "agents/sub/deep.md", "Only a body.");
        write(d.path(), "mode/lead.md", "---\ndescription: lead\n---\nLead.");
        let agents = markdown_agents(d.path()).unwrap();
        let names: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["review", "sub/deep", "lead"]);
        // A frontmatter `name:` names the agent, at any depth, as in OpenCode.
        write(d.path(), "agents/team/inner.md", "---\nname: inner-renamed\n---\nIn.");
        let agents = markdown_agents(d.path()).unwrap();
        let names: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["review", "sub/deep", "inner-renamed", "lead"]);
        assert!(agents[2].value.get("name").is_none());
        assert_eq!(agents[0].value["prompt"], "You review.");
        assert_eq!(agents[0].value["tools"]["write"], false);
        assert_eq!(agents[3].value["mode"], "primary");
    }

    #[test]
    fn unquoted_colons_in_values_are_read_as_text_like_opencode() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "agent/helper.md",
            "---\ndescription: Use this agent when: the user asks: help\nmodel: openai/gpt-4o\ntools:\n  write: false\n---\nBody.",
        );
        write(
            d.path(),
            "command/fix.md",
            "---\ndescription: Fix: the thing\nagent: build\n---\nDo $ARGUMENTS.",
        );
        let agents = markdown_agents(d.path()).unwrap();
        assert_eq!(
            agents[0].value["description"],
            "Use this agent when: the user asks: help"
        );
        assert_eq!(agents[0].value["model"], "openai/gpt-4o");
        assert_eq!(agents[0].value["tools"]["write"], false);
        let commands = markdown_commands(d.path()).unwrap();
        assert_eq!(commands[0].value["description"], "Fix: the thing");
        assert_eq!(commands[0].value["agent"], "build");
        // What the fallback cannot read stays an error naming the strict parser's line.
        write(
            d.path(),
            "agent/helper.md",
            "---\ndescription: a: b\ntools: [x\n---\nBody.",
        );
        let e = markdown_agents(d.path()).unwrap_err();
        assert!(
            e.diagnostics[0].message.contains("malformed YAML frontmatter at line"),
            "{e}"
        );
    }

    #[test]
    fn frontmatter_errors_name_the_line_in_the_file() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "command/x.md", "---\ndescription: a\nagent: [b\n---\nbody");
        let e = markdown_commands(d.path()).unwrap_err();
        assert!(
            e.diagnostics[0].message.contains("malformed YAML frontmatter at line"),
            "{e}"
        );
        write(d.path(), "command/x.md", "---\ndescription: a\nbody");
        assert!(markdown_commands(d.path()).is_err());
    }

    #[test]
    fn hostile_frontmatter_is_refused_by_the_guard_with_its_line() {
        let d = tempfile::tempdir().unwrap();
        let deep = format!(
            "---\ndescription: x\nmode: {}1{}\n---\nbody\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let mut bomb = String::from("---\na: &a [x,x,x,x,x,x,x,x,x]\n");
        for w in ["a", "b", "c", "d", "e", "f", "g", "h", "i"].windows(2) {
            bomb.push_str(&format!(
                "{}: &{} [{}]\n",
                w[1],
                w[1],
                vec![format!("*{}", w[0]); 9].join(",")
            ));
        }
        bomb.push_str("---\nbody\n");
        // A comment ended by a bare CR hides nothing from the guard.
        let cr = format!(
            "---\nmode: primary # x\rtools: {}1{}\n---\nbody\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        for (name, text, line) in [("deep.md", deep, 3), ("bomb.md", bomb, 0), ("cr.md", cr, 3)] {
            let f = d.path().join(name);
            std::fs::write(&f, text).unwrap();
            let e = read_markdown(&f).unwrap_err();
            let msg = &e.diagnostics[0].message;
            assert!(msg.starts_with("frontmatter: "), "{name}: {msg}");
            if line > 0 {
                assert!(msg.contains(&format!("at line {line} ")), "{name}: {msg}");
            }
        }
    }
}
