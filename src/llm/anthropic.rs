//! The `anthropic` provider: Anthropic's Messages API, streamed, tool-free.
//!
//! Structured output goes through the prompt: the schema is added to the system text, every
//! answer is validated with `structured::validate_answer`, and a violation is sent back once
//! with the exact problem (the same rule as the OpenAI path). No tool is ever offered, not even
//! a forced one, so the user emulator stays tool-free by construction.
//!
//! Keys travel in the `x-api-key` header only (marked sensitive); they are never logged and
//! never part of an error. Endpoint settings are the shared HTTP provider settings
//! ([`OpenAiConfig`]); `base_url` includes the version path (`https://api.anthropic.com/v1`).

use std::sync::Arc;
use std::time::Instant;

use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::anthropic_http::attempt;
use super::http_attempt::RawAnswer;
use super::http_provider::{check_structured, client_for, configured_headers, finish, sensitive};
use super::openai::OpenAiConfig;
use super::structured::schema_instruction;
use super::{ChatMessage, ChatRequest, ChatResponse, Llm, LlmError, Role, Usage};

/// The API version every request names.
pub const API_VERSION: &str = "2023-06-01";
/// Anthropic requires `max_tokens`; used when the request gives none.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 8192;
/// The default endpoint.
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.anthropic.com/v1";

/// A Claude model over the Messages API.
pub struct AnthropicLlm {
    config: OpenAiConfig,
    client: reqwest::Client,
}

impl AnthropicLlm {
    /// Builds the provider; no network traffic happens until the first call.
    pub fn new(config: OpenAiConfig) -> Result<Arc<Self>, LlmError> {
        let client = client_for(&config)?;
        Ok(Arc::new(AnthropicLlm { config, client }))
    }

    async fn headers(&self) -> Result<HeaderMap, LlmError> {
        let mut map = configured_headers(&self.config)?;
        map.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        let key = super::api_key::key_for(&self.config.api_key, &self.label(), &self.config.base_url).await?;
        if let Some(key) = key {
            map.insert("x-api-key", sensitive(key.expose(), "the API key")?);
        }
        Ok(map)
    }

    /// The request body: system messages joined into `system`, the rest merged into
    /// alternating turns that start with the user (the API's rule).
    pub(crate) fn body(&self, request: &ChatRequest, messages: &[ChatMessage]) -> Value {
        let system: Vec<&str> = messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .collect();
        let mut turns: Vec<(&'static str, String)> = Vec::new();
        for m in messages.iter().filter(|m| m.role != Role::System) {
            let role = if m.role == Role::User { "user" } else { "assistant" };
            match turns.last_mut() {
                Some((r, text)) if *r == role => {
                    text.push_str("\n\n");
                    text.push_str(&m.content);
                }
                _ => turns.push((role, m.content.clone())),
            }
        }
        if turns.first().is_none_or(|(r, _)| *r != "user") {
            // The emulator's conversation starts with its own (assistant-side) words.
            turns.insert(0, ("user", "(The conversation starts. Say your first message.)".into()));
        }
        let mut body = json!({
            "model": request.model.clone().unwrap_or_else(|| self.config.model.clone()),
            "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            "messages": turns.iter().map(|(r, t)| json!({"role": r, "content": t})).collect::<Vec<_>>(),
            "stream": self.config.stream,
        });
        if !system.is_empty() {
            body["system"] = Value::from(system.join("\n\n"));
        }
        if let Some(t) = request.temperature.or(self.config.temperature) {
            body["temperature"] = Value::from(t);
        }
        body
    }

    async fn send(&self, body: &Value) -> Result<RawAnswer, LlmError> {
        let headers = self.headers().await?;
        let url = format!("{}/messages", self.config.base_url.trim_end_matches('/'));
        let label = self.label();
        super::retry::with_retries(self.config.retry, self.config.timeout, &label, || {
            attempt(&self.client, &url, &headers, body)
        })
        .await
    }

    async fn run(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let mut usage = Usage::default();
        let mut messages = request.messages.clone();
        let spec = request.json_schema.as_ref();
        if let Some(s) = spec {
            messages.push(ChatMessage::new(Role::System, schema_instruction(s)));
        }
        let mut repaired = false;
        loop {
            let answer = self.send(&self.body(request, &messages)).await?;
            usage.add(&answer.usage);
            let model = answer.model.clone().unwrap_or_else(|| self.config.model.clone());
            let Some(s) = spec else {
                return Ok(finish(answer.content, model, usage, started));
            };
            if let Some(json) = check_structured(answer.content, s, &mut repaired, &mut messages, &self.label())? {
                return Ok(finish(json, model, usage, started));
            }
        }
    }
}

impl Llm for AnthropicLlm {
    fn label(&self) -> String {
        format!("anthropic:{}", self.config.model)
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(self.run(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_joins_system_merges_turns_and_starts_with_the_user() {
        let mut cfg = OpenAiConfig::new("http://127.0.0.1:1/v1", "claude-x");
        cfg.stream = true;
        let llm = AnthropicLlm::new(cfg).unwrap();
        let msgs = vec![
            ChatMessage::new(Role::System, "persona"),
            ChatMessage::new(Role::Assistant, "hi, I need notes"),
            ChatMessage::new(Role::User, "sure"),
            ChatMessage::new(Role::User, "anything else?"),
            ChatMessage::new(Role::System, "schema"),
        ];
        let req = ChatRequest {
            messages: msgs.clone(),
            temperature: Some(0.5),
            ..Default::default()
        };
        let b = llm.body(&req, &msgs);
        assert_eq!(b["system"], "persona\n\nschema");
        assert_eq!(b["messages"][0]["role"], "user");
        assert_eq!(b["messages"][1]["role"], "assistant");
        assert_eq!(b["messages"][2]["content"], "sure\n\nanything else?");
        assert_eq!(b["max_tokens"], DEFAULT_MAX_TOKENS);
        assert_eq!(b["stream"], true);
        assert!(b.get("tools").is_none() && b.get("tool_choice").is_none());
    }
}
