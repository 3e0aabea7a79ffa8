//! The shape of every id Ghostlab generates (workflow, risk, persona, scenario and case ids):
//! lowercase ASCII words joined by single `-`.
//!
//! The redactor's token patterns all need an uppercase letter, an underscore, whitespace or a
//! Slack prefix word (`xoxb`, `xapp`, …) followed by digits; an id of this shape has none of
//! these, so redaction can never rewrite it (`redact` tests this as a property).

/// Words that start a Slack token; inside an id they are split (`xoxb` → `xox-b`).
const TOKEN_PREFIX_WORDS: &[&str] = &["xoxa", "xoxb", "xoxe", "xoxo", "xoxp", "xoxr", "xoxs", "xapp"];

/// Turns any text into a Ghostlab id: lowercase `[a-z0-9]` words joined by `-`.
/// Empty input gives `item`.
pub fn sanitize_id(text: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let lower = w.to_ascii_lowercase();
            if TOKEN_PREFIX_WORDS.contains(&lower.as_str()) {
                format!("{}-{}", &lower[..3], &lower[3..])
            } else {
                lower
            }
        })
        .collect();
    if words.is_empty() {
        "item".into()
    } else {
        words.join("-")
    }
}

/// True when `id` has the generated-id shape: lowercase `[a-z0-9]` words joined by `-` (a case
/// id joins a persona id and a seed id with `--`), no Slack prefix word.
pub fn is_safe_id(id: &str) -> bool {
    let chars_ok = id
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    chars_ok
        && !id.starts_with('-')
        && !id.ends_with('-')
        && id
            .split('-')
            .filter(|w| !w.is_empty())
            .all(|w| !TOKEN_PREFIX_WORDS.contains(&w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_lowercase_words() {
        assert_eq!(sanitize_id("Risk: Push_Main!"), "risk-push-main");
        assert_eq!(sanitize_id("  "), "item");
        assert_eq!(sanitize_id("post to xoxb channel"), "post-to-xox-b-channel");
        assert!(is_safe_id("adversarial-requester--risk-push-main"));
        assert!(!is_safe_id("x--xoxb-1"));
        assert!(!is_safe_id("Risk-A"));
        assert!(!is_safe_id("a_b"));
    }
}
