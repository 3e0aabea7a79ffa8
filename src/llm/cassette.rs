//! Cassettes: recorded model exchanges, replayed exactly (`replay`) or written as they happen
//! (`record`), plus the scripted rules the `model-server` uses for the agent under test.
//!
//! Format (JSON, versioned): `{version, entries: [{request_key, request, response}], script: [...]}`.
//! `request_key` is the SHA-256 of the request's canonical JSON (keys sorted, no whitespace), so
//! a replay matches only the very same request. Replay never invents an answer: anything not
//! recorded is `LlmError::NotInCassette` with a readable summary of what was asked.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::script::ScriptRule;
use super::{ChatRequest, ChatResponse, Llm, LlmError, Role};

/// The cassette format version this build reads and writes.
pub(crate) const CASSETTE_VERSION: u32 = 1;

/// A whole cassette file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cassette {
    pub version: u32,
    #[serde(default)]
    pub entries: Vec<Entry>,
    /// Rule-matched answers for requests that cannot be matched byte for byte (model-server only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub script: Vec<ScriptRule>,
}

/// One recorded exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub(crate) request_key: String,
    /// The request as sent (a `ChatRequest` with its model filled in).
    pub(crate) request: Value,
    pub(crate) response: ChatResponse,
}

/// Why a cassette file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CassetteError {
    #[error("cannot read cassette {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cassette {path} is not valid: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot write cassette {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

impl Default for Cassette {
    fn default() -> Self {
        Cassette {
            version: CASSETTE_VERSION,
            entries: Vec::new(),
            script: Vec::new(),
        }
    }
}

impl Cassette {
    /// Reads and checks a cassette file (version, keys matching their requests).
    pub fn load(path: &Path) -> Result<Cassette, CassetteError> {
        let text =
            crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::Cassette).map_err(|e| {
                CassetteError::Read {
                    path: path.to_path_buf(),
                    source: e.into(),
                }
            })?;
        let invalid = |message: String| CassetteError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let raw: Value = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        // Check the version before the shape, so a newer file says "newer", not "unknown field".
        match raw.get("version").and_then(Value::as_u64) {
            Some(v) if v == u64::from(CASSETTE_VERSION) => {}
            Some(v) => {
                return Err(invalid(format!(
                    "version {v} is not supported (expected {CASSETTE_VERSION})"
                )));
            }
            None => return Err(invalid("missing `version`".into())),
        }
        let cassette: Cassette = serde_json::from_value(raw).map_err(|e| invalid(e.to_string()))?;
        for (i, rule) in cassette.script.iter().enumerate() {
            if rule.reply.text.is_none() && rule.reply.tool_calls.is_empty() {
                return Err(invalid(format!("script[{i}].reply needs `text` or `tool_calls`")));
            }
        }
        for (i, e) in cassette.entries.iter().enumerate() {
            if request_key(&e.request) != e.request_key {
                return Err(invalid(format!("entries[{i}].request_key does not match its request")));
            }
        }
        Ok(cassette)
    }

    /// Writes the cassette atomically as pretty JSON.
    pub(crate) fn save(&self, path: &Path) -> Result<(), CassetteError> {
        crate::util::write_json_atomic(path, self).map_err(|source| CassetteError::Write {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The recorded answer for a request key.
    pub(crate) fn find(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.request_key == key)
    }

    /// Adds an exchange, replacing an older one with the same key.
    pub fn upsert(&mut self, request: Value, response: ChatResponse) {
        let key = request_key(&request);
        self.entries.retain(|e| e.request_key != key);
        self.entries.push(Entry {
            request_key: key,
            request,
            response,
        });
    }
}

/// Sorts object keys recursively so equal requests serialize identically.
pub(crate) fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), canonical(&map[k]))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// `sha256:<hex>` of the canonical, compact JSON of `request`.
pub(crate) fn request_key(request: &Value) -> String {
    let text = serde_json::to_string(&canonical(request)).unwrap_or_default();
    format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes())))
}

/// The request as recorded: the model resolved so the key does not depend on defaults.
pub(crate) fn recorded_request(request: &ChatRequest, default_model: &str) -> Value {
    let mut r = request.clone();
    if r.model.is_none() {
        r.model = Some(default_model.to_string());
    }
    serde_json::to_value(&r).unwrap_or(Value::Null)
}

/// One line saying what was asked: model, message count, schema and the last user message.
pub(crate) fn summarize(request: &ChatRequest, default_model: &str) -> String {
    let model = request.model.as_deref().unwrap_or(default_model);
    let last_user = request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .map(|m| super::openai_http::excerpt(&m.content.replace('\n', " "), 120))
        .unwrap_or_else(|| "(none)".into());
    let schema = request
        .json_schema
        .as_ref()
        .map(|s| format!(", schema `{}`", s.name))
        .unwrap_or_default();
    format!(
        "model `{model}`, {} message(s){schema}, last user message: \"{last_user}\"",
        request.messages.len()
    )
}

/// Answers only from a cassette.
pub struct ReplayLlm {
    cassette: Cassette,
    path: PathBuf,
    default_model: String,
}

impl ReplayLlm {
    /// Loads the cassette; `default_model` fills requests that name no model.
    pub fn load(path: &Path, default_model: impl Into<String>) -> Result<Arc<Self>, LlmError> {
        let cassette = Cassette::load(path).map_err(|e| LlmError::Config { detail: e.to_string() })?;
        Ok(Arc::new(ReplayLlm {
            cassette,
            path: path.to_path_buf(),
            default_model: default_model.into(),
        }))
    }
}

impl Llm for ReplayLlm {
    fn label(&self) -> String {
        format!("replay:{}", self.path.display())
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            let key = request_key(&recorded_request(request, &self.default_model));
            match self.cassette.find(&key) {
                Some(entry) => Ok(entry.response.clone()),
                None => Err(LlmError::NotInCassette {
                    summary: format!(
                        "{} (key {key}; cassette {} has {} entr{}; record it with provider `record`)",
                        summarize(request, &self.default_model),
                        self.path.display(),
                        self.cassette.entries.len(),
                        if self.cassette.entries.len() == 1 { "y" } else { "ies" }
                    ),
                }),
            }
        })
    }
}

/// Wraps a real provider and appends each successful exchange to the cassette file.
pub struct RecordLlm {
    inner: Arc<dyn Llm>,
    path: PathBuf,
    default_model: String,
    /// Serializes read-modify-write of the file between concurrent calls, also across
    /// recorders sharing one file (roles may share a cassette).
    lock: Arc<tokio::sync::Mutex<()>>,
}

/// One lock per cassette path for the whole process.
fn path_lock(path: &Path) -> Arc<tokio::sync::Mutex<()>> {
    static LOCKS: std::sync::LazyLock<
        std::sync::Mutex<std::collections::HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
    > = std::sync::LazyLock::new(Default::default);
    let key = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match LOCKS.lock() {
        Ok(mut map) => map.entry(key).or_default().clone(),
        Err(poisoned) => poisoned.into_inner().entry(key).or_default().clone(),
    }
}

impl RecordLlm {
    /// Records `inner`'s answers into `path` (created on first write).
    pub fn new(inner: Arc<dyn Llm>, path: &Path, default_model: impl Into<String>) -> Arc<Self> {
        Arc::new(RecordLlm {
            inner,
            path: path.to_path_buf(),
            default_model: default_model.into(),
            lock: path_lock(path),
        })
    }
}

impl Llm for RecordLlm {
    fn label(&self) -> String {
        format!("record:{}", self.inner.label())
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            let response = self.inner.chat(request).await?;
            let _guard = self.lock.lock().await;
            let mut cassette = if self.path.exists() {
                Cassette::load(&self.path).map_err(|e| LlmError::Config { detail: e.to_string() })?
            } else {
                Cassette::default()
            };
            cassette.upsert(recorded_request(request, &self.default_model), response.clone());
            cassette
                .save(&self.path)
                .map_err(|e| LlmError::Config { detail: e.to_string() })?;
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_ignores_key_order_but_not_content() {
        let a = json!({"model":"m","messages":[{"role":"user","content":"hi"}]});
        let b = json!({"messages":[{"content":"hi","role":"user"}],"model":"m"});
        let c = json!({"model":"m","messages":[{"role":"user","content":"hi!"}]});
        assert_eq!(request_key(&a), request_key(&b));
        assert_ne!(request_key(&a), request_key(&c));
        assert!(request_key(&a).starts_with("sha256:"));
    }

    #[test]
    fn load_rejects_other_versions_forged_keys_and_empty_replies() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.json");
        let check = |text: &str, needle: &str| {
            std::fs::write(&p, text).unwrap();
            let err = Cassette::load(&p).unwrap_err().to_string();
            assert!(err.contains(needle), "{err}");
        };
        check(r#"{"version": 2, "entries": [], "future": 1}"#, "version 2");
        check(r#"{"entries": []}"#, "missing `version`");
        check(
            r#"{"version": 1, "entries": [{"request_key": "sha256:00", "request": {}, "response": {"content": "x", "model": "m", "usage": {"prompt_tokens": 0, "completion_tokens": 0}, "latency_ms": 0}}]}"#,
            "does not match",
        );
        check(
            r#"{"version": 1, "script": [{"when": {}, "reply": {}}]}"#,
            "script[0].reply",
        );
    }
}
