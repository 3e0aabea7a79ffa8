//! Redaction at the artifact and log boundary: every event, transcript, report and log line
//! passes through a `Redactor` before it is written or printed.
//!
//! It masks only what is known to be a secret: the values of the variables the job uses as
//! secrets (`declared`: headers, secret-named keys, credential env; read at start), values registered by the credential store
//! and header resolution (`register_secret`, process-wide), and token shapes of real key formats.
//! Each token pattern starts at a word boundary and needs evidence of randomness that an id
//! Ghostlab generates never has (an uppercase letter, an underscore, whitespace, or a Slack
//! prefix followed by digits; see `crate::util::ids`), so `risk-…` case ids are never rewritten.

use serde_json::Value;
use std::borrow::Cow;
use std::sync::RwLock;

pub(crate) mod declared;
pub mod forms;
pub(crate) mod protected;
mod shapes;

use crate::spec::LoadedJob;
use forms::{encoded_forms, fragment_spans};
pub use shapes::MASK;
use shapes::{ANY_RULE, mask_shapes};

/// Values shorter than this are not treated as secrets (they would mask ordinary words).
const MIN_SECRET_LEN: usize = 6;

/// Secrets known to the whole process: keyring values and resolved header values.
static KNOWN: RwLock<Vec<String>> = RwLock::new(Vec::new());
/// Their encoded forms (`forms`), longest first.
static KNOWN_FORMS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Registers a secret value process-wide: every `Redactor` masks it from now on.
pub fn register_secret(value: &str) {
    let v = value.trim();
    if v.len() < MIN_SECRET_LEN {
        return;
    }
    let mut known = KNOWN.write().unwrap_or_else(|e| e.into_inner());
    if !known.iter().any(|s| s == v) {
        known.push(v.to_string());
        known.sort_by_key(|s| std::cmp::Reverse(s.len()));
        let mut forms = KNOWN_FORMS.write().unwrap_or_else(|e| e.into_inner());
        add_forms(&mut forms, v);
    }
}

fn add_forms(forms: &mut Vec<String>, secret: &str) {
    for f in encoded_forms(secret) {
        if !forms.contains(&f) {
            forms.push(f);
        }
    }
    forms.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

/// Masks the fragments of `secret` in `out` (a prefix, a suffix, the value minus a few chars).
fn mask_fragments<'a>(out: Cow<'a, str>, secret: &str) -> Cow<'a, str> {
    let spans = fragment_spans(&out, secret);
    if spans.is_empty() {
        return out;
    }
    let mut masked = String::with_capacity(out.len());
    let mut at = 0;
    for (a, b) in spans {
        masked.push_str(&out[at..a]);
        masked.push_str(MASK);
        at = b;
    }
    masked.push_str(&out[at..]);
    Cow::Owned(masked)
}

fn mask_value<'a>(out: Cow<'a, str>, secret: &str) -> Cow<'a, str> {
    if out.contains(secret) {
        Cow::Owned(out.replace(secret, MASK))
    } else {
        out
    }
}

/// Masks known secret values and token-shaped strings.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
    /// The secrets' encoded forms (base64, hex, percent), longest first.
    forms: Vec<String>,
    /// Structural names never rewritten (`protected`).
    protected: std::sync::Arc<protected::Protected>,
}

/// A structural name that holds a known secret value, so it can be neither masked (it keys
/// rows and files) nor written as it is.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{what} `{shown}` holds the value of a secret; rename it (it is written in every artifact)")]
pub struct SecretInName {
    pub(crate) what: String,
    /// The name with the secret masked.
    pub(crate) shown: String,
}

impl Redactor {
    /// A redactor with only the built-in token patterns.
    pub fn new() -> Self {
        Redactor::default()
    }

    /// Registers a secret value to mask wherever it appears.
    pub fn add_secret(&mut self, value: &str) {
        let v = value.trim();
        if v.len() >= MIN_SECRET_LEN && !self.secrets.iter().any(|s| s == v) {
            self.secrets.push(v.to_string());
            // Longest first, so a secret containing another is masked whole.
            self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
            add_forms(&mut self.forms, v);
        }
    }

    /// Registers the current values of the named environment variables.
    pub(crate) fn add_env_vars<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        for name in names {
            if let Ok(value) = std::env::var(name) {
                self.add_secret(&value);
            }
        }
    }

    /// A redactor for a job: the values of the variables it uses as secrets (`declared`):
    /// headers, secret-named keys and variables, URL query strings, credential env. A
    /// pass-through variable with an ordinary name is not a secret and is not masked.
    pub fn for_job(loaded: &LoadedJob) -> Self {
        let mut r = Redactor::new();
        let names = declared::secret_vars(loaded);
        r.add_env_vars(names.iter().map(|v| v.name.as_str()));
        r
    }

    /// Never rewrites the given structural names (case ids, persona ids and names), each with
    /// what it is; refuses one that holds a known secret (it could not be shown unmasked).
    pub(crate) fn protect<'a>(
        &mut self,
        names: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<(), SecretInName> {
        let mut kept: Vec<String> = self.protected.names().to_vec();
        for (what, name) in names {
            if let Cow::Owned(shown) = self.mask_known(name) {
                return Err(SecretInName {
                    what: what.to_string(),
                    shown,
                });
            }
            kept.push(name.to_string());
        }
        self.protected = std::sync::Arc::new(protected::Protected::new(kept));
        Ok(())
    }

    /// Masks secrets in text; borrows when nothing matched. Known secret values are masked
    /// everywhere; a token shape everywhere except where the match lies wholly inside a
    /// protected name (so a secret learnt after `protect` still goes, and a name inside a real
    /// token never saves the token).
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let known = self.mask_known(text);
        if !ANY_RULE.is_match(&known) {
            return known;
        }
        mask_shapes(known, &self.protected)
    }

    /// Known secret values in every form the redactor knows.
    fn mask_known<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out: Cow<'a, str> = Cow::Borrowed(text);
        for secret in &self.secrets {
            out = mask_value(out, secret);
        }
        {
            let known = KNOWN.read().unwrap_or_else(|e| e.into_inner());
            for secret in known.iter() {
                out = mask_value(out, secret);
            }
            let known_forms = KNOWN_FORMS.read().unwrap_or_else(|e| e.into_inner());
            for form in self.forms.iter().chain(known_forms.iter()) {
                out = mask_value(out, form);
            }
            for secret in self.secrets.iter().chain(known.iter()) {
                out = mask_fragments(out, secret);
            }
        }
        out
    }
}

impl Redactor {
    /// A file's bytes at the artifact boundary: text with its secrets masked (borrowed when
    /// clean), a binary kept as it is, or `None` for a binary with something secret-shaped in
    /// it, which cannot be masked without corrupting it and so must be withheld.
    pub(crate) fn redact_file_bytes<'a>(&self, bytes: &'a [u8]) -> Option<Cow<'a, [u8]>> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Some(match self.redact(text) {
                Cow::Borrowed(_) => Cow::Borrowed(bytes),
                Cow::Owned(masked) => Cow::Owned(masked.into_bytes()),
            }),
            Err(_) if matches!(self.redact(&String::from_utf8_lossy(bytes)), Cow::Owned(_)) => None,
            Err(_) => Some(Cow::Borrowed(bytes)),
        }
    }

    /// Masks secrets in every string (and key) of a JSON value, in place; true when anything
    /// was masked.
    pub fn redact_value(&self, value: &mut Value) -> bool {
        match value {
            Value::String(s) => match self.redact(s) {
                Cow::Owned(r) => {
                    *s = r;
                    true
                }
                Cow::Borrowed(_) => false,
            },
            Value::Array(items) => items.iter_mut().fold(false, |hit, v| self.redact_value(v) | hit),
            Value::Object(map) => {
                let mut hit = map.values_mut().fold(false, |hit, v| self.redact_value(v) | hit);
                // Keys are rebuilt only when one of them holds a secret (rare; the map keeps
                // its order either way).
                if map.keys().any(|k| matches!(self.redact(k), Cow::Owned(_))) {
                    let taken = std::mem::take(map);
                    for (k, v) in taken {
                        map.insert(self.redact(&k).into_owned(), v);
                    }
                    hit = true;
                }
                hit
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_registered_values_and_token_shapes() {
        let mut r = Redactor::new();
        r.add_secret("hunter2-canary");
        r.add_secret("abc"); // too short to be treated as a secret
        let text = "token hunter2-canary and sk-abcdefGhijklmnopqrstuvwx and Bearer abcdefghijklmnopqrstu abc";
        let out = r.redact(text);
        assert!(!out.contains("hunter2-canary"));
        assert!(!out.contains("sk-abcdef"));
        assert!(!out.contains("abcdefghijklmnopqrstu"));
        assert!(out.ends_with(" abc"));
    }

    #[test]
    fn redacts_nested_json_including_keys() {
        let mut r = Redactor::new();
        r.add_secret("s3cr3t-value");
        let mut v = serde_json::json!({"a": ["x s3cr3t-value"], "s3cr3t-value": 1});
        assert!(r.redact_value(&mut v));
        assert!(!v.to_string().contains("s3cr3t-value"));
        let mut clean = serde_json::json!({"a": ["nothing", {"b": "here"}]});
        assert!(!r.redact_value(&mut clean));
    }

    #[test]
    fn encoded_and_partial_forms_are_masked() {
        let secret = "planted-secret-7Qx9Lm2Vb";
        let mut r = Redactor::new();
        r.add_secret(secret);
        let forms = crate::redact::forms::encoded_forms(secret);
        let b64 = forms
            .iter()
            .find(|f| !f.chars().all(|c| c.is_ascii_hexdigit()))
            .expect("a base64 form")
            .clone();
        for text in [
            format!("encoded: {b64}"),
            format!("hex {}", hex::encode(secret)),
            format!("HEX {}", hex::encode_upper(secret)),
            format!("cut {}", &secret[..secret.len() - 4]),
            format!("tail {}", &secret[6..]),
        ] {
            let out = r.redact(&text);
            assert!(out.contains(MASK), "{text} → {out}");
            assert!(!out.contains(&secret[..12]) && !out.contains(&secret[12..]), "{out}");
        }
        assert_eq!(r.redact("planted-sec is short"), "planted-sec is short");
    }

    #[test]
    fn protected_names_escape_token_shapes_but_never_known_secrets() {
        let mut r = Redactor::new();
        r.add_secret("planted-secret-7Qx9Lm2Vb");
        r.protect([
            ("case id", "xoxb-2024-rollout-check"),
            ("persona name", "Bearer Bobby-the-release-manager"),
        ])
        .unwrap();
        let text = "case xoxb-2024-rollout-check by Bearer Bobby-the-release-manager; real xoxb-1234567890-abcdef";
        assert_eq!(
            r.redact(text),
            format!("case xoxb-2024-rollout-check by Bearer Bobby-the-release-manager; real {MASK}")
        );
        // A protected name inside a real token does not save the token.
        let mut inside = Redactor::new();
        inside
            .protect([("persona id", "proj"), ("scenario id", "release")])
            .unwrap();
        inside.protect([("persona id", "projects")]).unwrap();
        for token in [
            "sk-proj-AbCdEfGhIjKlMnOpQrStUv",
            "ghp_projectsabcdefghijklmnopqrstu",
            "Bearer releaseAbcdefghijklmnop",
        ] {
            assert_eq!(
                inside.redact(&format!("key {token} end")),
                format!("key {MASK} end"),
                "{token}"
            );
        }
        // A name holding a known secret is refused, and the refusal does not print it.
        let err = r.protect([("case id", "leak-planted-secret-7Qx9Lm2Vb")]).unwrap_err();
        assert!(!err.to_string().contains("7Qx9Lm2Vb"), "{err}");
        // A secret learnt after `protect` is still masked inside a protected name.
        let mut late = Redactor::new();
        late.protect([("case id", "risk-late-secret-Zk81Qp")]).unwrap();
        late.add_secret("late-secret-Zk81Qp");
        assert!(!late.redact("id risk-late-secret-Zk81Qp").contains("Zk81Qp"));
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(Redactor::new().redact("nothing here"), Cow::Borrowed(_)));
    }
}
