//! `${VAR}` references: found, kept as references, rendered for OpenCode as `{env:VAR}`.
//!
//! Ghostlab never expands a reference into a file it writes or onto an argv; only a child
//! process's environment ever receives the value.

use regex::Regex;
use std::sync::LazyLock;

static REF: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("valid regex"));

/// Names of the variables referenced as `${VAR}` in `text`, in order of appearance.
pub fn referenced_vars(text: &str) -> Vec<String> {
    REF.captures_iter(text).map(|c| c[1].to_string()).collect()
}

/// True when `text` contains at least one `${VAR}` reference.
pub fn has_reference(text: &str) -> bool {
    REF.is_match(text)
}

/// The name in the first `${` that is never closed (`${RELEASE_TOKEN`, `${RELEASE_TOKEN x`),
/// when `text` has one: a typo of a reference, not a literal credential.
pub fn unterminated_reference(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !after[name.len()..].starts_with('}') {
            return Some(name);
        }
        rest = &after[name.len()..];
    }
    None
}

/// The diagnostic message and hint for a credential-carrying value that is not a reference:
/// an unterminated `${VAR` says so; anything else is a literal credential.
pub fn literal_credential_message(value: &str) -> Option<(String, String)> {
    let var = unterminated_reference(value)?;
    let shown = if var.is_empty() { "VAR".to_string() } else { var };
    Some((
        format!("`${{{shown}` is an unterminated reference"),
        format!("close it: `${{{shown}}}`"),
    ))
}

/// Rewrites every `${VAR}` into OpenCode's `{env:VAR}` form, leaving other text untouched.
pub fn to_opencode_env(text: &str) -> String {
    REF.replace_all(text, "{env:$1}").into_owned()
}

/// Words that mark a key or header as carrying a credential.
const SECRET_WORDS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "api_key",
    "api-key",
    "authorization",
    "auth",
    "credential",
    "private_key",
    "access_key",
    "session",
];

/// True when a key or header name looks like it carries a credential
/// (`GITHUB_TOKEN`, `Authorization`, `apiKey`), so its value must be a `${VAR}` reference.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower == "max_tokens" || lower.ends_with("_tokens") || lower == "author" {
        return false;
    }
    SECRET_WORDS.iter().any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_rewrites_references() {
        assert_eq!(referenced_vars("Bearer ${GH_TOKEN} ${X}"), vec!["GH_TOKEN", "X"]);
        assert_eq!(to_opencode_env("Bearer ${GH_TOKEN}"), "Bearer {env:GH_TOKEN}");
        assert!(!has_reference("plain $HOME text"));
    }

    #[test]
    fn secret_names_avoid_known_traps() {
        assert!(is_secret_name("GITHUB_TOKEN"));
        assert!(is_secret_name("Authorization"));
        assert!(is_secret_name("apiKey"));
        assert!(!is_secret_name("max_tokens"));
        assert!(!is_secret_name("author"));
        assert!(!is_secret_name("LOG_LEVEL"));
    }

    #[test]
    fn an_unclosed_reference_is_told_apart_from_a_literal() {
        assert_eq!(unterminated_reference("${RELEASE_TOKEN"), Some("RELEASE_TOKEN".into()));
        assert_eq!(unterminated_reference("Bearer ${TOKEN and more"), Some("TOKEN".into()));
        assert_eq!(unterminated_reference("${A}-${B"), Some("B".into()));
        assert_eq!(unterminated_reference("${"), Some(String::new()));
        assert_eq!(unterminated_reference("${A}${B}"), None);
        assert_eq!(unterminated_reference("sk-live-1234"), None);
        let (msg, hint) = literal_credential_message("${RELEASE_TOKEN").unwrap();
        assert!(msg.contains("`${RELEASE_TOKEN` is an unterminated reference"), "{msg}");
        assert_eq!(hint, "close it: `${RELEASE_TOKEN}`");
        assert!(literal_credential_message("sk-live-1234").is_none());
    }
}
