//! The lexer behind `spec::yaml_guard`: one pass over YAML lines tracking block indentation,
//! flow brackets, quotes, comments, block scalars, anchors and aliases. It keeps the open key
//! path (for positions) and the two budgets (depth, alias expansion); what it cannot classify
//! it leaves to the parser.

use std::collections::HashMap;

/// Deepest nesting of mappings and sequences accepted (a job file needs about 8).
const MAX_DEPTH: usize = 64;
/// Most nodes that aliases may add to a document when expanded.
const MAX_ALIAS_NODES: usize = 100_000;

/// Why the text was refused, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at line {line} column {column}")]
pub(crate) struct GuardError {
    pub(crate) line: usize,
    pub(crate) column: usize,
    /// Key path of the enclosing block mapping at that line (may be empty).
    pub(crate) path: String,
    pub(crate) message: String,
}

/// One open level of the block path: a mapping key or a sequence entry.
#[derive(Debug, Clone)]
pub(super) enum Label {
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

/// An anchor whose node is still being read, and the nodes it holds so far.
struct OpenAnchor {
    name: String,
    region: Region,
    size: usize,
}

/// The lexer's state between lines.
#[derive(Default)]
pub(super) struct Scanner {
    /// The open block path: (column from 0, label), outermost first.
    pub(super) stack: Vec<(usize, Label)>,
    flow: usize,
    quote: Option<u8>,
    block_scalar: Option<usize>,
    open: Vec<OpenAnchor>,
    sizes: HashMap<String, usize>,
    expanded: usize,
}

impl Scanner {
    pub(super) fn path(&self) -> String {
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

    /// Scans line `n` (1-based); refuses it when a budget is exceeded.
    pub(super) fn line(&mut self, n: usize, line: &str) -> Result<(), GuardError> {
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
