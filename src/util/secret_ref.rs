//! `${VAR}` references: found, kept as references, rendered for OpenCode as `{env:VAR}`.
//!
//! Ghostlab never expands a reference into a file it writes or onto an argv; only a child
//! process's environment ever receives the value.

use regex::Regex;
use std::sync::LazyLock;

static REF: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("valid regex"));

/// Names of the variables referenced as `${VAR}` in `text`, in order of appearance.
pub(crate) fn referenced_vars(text: &str) -> Vec<String> {
    REF.captures_iter(text).map(|c| c[1].to_string()).collect()
}

/// True when `text` contains at least one `${VAR}` reference.
pub(crate) fn has_reference(text: &str) -> bool {
    REF.is_match(text)
}

/// The name in the first `${` that is never closed (`${RELEASE_TOKEN`, `${RELEASE_TOKEN x`),
/// when `text` has one: a typo of a reference, not a literal credential.
pub(crate) fn unterminated_reference(text: &str) -> Option<String> {
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
pub(crate) fn literal_credential_message(value: &str) -> Option<(String, String)> {
    let var = unterminated_reference(value)?;
    let shown = if var.is_empty() { "VAR".to_string() } else { var };
    Some((
        format!("`${{{shown}` is an unterminated reference"),
        format!("close it: `${{{shown}}}`"),
    ))
}

/// Rewrites every `${VAR}` into OpenCode's `{env:VAR}` form, leaving other text untouched.
pub(crate) fn to_opencode_env(text: &str) -> String {
    REF.replace_all(text, "{env:$1}").into_owned()
}

/// Words of a name that mark it as a credential (`GH_PAT`, `OPENAI_KEY`, `apiKey`, `DB_PASS`).
const SECRET_WORDS: &[&str] = &[
    "token",
    "secret",
    "secrets",
    "password",
    "passwd",
    "pass",
    "pwd",
    "passphrase",
    "key",
    "apikey",
    "auth",
    "authorization",
    "credential",
    "credentials",
    "cookie",
    "session",
    "pat",
    "dsn",
    "bearer",
    "jwt",
    "signature",
];

/// Parts that mark a name even inside one word (`PGPASSWORD`, `MYSECRET`).
const SECRET_PARTS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "apikey",
    "credential",
    "privatekey",
    "accesskey",
];

/// Whether a variable, key or header name says it holds a credential: the one rule for the
/// job checks (a literal value there is refused), the report's masking and the redactor.
/// Matched by whole words (`TOKENIZERS_PARALLELISM`, `GIT_AUTHOR_NAME`, `max_tokens` are not
/// secrets; `GH_PAT`, `apiKey`, `X-Auth-Token` are), plus a few parts distinctive enough
/// inside one word, and a last word ending in `token`.
pub(crate) fn is_secret_name(name: &str) -> bool {
    let words = words_of(name);
    // A bare `key` names a map entry (`{"key": "agent.runtime.permission.bash"}` in the
    // profile), not a credential: one is always qualified (`api_key`, `OPENAI_KEY`).
    if words == ["key"] {
        return false;
    }
    let joined: String = words.concat();
    words.iter().any(|w| SECRET_WORDS.contains(&w.as_str()))
        || SECRET_PARTS.iter().any(|p| joined.contains(p))
        || words.last().is_some_and(|w| w.ends_with("token"))
}

/// `OPENAI_API_KEY` → openai, api, key; `apiKey` → api, key; `X-Auth-Token` → x, auth, token.
fn words_of(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// A name in the usual environment-variable spelling: ASCII letters and digits upper-cased,
/// everything else `_` (`github-token` → `GITHUB_TOKEN`).
pub(crate) fn env_spelling(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
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
    fn a_word_inside_another_word_is_not_a_secret_word() {
        // The substring rule this replaced took each of these for a credential.
        for plain in [
            "TOKENIZERS_PARALLELISM",
            "GIT_AUTHOR_NAME",
            "monkey",
            "oauth",
            "keyboard_layout",
        ] {
            assert!(!is_secret_name(plain), "{plain}");
        }
        for secret in [
            "private_key",
            "access_key",
            "SESSION_ID",
            "X-Auth-Token",
            "PGPASSWORD",
            "slackbottoken",
        ] {
            assert!(is_secret_name(secret), "{secret}");
        }
    }

    #[test]
    fn env_spelling_upper_cases_and_replaces_the_rest() {
        assert_eq!(env_spelling("github-token"), "GITHUB_TOKEN");
        assert_eq!(env_spelling("a.b c"), "A_B_C");
        assert_eq!(env_spelling("héllo"), "H_LLO");
        assert_eq!(env_spelling(""), "");
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
