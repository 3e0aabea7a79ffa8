//! A linear pre-scan of YAML text before the real parser sees it: a nesting-depth limit and an
//! alias-expansion budget (each refused with line and column, so a hostile file costs
//! milliseconds instead of minutes), and the key path at a line for parser errors that carry
//! only a position (duplicate keys).
//!
//! It is a lexer, not a parser: it tracks block indentation, flow brackets, quotes, comments,
//! block scalars, anchors and aliases. What it cannot classify it leaves to the parser.

use super::yaml_scanner::{GuardError, Label, Scanner};

/// The lines of `text` as the YAML parser counts them: LF, CR LF, a bare CR, NEL (U+0085),
/// LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029) each end a line. Splitting on LF
/// alone would let `# comment<CR>[[[[…` hide a whole line of brackets from the guard.
pub(crate) fn yaml_lines(text: &str) -> impl Iterator<Item = &str> {
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
pub(crate) fn check_structure(text: &str) -> Result<(), GuardError> {
    let mut s = Scanner::default();
    for (n, line) in yaml_lines(text).enumerate() {
        s.line(n + 1, line)?;
    }
    Ok(())
}

/// The block key path in effect at `line` (1-based), e.g. `agent.runtime.agents`.
pub(crate) fn key_path_at(text: &str, line: usize) -> String {
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
pub(crate) fn open_paths(text: &str) -> Vec<(usize, Vec<(usize, String)>)> {
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
pub(crate) fn mapping_path_at(text: &str, line: usize, column: usize) -> String {
    let mut s = Scanner::default();
    for (n, l) in yaml_lines(text).enumerate().take(line) {
        if s.line(n + 1, l).is_err() {
            break;
        }
    }
    s.stack.retain(|(c, _)| *c + 1 < column);
    s.path()
}

/// Parses YAML text that is not a whole job file (a wizard answer, a proposal being edited):
/// the guard first, then the parser, so every YAML text Ghostlab reads is pre-scanned.
pub(crate) fn parse_guarded<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, GuardedParseError> {
    check_structure(text)?;
    Ok(yaml_serde::from_str(text)?)
}

/// Why a text read with [`parse_guarded`] was refused: by the guard (with its position) or by
/// the parser (whose message carries the position). The caller names the text.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GuardedParseError {
    #[error(transparent)]
    Guard(#[from] GuardError),
    #[error(transparent)]
    Parse(#[from] yaml_serde::Error),
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

    #[test]
    fn a_guarded_parse_says_whether_the_guard_or_the_parser_refused() {
        let deep = format!("a: {}1{}\n", "[".repeat(100), "]".repeat(100));
        match parse_guarded::<serde_json::Value>(&deep) {
            Err(GuardedParseError::Guard(g)) => assert_eq!((g.line, g.column), (1, 67)),
            other => panic!("{other:?}"),
        }
        let e = parse_guarded::<serde_json::Value>(&deep).unwrap_err().to_string();
        assert!(
            e.contains("nesting deeper than 64 levels (the nesting-depth limit) at line 1 column 67"),
            "{e}"
        );
        match parse_guarded::<serde_json::Value>("a: [1\n") {
            Err(GuardedParseError::Parse(_)) => {}
            other => panic!("{other:?}"),
        }
        let wrong_type = parse_guarded::<Vec<u32>>("a: 1\n").unwrap_err();
        assert!(matches!(wrong_type, GuardedParseError::Parse(_)), "{wrong_type:?}");
        assert_eq!(parse_guarded::<Vec<u32>>("[1, 2]\n").unwrap(), [1, 2]);
    }
}
