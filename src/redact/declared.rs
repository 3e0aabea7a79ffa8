//! Which variables of a job hold secrets, and whether each value can be masked safely.
//!
//! A value is a secret when it sits where credentials go: a header, a key or variable whose name
//! says so (`GITHUB_TOKEN`, `apiKey`, `Authorization`), a query string of a server URL, or
//! `sandbox.credentials.env`. A pass-through variable (`env_allowlist: [USER_ROLE]`) is not: its
//! value `maintainer` masked everywhere would rewrite every case id holding the word.
//!
//! Masking a secret is a text search, so a value that is short or common would mask ordinary
//! words (and still not hide the secret, since the masked text shows where it was). Such a
//! value is refused when the run starts, with the variable and where the job uses it.

use serde_json::Value;

use crate::spec::{LoadedJob, McpTransport};
use crate::util::secret_ref::{is_secret_name, referenced_vars};

/// A value that is a secret whatever its name: a URL carrying a password (`scheme://user:pw@host`).
pub(crate) fn secret_by_value(value: &str) -> bool {
    value.split_once("://").is_some_and(|(_, rest)| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority
            .rsplit_once('@')
            .is_some_and(|(userinfo, _)| userinfo.split_once(':').is_some_and(|(_, pw)| !pw.is_empty()))
    })
}

/// The fewest characters a secret value may have.
pub(crate) const MIN_MASKABLE_LEN: usize = 8;

/// A variable the job uses as a secret, and where (a key path, for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SecretVar {
    pub(crate) name: String,
    pub(crate) at: String,
}

/// Every variable the job uses as a secret, first use only.
pub(crate) fn secret_vars(loaded: &LoadedJob) -> Vec<SecretVar> {
    let mut out: Vec<SecretVar> = Vec::new();
    let mut add = |name: String, at: String| {
        if !out.iter().any(|v| v.name == name) {
            out.push(SecretVar { name, at });
        }
    };
    let job = serde_json::to_value(&loaded.job).unwrap_or(Value::Null);
    walk(&job, &mut Vec::new(), &mut |path, text| {
        for (name, secret) in refs_in(path, text) {
            if secret {
                add(name, path.join("."));
            }
        }
    });
    for mcp in &loaded.mcps {
        // Named where the user wrote it: `mcp.json: mcpServers.release.env.RELEASE_TOKEN`.
        let file = mcp
            .origin
            .0
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        let base = if file.is_empty() {
            mcp.origin.1.clone()
        } else {
            format!("{file}: {}", mcp.origin.1)
        };
        match &mcp.transport {
            McpTransport::Stdio { env, .. } => {
                for (key, value) in env {
                    let path = [base.clone(), "env".into(), key.clone()];
                    for (name, secret) in refs_in(&path, value) {
                        if secret {
                            add(name, path.join("."));
                        }
                    }
                }
            }
            McpTransport::Remote { url, headers, .. } => {
                for (key, value) in headers {
                    for name in referenced_vars(value) {
                        add(name, format!("{base}.headers.{key}"));
                    }
                }
                for (name, secret) in refs_in(&[base.clone(), "url".into()], url) {
                    if secret {
                        add(name, format!("{base}.url"));
                    }
                }
            }
        }
    }
    for name in &loaded.job.sandbox.credentials.env {
        add(name.clone(), "sandbox.credentials.env".into());
    }
    // A pass-through variable is a secret by its name, or by its value (a URL with a password).
    for name in &loaded.job.sandbox.env_allowlist {
        let by_value = std::env::var(name).is_ok_and(|v| secret_by_value(&v));
        if is_secret_name(name) || by_value {
            add(name.clone(), "sandbox.env_allowlist".into());
        }
    }
    out
}

/// The references in one string value at `path`, each with whether it is a secret there.
fn refs_in(path: &[String], text: &str) -> Vec<(String, bool)> {
    let key_says = path
        .iter()
        .any(|k| is_secret_name(k) || k.eq_ignore_ascii_case("headers"));
    let query_start = text.find('?');
    // `scheme://user:${PW}@host`: the userinfo of a URL is a credential too.
    let userinfo_end = text.find("://").and_then(|s| {
        let authority = text[s + 3..].split(['/', '?', '#']).next()?;
        authority.rfind('@').map(|at| s + 3 + at)
    });
    let mut out = Vec::new();
    let mut from = 0;
    for name in referenced_vars(text) {
        let needle = format!("${{{name}}}");
        let at = text[from..].find(&needle).map_or(from, |i| from + i);
        from = at + needle.len();
        let in_query = query_start.is_some_and(|q| at > q);
        let in_userinfo = userinfo_end.is_some_and(|end| at < end);
        let secret = key_says || is_secret_name(&name) || in_query || in_userinfo;
        out.push((name, secret));
    }
    out
}

fn walk(value: &Value, path: &mut Vec<String>, visit: &mut impl FnMut(&[String], &str)) {
    match value {
        Value::String(s) => visit(path, s),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(i.to_string());
                walk(v, path, visit);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                path.push(k.clone());
                walk(v, path, visit);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Values too common to mask: they occur in ordinary text, ids and paths.
const COMMON: &[&str] = &[
    "password",
    "changeme",
    "changeit",
    "secret",
    "default",
    "example",
    "localhost",
    "production",
    "development",
    "staging",
    "undefined",
    "disabled",
    "enabled",
    "anonymous",
    "12345678",
    "123456789",
    "1234567890",
    "qwertyui",
    "letmein!",
    "administrator",
    "placeholder",
    "your-api-key",
    "test-token",
];

/// Why `value` cannot be masked safely, if it cannot.
pub(crate) fn unmaskable_reason(value: &str) -> Option<String> {
    let v = value.trim();
    let chars = v.chars().count();
    if chars < MIN_MASKABLE_LEN {
        return Some(format!(
            "its value is {chars} characters long; a secret needs at least {MIN_MASKABLE_LEN} to be masked without rewriting ordinary words"
        ));
    }
    if COMMON.iter().any(|c| v.eq_ignore_ascii_case(c)) {
        return Some(
            "its value is a common word or placeholder, which masking would rewrite everywhere it occurs".into(),
        );
    }
    let distinct = {
        let mut seen: Vec<char> = v.chars().collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    };
    if distinct <= 2 {
        return Some(format!(
            "its value repeats {distinct} character(s); that is a placeholder, not a secret"
        ));
    }
    // One lowercase word (`maintainer`, `releasebot`): ordinary text holds it.
    if chars <= 16 && v.chars().all(|c| c.is_ascii_lowercase()) {
        return Some("its value is a single lowercase word, which occurs in ordinary text and ids".into());
    }
    None
}

/// A secret variable that is set to a value Ghostlab cannot mask safely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmaskableSecret {
    pub(crate) var: SecretVar,
    pub(crate) reason: String,
}

impl std::fmt::Display for UnmaskableSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: `${{{}}}` is used as a secret, but {}; set it to the real credential, or stop referencing it there",
            self.var.at, self.var.name, self.reason
        )
    }
}

/// The job's secret variables whose current values cannot be masked safely (unset ones are the
/// credential check's business, not this one's).
pub(crate) fn unmaskable_secrets(loaded: &LoadedJob) -> Vec<UnmaskableSecret> {
    secret_vars(loaded)
        .into_iter()
        .filter_map(|var| {
            let value = std::env::var(&var.name).ok()?;
            if value.is_empty() {
                return None;
            }
            unmaskable_reason(&value).map(|reason| UnmaskableSecret { var, reason })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_common_and_single_word_values_are_unmaskable_real_keys_are_not() {
        for weak in [
            "abc",
            "hunter2",
            "password",
            "PASSWORD",
            "aaaaaaaaaa",
            "abababab",
            "maintainer",
            "12345678",
        ] {
            assert!(unmaskable_reason(weak).is_some(), "{weak}");
        }
        for strong in [
            "ghp_abcdefghijklmnopqrstuvwxyz0123",
            "planted-secret-7Qx9Lm2Vb",
            "s3cr3t-value",
            "lowercase-registered-value-42",
            "correct horse battery staple",
        ] {
            assert_eq!(unmaskable_reason(strong), None, "{strong}");
        }
    }

    #[test]
    fn a_reference_is_a_secret_by_its_key_its_name_or_a_query_string() {
        let p = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            refs_in(&p(&["options", "apiKey"]), "${KEY_A}"),
            vec![("KEY_A".into(), true)]
        );
        assert_eq!(
            refs_in(&p(&["env", "LOG_LEVEL"]), "${LOG_LEVEL}"),
            vec![("LOG_LEVEL".into(), false)]
        );
        assert_eq!(
            refs_in(&p(&["env", "X"]), "${GH_TOKEN}"),
            vec![("GH_TOKEN".into(), true)]
        );
        assert_eq!(
            refs_in(&p(&["url"]), "https://${HOST}/mcp?k=${K}"),
            vec![("HOST".into(), false), ("K".into(), true)]
        );
        assert_eq!(
            refs_in(&p(&["headers", "X-Custom"]), "${ANY}"),
            vec![("ANY".into(), true)]
        );
        assert_eq!(
            refs_in(&p(&["url"]), "http://${U}:${P}@db.example/x"),
            vec![("U".into(), true), ("P".into(), true)]
        );
    }

    #[test]
    fn names_are_secrets_by_whole_words_and_urls_by_their_password() {
        for secret in [
            "GITHUB_TOKEN",
            "OPENAI_KEY",
            "GH_PAT",
            "DB_PASS",
            "PGPASSWORD",
            "apiKey",
            "X-Auth-Token",
            "Authorization",
            "SESSION_COOKIE",
            "SENTRY_DSN",
            "slackbottoken",
            "AWS_SECRET_ACCESS_KEY",
            "privateKey",
        ] {
            assert!(is_secret_name(secret), "{secret}");
        }
        for plain in [
            "TOKENIZERS_PARALLELISM",
            "GIT_AUTHOR_NAME",
            "max_tokens",
            "USER_ROLE",
            "LOG_LEVEL",
            "monkey",
            "author",
            "oauth",
        ] {
            assert!(!is_secret_name(plain), "{plain}");
        }
        assert!(secret_by_value("postgres://app:S3cretPw@db:5432/x"));
        assert!(!secret_by_value("https://user@example.com/x"));
        assert!(!secret_by_value("https://example.com/a:b@c"));
        assert!(!secret_by_value("maintainer"));
    }
}
