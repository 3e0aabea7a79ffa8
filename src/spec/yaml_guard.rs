//! A linear pre-scan of YAML text before the real parser sees it: a nesting-depth limit and an
//! alias-expansion budget (each refused with line and column, so a hostile file costs
//! milliseconds instead of minutes), and the key path at a line for parser errors that carry
//! only a position (duplicate keys).
//!
//! It is a lexer, not a parser: it tracks block indentation, flow brackets, quotes, comments,
//! block scalars, anchors and aliases. What it cannot classify it leaves to the parser.

use std::collections::HashMap;

/// Deepest nesting of mappings and sequences accepted (a job file needs about 8).
pub const MAX_DEPTH: usize = 64;
/// Most nodes that aliases may add to a document when expanded.
pub const MAX_ALIAS_NODES: usize = 100_000;

/// Why the text was refused, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardError {
    pub line: usize,
    pub column: usize,
    /// Key path of the enclosing block mapping at that line (may be empty).
    pub path: String,
    pub message: String,
}

#[derive(Debug, Clone)]
enum Label {
    Key(String),
    Index(usize),
}

/// Where an anchored node ends.
#[derive(Debug, Clone, Copy)]
enum Region {
    /// Lines indented deeper than this column belong to it.
    Block(usize),
    /// It ends at a `,` at this flow depth or when the depth drops below it.
    Flow(usize),
}

struct OpenAnchor {
    name: String,
    region: Region,
    size: usize,
}

#[derive(Default)]
struct Scanner {
    stack: Vec<(usize, Label)>,
    flow: usize,
    quote: Option<u8>,
    block_scalar: Option<usize>,
    open: Vec<OpenAnchor>,
    sizes: HashMap<String, usize>,
    expanded: usize,
}

/// The lines of `text` as the YAML parser counts them: LF, CR LF, a bare CR, NEL (U+0085),
/// LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029) each end a line. Splitting on LF
/// alone would let `# comment<CR>[[[[…` hide a whole line of brackets from the guard.
pub fn yaml_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        match t
            .char_indices()
            .find(|(_, c)| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}'))
        {
            Some((i, c)) => {
                let after = if t[i..].starts_with("\r\n") {
                    i + 2
                } else {
                    i + c.len_utf8()
                };
                rest = Some(&t[after..]);
                Some(&t[..i])
            }
            None => {
                rest = None;
                // Like `str::lines`: no empty line after a final break.
                (!t.is_empty()).then_some(t)
            }
        }
    })
}

/// Checks depth and alias expansion of `text`.
pub fn check_structure(text: &str) -> Result<(), GuardError> {
    let mut s = Scanner::default();
    for (n, line) in yaml_lines(text).enumerate() {
        s.line(n + 1, line)?;
    }
    Ok(())
}

/// The block key path in effect at `line` (1-based), e.g. `agent.runtime.agents`.
pub fn key_path_at(text: &str, line: usize) -> String {
    let mut s = Scanner::default();
    for (n, l) in yaml_lines(text).enumerate().take(line) {
        if s.line(n + 1, l).is_err() {
            break;
        }
    }
    s.path()
}

/// Each line (1-based) with the block path open after it, as (column from 1, segment) pairs:
/// `agent`, `inputs`, `mcps`, `[0]`… (`spec::key_position` searches them). Stops at the first
/// line the guard refuses.
pub fn open_paths(text: &str) -> Vec<(usize, Vec<(usize, String)>)> {
    let mut s = Scanner::default();
    let mut out = Vec::new();
    for (n, l) in yaml_lines(text).enumerate() {
        if s.line(n + 1, l).is_err() {
            break;
        }
        let open = s.stack.iter().map(|(c, label)| {
            let segment = match label {
                Label::Key(k) => k.clone(),
                Label::Index(i) => format!("[{i}]"),
            };
            (c + 1, segment)
        });
        out.push((n + 1, open.collect()));
    }
    out
}

/// The key path of the mapping that starts at `line`, `column` (both 1-based): the parser
/// reports a duplicate key at the start of its mapping.
pub fn mapping_path_at(text: &str, line: usize, column: usize) -> String {
    let mut s = Scanner::default();
    for (n, l) in yaml_lines(text).enumerate().take(line) {
        if s.line(n + 1, l).is_err() {
            break;
        }
    }
    s.stack.retain(|(c, _)| *c + 1 < column);
    s.path()
}

impl Scanner {
    fn path(&self) -> String {
        let mut out = String::new();
        for (_, label) in &self.stack {
            match label {
                Label::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Label::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    fn fail(&self, line: usize, column: usize, message: String) -> GuardError {
        GuardError {
            line,
            column,
            path: self.path(),
            message,
        }
    }

    fn line(&mut self, n: usize, line: &str) -> Result<(), GuardError> {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let content = line[indent..].trim_end();
        if let Some(owner) = self.block_scalar {
            if content.is_empty() || indent > owner {
                return Ok(());
            }
            self.block_scalar = None;
        }
        let mut col = indent;
        if self.quote.is_none() && self.flow == 0 {
            if content.is_empty() || content.starts_with('#') || content.starts_with("---") {
                return Ok(());
            }
            self.close_block_anchors(indent);
            col = self.block_structure(n, line, indent)?;
        }
        self.scan_tokens(n, line, col)?;
        if self.quote.is_none() && self.flow == 0 && ends_with_block_scalar(content) {
            self.block_scalar = Some(self.stack.last().map_or(0, |(c, _)| *c));
        }
        Ok(())
    }

    /// Pushes the sequence entries and the key that start this line; returns where the
    /// value's tokens begin.
    fn block_structure(&mut self, n: usize, line: &str, indent: usize) -> Result<usize, GuardError> {
        let bytes = line.as_bytes();
        let mut col = indent;
        while col < bytes.len() && bytes[col] == b'-' && (col + 1 == bytes.len() || bytes[col + 1] == b' ') {
            while self.stack.last().is_some_and(|(c, _)| *c > col) {
                self.stack.pop();
            }
            match self.stack.last_mut() {
                Some((c, Label::Index(i))) if *c == col => *i += 1,
                _ => self.stack.push((col, Label::Index(0))),
            }
            self.check_depth(n, col)?;
            col += 1;
            while col < bytes.len() && bytes[col] == b' ' {
                col += 1;
            }
        }
        if let Some(key) = block_key(&line[col..]) {
            while self.stack.last().is_some_and(|(c, _)| *c >= col) {
                self.stack.pop();
            }
            self.stack.push((col, Label::Key(key)));
            self.check_depth(n, col)?;
        }
        Ok(col)
    }

    fn check_depth(&self, n: usize, col: usize) -> Result<(), GuardError> {
        let depth = self.stack.len() + self.flow;
        if depth > MAX_DEPTH {
            return Err(self.fail(
                n,
                col + 1,
                format!("nesting deeper than {MAX_DEPTH} levels (the nesting-depth limit)"),
            ));
        }
        Ok(())
    }

    fn close_block_anchors(&mut self, indent: usize) {
        let (closed, open): (Vec<_>, Vec<_>) = std::mem::take(&mut self.open)
            .into_iter()
            .partition(|a| matches!(a.region, Region::Block(c) if indent <= c));
        self.open = open;
        for a in closed {
            self.sizes.insert(a.name, a.size);
        }
    }

    fn close_flow_anchors(&mut self, at_comma: bool) {
        let flow = self.flow;
        let (closed, open): (Vec<_>, Vec<_>) = std::mem::take(&mut self.open)
            .into_iter()
            .partition(|a| matches!(a.region, Region::Flow(d) if d > flow || (at_comma && d == flow)));
        self.open = open;
        for a in closed {
            self.sizes.insert(a.name, a.size);
        }
    }

    fn add_nodes(&mut self, k: usize) {
        for a in &mut self.open {
            a.size = a.size.saturating_add(k);
        }
    }

    /// Scans bytes (every structural character is ASCII; UTF-8 continuation bytes never are).
    fn scan_tokens(&mut self, n: usize, line: &str, from: usize) -> Result<(), GuardError> {
        let bytes = line.as_bytes();
        let mut i = from;
        let mut token_start = true;
        while i < bytes.len() {
            let c = bytes[i];
            if let Some(q) = self.quote {
                if c == b'\\' && q == b'"' {
                    i += 2;
                    continue;
                }
                if c == q {
                    if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    self.quote = None;
                }
                i += 1;
                continue;
            }
            match c {
                b'#' if token_start => break,
                b'"' | b'\'' if token_start => {
                    self.quote = Some(c);
                    self.add_nodes(1);
                    token_start = false;
                }
                b'[' | b'{' if token_start || self.flow > 0 => {
                    self.flow += 1;
                    self.check_depth(n, i)?;
                    self.add_nodes(1);
                    token_start = true;
                }
                b']' | b'}' if self.flow > 0 => {
                    self.flow -= 1;
                    self.close_flow_anchors(false);
                    token_start = true;
                }
                b',' if self.flow > 0 => {
                    self.close_flow_anchors(true);
                    token_start = true;
                }
                b'&' | b'*' if token_start => {
                    let len = bytes[i + 1..]
                        .iter()
                        .take_while(|b| !b.is_ascii_whitespace() && !b",[]{}".contains(b))
                        .count();
                    let name = String::from_utf8_lossy(&bytes[i + 1..i + 1 + len]).into_owned();
                    if c == b'&' {
                        let region = if self.flow > 0 {
                            Region::Flow(self.flow)
                        } else {
                            Region::Block(self.stack.last().map_or(0, |(c, _)| *c))
                        };
                        self.open.push(OpenAnchor { name, region, size: 0 });
                    } else {
                        let size = self.sizes.get(&name).copied().unwrap_or(1).max(1);
                        self.expanded = self.expanded.saturating_add(size);
                        self.add_nodes(size);
                        if self.expanded > MAX_ALIAS_NODES {
                            return Err(self.fail(
                                n,
                                i + 1,
                                format!(
                                    "alias `*{name}` expands the document past {MAX_ALIAS_NODES} nodes \
                                     (the alias-expansion budget)"
                                ),
                            ));
                        }
                    }
                    i += len;
                    token_start = false;
                }
                b' ' | b'\t' | b'\r' => token_start = true,
                b':' if self.flow > 0 => token_start = true,
                _ => {
                    if token_start {
                        self.add_nodes(1);
                    }
                    token_start = false;
                }
            }
            i += 1;
        }
        Ok(())
    }
}

/// The key of `key: …` (plain or quoted) at the start of `rest`, if it is one.
fn block_key(rest: &str) -> Option<String> {
    let first = rest.chars().next()?;
    if "[{&*!|>#%@`".contains(first) {
        return None;
    }
    if first == '"' || first == '\'' {
        let end = rest[1..].find(first)? + 1;
        let after = &rest[end + 1..];
        return (after.starts_with(": ") || after == ":" || after.starts_with(":\t")).then(|| rest[1..end].to_string());
    }
    let colon = rest
        .find(": ")
        .or_else(|| rest.ends_with(':').then(|| rest.len() - 1))?;
    let key = rest[..colon].trim_end();
    (!key.is_empty() && !key.contains(" #")).then(|| key.to_string())
}

/// True when a line's value introduces a block scalar (`|`, `>-`, `|+2`, …).
fn ends_with_block_scalar(content: &str) -> bool {
    let code = match content.find(" #") {
        Some(i) => &content[..i],
        None => content,
    };
    let last = code.rsplit(' ').next().unwrap_or("");
    let mut chars = last.chars();
    matches!(chars.next(), Some('|' | '>')) && chars.all(|c| c == '-' || c == '+' || c.is_ascii_digit())
}

/// Parses YAML text that is not a whole job file (a wizard answer, a proposal being edited):
/// the guard first, then the parser, so every YAML text Ghostlab reads is pre-scanned.
pub fn parse_guarded<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    check_structure(text).map_err(|g| format!("{} at line {} column {}", g.message, g.line, g.column))?;
    yaml_serde::from_str(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_documents_pass_and_paths_are_tracked() {
        let text = "version: 1\nagent:\n  id: a\n  runtime:\n    instructions:\n      - ./x.md\n      - ./y.md\n    agents:\n      release:\n        prompt: |\n          text: with colon\n          - not an item\n        temperature: 0.1\nsandbox: { backend: local, allow: [\"a:1\"] }\n";
        check_structure(text).unwrap();
        assert_eq!(key_path_at(text, 7), "agent.runtime.instructions[1]");
        assert_eq!(key_path_at(text, 13), "agent.runtime.agents.release.temperature");
        assert_eq!(key_path_at(text, 14), "sandbox");
    }

    #[test]
    fn deep_flow_and_block_nesting_are_refused_with_a_position() {
        let flow = format!("a: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000));
        let e = check_structure(&flow).unwrap_err();
        assert_eq!((e.line, e.path.as_str()), (1, "a"));
        assert!(e.message.contains("nesting"), "{e:?}");
        let block = format!("a:\n{}x\n", "- ".repeat(1000));
        let e = check_structure(&block).unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn alias_bombs_exceed_the_budget_but_a_few_aliases_do_not() {
        let mut bomb =
            String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for w in names.windows(2) {
            let refs = vec![format!("*{}", w[0]); 9].join(",");
            bomb.push_str(&format!("{}: &{} [{refs}]\n", w[1], w[1]));
        }
        let e = check_structure(&bomb).unwrap_err();
        assert!(e.message.contains("alias-expansion budget"), "{e:?}");
        assert!(e.line > 1);
        let block_bomb = "a: &a\n  - x\n  - y\nb: &b\n  - *a\n  - *a\nc:\n  - *b\n";
        check_structure(block_bomb).unwrap();
    }

    #[test]
    fn every_line_break_the_parser_knows_ends_a_line_for_the_guard() {
        // A comment hides the rest of its line from the guard; each of these breaks starts a
        // new line for the parser, so the brackets after it must be scanned.
        for brk in ["\r", "\u{85}", "\u{2028}", "\u{2029}", "\r\n"] {
            let text = format!("a: 1 # note{brk}b: {}1{}\n", "[".repeat(10_000), "]".repeat(10_000));
            let e = check_structure(&text).unwrap_err();
            assert_eq!((e.line, e.path.as_str()), (2, "b"), "{brk:?}");
        }
        let lines: Vec<&str> = yaml_lines("a\r\nb\rc\u{2028}d\n").collect();
        assert_eq!(lines, ["a", "b", "c", "d"]);
        assert_eq!(yaml_lines("").count(), 0);
    }
}
