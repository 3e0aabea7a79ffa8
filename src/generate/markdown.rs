//! A small Markdown reader for instruction files and SKILL.md: front matter, headings, list
//! items and paragraphs. Enough structure to trace a profile back to a heading and a line.
//!
//! It never renders Markdown and never fails: unknown constructs become paragraphs.

use indexmap::IndexMap;

/// A Markdown document split at its headings.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub(crate) struct Doc {
    /// `key: value` pairs of a leading `---` block (quotes stripped).
    pub(crate) front_matter: IndexMap<String, String>,
    /// Sections in order; text before the first heading has level 0 and an empty heading.
    pub(crate) sections: Vec<Section>,
}

/// A heading and what follows it up to the next heading.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub(crate) struct Section {
    pub(crate) level: usize,
    pub(crate) heading: String,
    pub(crate) items: Vec<Item>,
    pub(crate) paragraphs: Vec<String>,
}

/// One list item (continuation lines joined with a space).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct Item {
    pub(crate) ordered: bool,
    pub(crate) text: String,
}

/// Parses Markdown text.
pub(crate) fn parse(text: &str) -> Doc {
    let mut doc = Doc::default();
    let mut lines = text.lines().peekable();
    if lines.peek().map(|l| l.trim()) == Some("---") {
        lines.next();
        for line in lines.by_ref() {
            if line.trim() == "---" {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                let v = v.trim().trim_matches('"').trim_matches('\'').to_string();
                doc.front_matter.insert(k.trim().to_string(), v);
            }
        }
    }
    let mut current = Section::default();
    let mut in_fence = false;
    let mut paragraph = String::new();
    let flush = |p: &mut String, s: &mut Section| {
        if !p.trim().is_empty() {
            s.paragraphs.push(p.trim().to_string());
        }
        p.clear();
    };
    for line in lines {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some(level) = heading_level(trimmed) {
            flush(&mut paragraph, &mut current);
            let finished = std::mem::take(&mut current);
            if finished.level > 0 || !finished.items.is_empty() || !finished.paragraphs.is_empty() {
                doc.sections.push(finished);
            }
            current.level = level;
            current.heading = trimmed[level..].trim().trim_end_matches('#').trim().to_string();
            continue;
        }
        if trimmed.is_empty() {
            flush(&mut paragraph, &mut current);
            continue;
        }
        if let Some((ordered, text)) = list_item(trimmed) {
            flush(&mut paragraph, &mut current);
            current.items.push(Item {
                ordered,
                text: text.to_string(),
            });
            continue;
        }
        let indented = line.starts_with(' ') || line.starts_with('\t');
        if indented
            && paragraph.is_empty()
            && let Some(last) = current.items.last_mut()
        {
            last.text.push(' ');
            last.text.push_str(trimmed);
            continue;
        }
        if !paragraph.is_empty() {
            paragraph.push(' ');
        }
        paragraph.push_str(trimmed);
    }
    flush(&mut paragraph, &mut current);
    if current.level > 0 || !current.items.is_empty() || !current.paragraphs.is_empty() {
        doc.sections.push(current);
    }
    doc
}

fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    let rest = &line[hashes..];
    ((1..=6).contains(&hashes) && rest.starts_with(' ')).then_some(hashes)
}

fn list_item(line: &str) -> Option<(bool, &str)> {
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return Some((false, rest.trim()));
        }
    }
    let digits = line.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 {
        let rest = &line[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some((true, r.trim()));
        }
    }
    None
}

/// The contents of every `code span` in the text, in order.
pub(crate) fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && !s.is_empty())
        .map(|(_, s)| s.to_string())
        .collect()
}

/// The text without backticks, on one line, shortened to `max` characters.
pub(crate) fn plain(text: &str, max: usize) -> String {
    let joined: String = text.replace('`', "").split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= max {
        return joined;
    }
    let cut: String = joined.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_headings_and_items() {
        let doc = parse(
            "---\nname: notes\ndescription: \"Draft notes\"\n---\n# Title\nintro line\n\n## Steps\n1. one\n   more\n2. two\n## Never\n- bad `thing`\n```\n# not a heading\n```\n",
        );
        assert_eq!(doc.front_matter["name"], "notes");
        assert_eq!(doc.front_matter["description"], "Draft notes");
        let headings: Vec<(usize, &str)> = doc
            .sections
            .iter()
            .filter(|s| s.level > 0)
            .map(|s| (s.level, s.heading.as_str()))
            .collect();
        assert_eq!(headings, [(1, "Title"), (2, "Steps"), (2, "Never")]);
        assert_eq!(doc.sections[0].paragraphs, vec!["intro line"]);
        assert_eq!(doc.sections[1].items[0].text, "one more");
        assert!(doc.sections[1].items[0].ordered);
        assert_eq!(code_spans(&doc.sections[2].items[0].text), vec!["thing"]);
    }

    #[test]
    fn plain_shortens() {
        assert_eq!(plain("a `b`  c", 80), "a b c");
        assert_eq!(plain("abcdefgh", 5), "abcd…");
    }
}
