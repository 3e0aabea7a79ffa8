//! Language models: the `Llm` trait every proposer, the user emulator and the judge use.
//!
//! Requests carry no tools: the user emulator and the judge are tool-free by construction.
//! Providers live in submodules; nothing here touches the terminal.
//!
//! Providers (see [`from_role`]):
//! - `openai` ([`openai::OpenAiLlm`]): any OpenAI-compatible endpoint.
//! - `anthropic` ([`anthropic::AnthropicLlm`]): Anthropic's Messages API, streamed.
//!
//! Keys come from the chain in [`role_key`]; every HTTP role is wrapped in [`priced::PricedLlm`]
//! so its calls carry tokens × the catalog price ([`catalog`]), or an unknown cost.
//! - `replay` ([`cassette::ReplayLlm`]): answers only what a cassette recorded, never invents.
//! - `record` ([`cassette::RecordLlm`]): wraps `openai` and appends every exchange to a cassette.
//! - `offline` is deliberately *not* an `Llm`: the generation module implements it as a
//!   deterministic proposer that reads the configuration itself, and the offline judge answers
//!   "cannot judge". [`from_role`] therefore returns [`LlmError::Offline`] for it, and
//!   [`model_for_role`] returns `Ok(None)`, so callers branch to their offline code explicitly
//!   instead of receiving a model that pretends to answer.
//!
//! `model_server` serves cassettes over HTTP so the real agent CLI can use them; `credentials`
//! keeps API keys in the OS keyring; `fake::FakeLlm` is a queue-driven test double. Secrets never
//! appear in a label, an error or a log line.

pub mod anthropic;
mod anthropic_http;
mod api_key;
pub mod cassette;
pub mod catalog;
pub(crate) mod credentials;
pub mod fake;
mod http_attempt;
mod http_provider;
pub(crate) mod meter;
pub mod model_server;
pub(crate) mod models;
pub mod openai;
mod openai_config;
mod openai_http;
pub(crate) mod priced;
pub(crate) mod providers;
pub mod retry;
pub(crate) mod role_key;
pub mod script;
pub mod sse;
pub(crate) mod structured;

pub mod role;

pub use role::from_role;
pub(crate) use role::role_model;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// Who said a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub(crate) role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: content.into(),
        }
    }
}

/// A structured-output request: the answer must validate against `schema`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonSchemaSpec {
    pub name: String,
    pub schema: serde_json::Value,
}

/// One chat completion request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ChatRequest {
    /// Overrides the provider's configured model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub messages: Vec<ChatMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<JsonSchemaSpec>,
}

/// Token and cost accounting for one call.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Known only when the provider reports it or a price table is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// Adds one answer's usage to a running total: tokens always, cost when either knows it.
    pub(crate) fn add(&mut self, part: &Usage) {
        self.prompt_tokens += part.prompt_tokens;
        self.completion_tokens += part.completion_tokens;
        self.cost_usd = match (self.cost_usd, part.cost_usd) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    pub content: String,
    pub model: String,
    pub usage: Usage,
    /// Wall time of the call in milliseconds.
    pub latency_ms: u64,
}

/// Why a model call failed. Every variant is an infrastructure problem, never a verdict.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("no credential for {provider}: {hint}")]
    MissingCredential { provider: String, hint: String },
    #[error("the model endpoint refused the request (HTTP {status}): {body}")]
    Rejected { status: u16, body: String },
    #[error("the model endpoint is unavailable after {attempts} attempt(s): {reason}")]
    Unavailable { attempts: u32, reason: String },
    #[error("the model call timed out after {seconds} s")]
    Timeout { seconds: u64 },
    #[error("the model's answer could not be used: {detail}")]
    Malformed { detail: String },
    #[error("the cassette has no recorded answer for this request: {summary}")]
    NotInCassette { summary: String },
    /// The role uses the `offline` provider, which is a deterministic proposer, not a model.
    #[error("the `offline` provider is not a language model; use the offline proposer/judge for this role")]
    Offline,
    /// The model role cannot be turned into a provider (missing base_url, cassette, model...).
    #[error("model role misconfigured: {detail}")]
    Config { detail: String },
}

/// A chat model. Implementations must be cheap to share across tasks.
pub trait Llm: Send + Sync {
    /// A short label for logs and reports (`openai:gpt-4.1`, `offline`, `replay:file`).
    fn label(&self) -> String;

    /// Sends one request and returns the model's whole answer.
    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, LlmError>>;
}
