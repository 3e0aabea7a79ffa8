//! Settings of the HTTP providers (`openai`, and `anthropic` which shares them): endpoint, model, where the key comes from, timeouts,
//! retry budget, streaming and how structured output is requested.
//!
//! Holds names of secrets (`${VAR}` references, keyring provider names), never their values.

use std::time::Duration;

use indexmap::IndexMap;

use super::retry::RetryPolicy;

/// How structured output is requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StructuredMode {
    /// `response_format: json_schema` first; if the server rejects it, instructions in the prompt.
    #[default]
    Auto,
    /// Always `response_format: json_schema`.
    JsonSchema,
    /// Never send `response_format`; put the schema in the prompt.
    Prompt,
}

/// Where the API key comes from. Holds names only, never a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiKey {
    /// No `Authorization` header (local servers).
    None,
    /// The value of this environment variable (`api_key: ${VAR}` in the job).
    Env(String),
    /// `GHOSTLAB_<PROVIDER>_API_KEY`, else the keyring entry stored by `ghostlab auth set`.
    /// A loopback `base_url` without a stored key sends no `Authorization` header.
    Stored { provider: String },
    /// A job's model role: the full chain of `role_key` (role variable, Ghostlab's keyring,
    /// the provider's usual variable, OpenCode's login when the job allows it).
    Role(super::role_key::KeyRequest),
}

/// Everything the provider needs; build it from a job's model role or by hand in tests.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// Base URL including the version path, e.g. `https://api.openai.com/v1`.
    pub(crate) base_url: String,
    pub(crate) model: String,
    pub api_key: ApiKey,
    /// Extra headers; values may contain `${VAR}` references.
    pub headers: IndexMap<String, String>,
    /// Limit for one attempt, including reading the whole (streamed) answer.
    pub timeout: Duration,
    pub retry: RetryPolicy,
    /// Ask for a streamed answer (`stream: true` with usage in the last chunk).
    pub stream: bool,
    pub structured: StructuredMode,
    pub(crate) temperature: Option<f64>,
}

impl OpenAiConfig {
    /// Defaults: 120 s per attempt, 4 attempts, no streaming, structured output `Auto`.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: ApiKey::None,
            headers: IndexMap::new(),
            timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
            stream: false,
            structured: StructuredMode::Auto,
            temperature: None,
        }
    }
}
