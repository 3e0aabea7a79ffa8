//! The `openai` provider: any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama,
//! vLLM, llama.cpp, OpenRouter, the local `model-server`).
//!
//! Choice of crates: the request body is built with async-openai's typed request
//! (`CreateChatCompletionRequest`), so field names and the `response_format`/`stream_options`
//! shapes follow the OpenAI spec; the transport is plain reqwest and answers are read as
//! `serde_json::Value` (see `openai_http`). async-openai's client is not used for sending because
//! its typed responses reject servers that omit `id`/`object`/`created`, its `byot` escape hatch
//! is not compiled in, and we need our own control over what is retried, per-attempt timeouts
//! and truncated-stream detection.
//!
//! Never logs or returns an API key or a resolved header value; `${VAR}` header references are
//! resolved at call time, so the configuration itself only ever holds references.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use async_openai::types::chat::{
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestUserMessage, ChatCompletionStreamOptions, CreateChatCompletionRequest, ResponseFormat,
    ResponseFormatJsonSchema,
};
use futures::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde_json::Value;

use super::http_attempt::RawAnswer;
use super::http_provider::{check_structured, client_for, configured_headers, finish, sensitive};
pub use super::openai_config::{ApiKey, OpenAiConfig, StructuredMode};
use super::openai_http::attempt;
use super::structured::schema_instruction;
use super::{ChatMessage, ChatRequest, ChatResponse, Llm, LlmError, Role, Usage};

/// An OpenAI-compatible chat model.
pub struct OpenAiLlm {
    config: OpenAiConfig,
    client: reqwest::Client,
    /// Set once the server has refused `response_format: json_schema`.
    schema_unsupported: AtomicBool,
}

impl OpenAiLlm {
    /// Builds the provider; no network traffic happens until the first call.
    pub fn new(config: OpenAiConfig) -> Result<Arc<Self>, LlmError> {
        let client = client_for(&config)?;
        Ok(Arc::new(OpenAiLlm {
            config,
            client,
            schema_unsupported: AtomicBool::new(false),
        }))
    }

    fn url(&self) -> String {
        format!("{}/chat/completions", self.config.base_url.trim_end_matches('/'))
    }

    async fn headers(&self) -> Result<HeaderMap, LlmError> {
        let mut map = configured_headers(&self.config)?;
        if let Some(key) = self.api_key().await? {
            map.insert(AUTHORIZATION, sensitive(&format!("Bearer {key}"), "the API key")?);
        }
        Ok(map)
    }

    async fn api_key(&self) -> Result<Option<String>, LlmError> {
        let key = super::api_key::key_for(&self.config.api_key, &self.label(), &self.config.base_url).await?;
        Ok(key.map(|k| k.expose().to_string()))
    }

    fn body(&self, request: &ChatRequest, messages: &[ChatMessage], use_format: bool) -> Result<Value, LlmError> {
        let typed = CreateChatCompletionRequest {
            model: request.model.clone().unwrap_or_else(|| self.config.model.clone()),
            messages: messages.iter().map(to_wire).collect(),
            temperature: request.temperature.or(self.config.temperature).map(|t| t as f32),
            stream: self.config.stream.then_some(true),
            stream_options: self.config.stream.then_some(ChatCompletionStreamOptions {
                include_usage: Some(true),
                include_obfuscation: None,
            }),
            response_format: match (&request.json_schema, use_format) {
                (Some(spec), true) => Some(ResponseFormat::JsonSchema {
                    json_schema: ResponseFormatJsonSchema {
                        description: None,
                        name: spec.name.clone(),
                        schema: spec.schema.clone(),
                        strict: None,
                    },
                }),
                _ => None,
            },
            ..Default::default()
        };
        let mut body = serde_json::to_value(&typed).map_err(|e| LlmError::Config {
            detail: format!("cannot encode the request: {e}"),
        })?;
        // `max_tokens` is deprecated in the typed struct but still the field most
        // OpenAI-compatible servers (Ollama, vLLM, llama.cpp) understand.
        if let (Some(n), Some(obj)) = (request.max_tokens, body.as_object_mut()) {
            obj.insert("max_tokens".into(), Value::from(n));
        }
        Ok(body)
    }

    /// One logical request with the retry budget applied.
    async fn send(&self, body: &Value) -> Result<RawAnswer, LlmError> {
        let headers = self.headers().await?;
        let url = self.url();
        let label = self.label();
        super::retry::with_retries(self.config.retry, self.config.timeout, &label, || {
            attempt(&self.client, &url, &headers, body, self.config.stream)
        })
        .await
    }

    async fn run(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let mut usage = Usage::default();
        let mut messages = request.messages.clone();
        let spec = request.json_schema.as_ref();
        let mut use_format = spec.is_some()
            && match self.config.structured {
                StructuredMode::JsonSchema => true,
                StructuredMode::Prompt => false,
                StructuredMode::Auto => !self.schema_unsupported.load(Ordering::Relaxed),
            };
        if let (Some(s), false) = (spec, use_format) {
            messages.push(ChatMessage::new(Role::System, schema_instruction(s)));
        }
        let mut repaired = false;
        loop {
            let answer = match self.send(&self.body(request, &messages, use_format)?).await {
                Err(LlmError::Rejected { status, body })
                    if use_format && self.config.structured == StructuredMode::Auto && mentions_format(&body) =>
                {
                    tracing::warn!(provider = %self.label(), status, "server refused response_format json_schema; putting the schema in the prompt");
                    self.schema_unsupported.store(true, Ordering::Relaxed);
                    use_format = false;
                    if let Some(s) = spec {
                        messages.push(ChatMessage::new(Role::System, schema_instruction(s)));
                    }
                    continue;
                }
                other => other?,
            };
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

fn mentions_format(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    b.contains("response_format") || b.contains("json_schema")
}

fn to_wire(m: &ChatMessage) -> ChatCompletionRequestMessage {
    match m.role {
        Role::System => ChatCompletionRequestSystemMessage::from(m.content.as_str()).into(),
        Role::User => ChatCompletionRequestUserMessage::from(m.content.as_str()).into(),
        Role::Assistant => ChatCompletionRequestAssistantMessage::from(m.content.as_str()).into(),
    }
}

impl Llm for OpenAiLlm {
    fn label(&self) -> String {
        format!("openai:{}", self.config.model)
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(self.run(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_carries_schema_stream_options_and_max_tokens() {
        let mut cfg = OpenAiConfig::new("http://127.0.0.1:1/v1", "m");
        cfg.stream = true;
        let llm = OpenAiLlm::new(cfg).unwrap();
        let req = ChatRequest {
            messages: vec![ChatMessage::new(Role::User, "hi")],
            max_tokens: Some(50),
            json_schema: Some(super::super::JsonSchemaSpec {
                name: "x".into(),
                schema: serde_json::json!({"type":"object"}),
            }),
            ..Default::default()
        };
        let body = llm.body(&req, &req.messages, true).unwrap();
        assert_eq!(body["model"], "m");
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(body["max_tokens"], 50);
        assert_eq!(body["response_format"]["type"], "json_schema");
        assert_eq!(body["messages"][0]["role"], "user");
        let plain = llm.body(&req, &req.messages, false).unwrap();
        assert!(plain.get("response_format").is_none());
    }
}
