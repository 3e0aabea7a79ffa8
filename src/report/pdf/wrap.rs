//! Measured word wrapping for the PDF: lines no wider than a width at a size, broken at spaces,
//! then after `-`, `_` and `/` in an overlong token, and inside a piece only as a last resort.

use super::fonts::FontMetrics;

/// Splits `text` into lines no wider than `width` at `size`: at spaces where possible,
/// inside a word when the word alone is too wide. Existing newlines are kept.
pub(super) fn wrap_text(m: &FontMetrics, text: &str, size: f32, width: f32) -> Vec<String> {
    let mut out = Vec::new();
    for raw in text.split('\n') {
        let para = m.printable(raw);
        let mut line = String::new();
        let mut line_w = 0.0;
        for word in split_keep_spaces(&para) {
            let w = m.width(word, size);
            if line_w + w <= width {
                line.push_str(word);
                line_w += w;
                continue;
            }
            if word.trim().is_empty() {
                // A space at a break point is dropped.
                out.push(std::mem::take(&mut line));
                line_w = 0.0;
                continue;
            }
            if !line.is_empty() && w <= width {
                out.push(std::mem::take(&mut line));
                line.push_str(word);
                line_w = w;
                continue;
            }
            // The word is too wide for any line (an id, a path): break it after its `-`,
            // `_` and `/`, and inside a piece only when the piece alone is too wide.
            for piece in break_pieces(word) {
                let pw = m.width(piece, size);
                if line_w + pw <= width {
                    line.push_str(piece);
                    line_w += pw;
                    continue;
                }
                if !line.is_empty() {
                    out.push(std::mem::take(&mut line));
                    line_w = 0.0;
                }
                if pw <= width {
                    line.push_str(piece);
                    line_w = pw;
                    continue;
                }
                for c in piece.chars() {
                    let cw = m.width(c.encode_utf8(&mut [0; 4]), size);
                    if line_w + cw > width && !line.is_empty() {
                        out.push(std::mem::take(&mut line));
                        line_w = 0.0;
                    }
                    line.push(c);
                    line_w += cw;
                }
            }
        }
        out.push(line.trim_end().to_string());
    }
    out
}

/// A word cut after each `-`, `_` and `/`: the places an overlong token may break (the
/// chart's labels break at the same places).
use crate::report::chart::word_pieces as break_pieces;

/// The widest piece of `text` no line break may split (a word, or a piece of an id), in points.
pub(super) fn widest_unbreakable(m: &FontMetrics, text: &str, size: f32) -> f32 {
    text.split_whitespace()
        .flat_map(break_pieces)
        .map(|p| m.width(p, size))
        .fold(0.0, f32::max)
}

/// Words and the runs of spaces between them, in order.
fn split_keep_spaces(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (i, c) in s.char_indices() {
        let sp = c == ' ';
        match in_space {
            Some(prev) if prev != sp => {
                out.push(&s[start..i]);
                start = i;
            }
            _ => {}
        }
        in_space = Some(sp);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{break_pieces, split_keep_spaces};

    #[test]
    fn overlong_tokens_break_only_after_dashes_underscores_and_slashes() {
        assert_eq!(
            break_pieces("adversarial-requester--risk_push/tag"),
            vec!["adversarial-", "requester-", "-", "risk_", "push/", "tag"]
        );
        assert_eq!(break_pieces("unanswered"), vec!["unanswered"]);
    }

    #[test]
    fn splits_words_and_spaces() {
        assert_eq!(split_keep_spaces("ab  c"), vec!["ab", "  ", "c"]);
        assert!(split_keep_spaces("").is_empty());
    }
}
