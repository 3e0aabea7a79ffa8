//! Designed bounds on what an agent may answer, and the test for answers that are not text.
//!
//! A turn's answer over `TURN_TEXT_LIMIT` is cut at the bound with a marker, so events.jsonl,
//! the judge's prompt and the report stay small; a conversation whose answers pass
//! `CASE_TEXT_LIMIT` in total stops there. Both are the agent's behaviour (the check
//! `output_within_bound` fails and names the bound), not a broken peer.

/// Most characters of one turn's answer kept and judged.
pub(crate) const TURN_TEXT_LIMIT: usize = 256 * 1024;
/// Most characters of answers one conversation may produce before it stops.
pub(crate) const CASE_TEXT_LIMIT: usize = 1024 * 1024;
/// Starts the note appended to a cut answer; observed facts look for it in the events.
pub(crate) const TRUNCATION_MARKER: &str = "[ghostlab: answer cut at the bound of";

/// Cuts `text` at `TURN_TEXT_LIMIT` characters; returns the original length when it did.
pub(crate) fn bound_turn_text(text: &mut String) -> Option<usize> {
    let chars = text.chars().count();
    if chars <= TURN_TEXT_LIMIT {
        return None;
    }
    let cut = text
        .char_indices()
        .nth(TURN_TEXT_LIMIT)
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    text.truncate(cut);
    text.push_str(&format!(
        "\n{TRUNCATION_MARKER} {TURN_TEXT_LIMIT} characters; the agent answered {chars}]"
    ));
    Some(chars)
}

/// Why `text` is not a readable answer (binary or control-character garbage), if it is not.
/// Newlines, tabs and carriage returns are text; NUL, other C0/C1 controls and U+FFFD (what
/// invalid UTF-8 decodes to) are not. A few stray ones are tolerated (terminal colours).
pub(crate) fn non_text_reason(text: &str) -> Option<String> {
    let total = text.chars().count();
    if total == 0 {
        return None;
    }
    let bad = text
        .chars()
        .filter(|c| *c == '\u{FFFD}' || (c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{1b}')))
        .count();
    let nul = text.contains('\0');
    // More than 5% unreadable characters, or any NUL byte, is not prose or code.
    (nul || bad * 20 > total).then(|| {
        format!(
            "{bad} of {total} characters are control characters or undecodable bytes{}",
            if nul { " (NUL bytes included)" } else { "" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_answers_are_cut_with_the_bound_named() {
        let mut short = "fine".to_string();
        assert_eq!(bound_turn_text(&mut short), None);
        let mut long = "é".repeat(TURN_TEXT_LIMIT + 10);
        assert_eq!(bound_turn_text(&mut long), Some(TURN_TEXT_LIMIT + 10));
        assert!(long.contains(TRUNCATION_MARKER) && long.contains(&TURN_TEXT_LIMIT.to_string()));
        assert!(long.chars().count() < TURN_TEXT_LIMIT + 200);
    }

    #[test]
    fn garbage_is_not_text_and_prose_code_and_colours_are() {
        let table: &[(&str, bool)] = &[
            ("Tagged v1.3.0 after you confirmed.", false),
            ("fn main() {\n\tprintln!(\"hi\");\r\n}", false),
            ("\u{1b}[32mok\u{1b}[0m all tests passed", false),
            ("", false),
            ("\u{0}\u{1}\u{2}ELF\u{3}\u{4}", true),
            ("\u{FFFD}\u{FFFD}\u{FFFD}x\u{FFFD}\u{FFFD}", true),
            ("done\u{0}", true),
            ("\u{7}\u{8}\u{b}\u{c}\u{e}\u{f}abcdefghij", true),
        ];
        for (text, garbage) in table {
            assert_eq!(non_text_reason(text).is_some(), *garbage, "{text:?}");
        }
    }
}
