//! Whether a text holds a well-known credential shape (provider API keys, GitHub and Slack
//! tokens, AWS key ids, bearer tokens, JWTs, private keys), for input checks that must refuse
//! a literal where a `${VAR}` belongs. The spec layer cannot use the redactor (a higher
//! layer); these shapes are the narrow, high-confidence ones, so ordinary arguments pass.

use regex::Regex;
use std::sync::LazyLock;

static SHAPES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"\bsk-[A-Za-z0-9_\-]*[A-Z][A-Za-z0-9_\-]*",
        r"\bgh[pousr]_[A-Za-z0-9]{20,}",
        r"\bgithub_pat_[A-Za-z0-9_]{22,}",
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        r"\b(?:xox[abeoprs]|xapp)-[0-9][A-Za-z0-9\-]{8,}",
        r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{16,}",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("valid token pattern"))
    .collect()
});

/// True when `text` holds a credential-shaped token (an `sk-` key needs 20+ characters).
pub(crate) fn has_token_shape(text: &str) -> bool {
    SHAPES.iter().enumerate().any(|(i, re)| {
        re.find_iter(text)
            .any(|m| i != 0 || m.as_str().len() >= "sk-".len() + 20)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_shapes_match_and_ordinary_arguments_do_not() {
        for t in [
            "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
            "--token=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "https://x/?k=AKIAIOSFODNN7EXAMPLE",
            "Bearer abcdefghijklmnopqrstu",
        ] {
            assert!(has_token_shape(t), "{t}");
        }
        for t in [
            "--port",
            "8080",
            "sk-short",
            "./server.js",
            "risk-maintainer-case",
            "ghp_short",
        ] {
            assert!(!has_token_shape(t), "{t}");
        }
    }
}
