//! Token shapes of real key formats (OpenAI and Anthropic `sk-`, GitHub, AWS, Slack, bearer
//! tokens, JWTs, private keys). Each pattern starts at a word boundary and needs evidence of
//! randomness an id Ghostlab generates never has, so `risk-…` case ids are never rewritten; a
//! match wholly inside a protected name (`protected`) is kept.

use regex::{Regex, RegexSet};
use std::borrow::Cow;
use std::sync::LazyLock;

use super::protected::Protected;

/// What a masked secret is replaced with.
pub const MASK: &str = "[REDACTED]";

/// One token shape and whether a match is random enough to be a key.
struct TokenRule {
    pattern: Regex,
    /// Needs an uppercase letter in the match (the body of an `sk-` key is base62/base64url, so a
    /// real key has one; a lowercase id never does).
    needs_uppercase: bool,
}

static RULES: LazyLock<Vec<TokenRule>> = LazyLock::new(|| {
    [
        // OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-) and Anthropic (sk-ant-api03-…).
        (r"\bsk-[A-Za-z0-9_\-]{20,}", true),
        (r"\bgh[pousr]_[A-Za-z0-9]{20,}", false),
        (r"\bgithub_pat_[A-Za-z0-9_]{22,}", false),
        (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", false),
        (r"\b(?:xox[abeoprs]|xapp)-[0-9][A-Za-z0-9\-]{8,}", false),
        (r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{16,}=*", false),
        (
            r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
            false,
        ),
        (
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
            false,
        ),
    ]
    .iter()
    .map(|(p, needs_uppercase)| TokenRule {
        pattern: Regex::new(p).expect("valid redaction pattern"),
        needs_uppercase: *needs_uppercase,
    })
    .collect()
});

/// Every token pattern in one automaton: most strings match none, and one scan says so (the
/// rules are then skipped instead of each scanning the string again).
pub(super) static ANY_RULE: LazyLock<RegexSet> =
    LazyLock::new(|| RegexSet::new(RULES.iter().map(|r| r.pattern.as_str())).expect("valid redaction patterns"));

/// Masks token-shaped strings (real key formats), except a match wholly inside a protected name.
pub(super) fn mask_shapes<'a>(mut out: Cow<'a, str>, protected: &Protected) -> Cow<'a, str> {
    for rule in RULES.iter() {
        let random = |m: &str| !rule.needs_uppercase || m.chars().any(|c| c.is_ascii_uppercase());
        let spans = protected.spans(&out);
        let masks = |m: &regex::Match<'_>| random(m.as_str()) && !Protected::covers(&spans, m.start(), m.end());
        if !rule.pattern.find_iter(&out).any(|m| masks(&m)) {
            continue;
        }
        let replaced = rule.pattern.replace_all(&out, |c: &regex::Captures| {
            let m = c.get(0).expect("a match has a whole group");
            if masks(&m) {
                MASK.to_string()
            } else {
                m.as_str().to_string()
            }
        });
        out = Cow::Owned(replaced.into_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefilter_lets_every_token_shape_through_to_its_rule() {
        let r = super::super::Redactor::new();
        for token in [
            "sk-abcdefGhijklmnopqrstuvwx",
            "ghp_abcdefghijklmnopqrstuvwxyz",
            "AKIAABCDEFGHIJKLMNOP",
            "xoxb-1234567890-abcdef",
            "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4f",
        ] {
            let text = format!("key {token} end");
            assert_eq!(r.redact(&text), format!("key {MASK} end"), "{token}");
        }
    }

    /// Ids and words shaped like a key prefix but with no sign of randomness stay as written.
    #[test]
    fn shapes_without_randomness_are_not_keys() {
        let none = Protected::default();
        for text in [
            "case sk-release-notes-drafting-case-01",
            "slack xoxb-rollout-check-2024",
            "short ghp_abc123",
            "lower akiaabcdefghijklmnop",
            "a jwt-ish eyJ.eyJ.x",
        ] {
            assert!(
                matches!(mask_shapes(Cow::Borrowed(text), &none), Cow::Borrowed(_)),
                "{text}"
            );
        }
    }
}
