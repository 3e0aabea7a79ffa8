//! The `anthropic` provider against the scripted Messages API server: streamed answers with
//! usage, error events, truncated streams, structured output with one repair, tool-free
//! requests, and a price from the catalog.

use std::time::{Duration, Instant};

use ghostlab::llm::anthropic::{API_VERSION, AnthropicLlm};
use ghostlab::llm::openai::OpenAiConfig;
use ghostlab::llm::retry::RetryPolicy;
use ghostlab::llm::{ChatMessage, ChatRequest, JsonSchemaSpec, Llm, LlmError, Role};
use ghostlab::spec::{ModelProvider, ModelRole};
use serde_json::json;

use crate::scripted_llm::{Fault, ScriptedLlm, rule};

fn config(url: &str) -> OpenAiConfig {
    let mut c = OpenAiConfig::new(url, "claude-haiku-4-5");
    c.stream = true;
    c.timeout = Duration::from_secs(5);
    c.retry = RetryPolicy::quick(3);
    c
}

fn ask(text: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::new(Role::System, "be brief"),
            ChatMessage::new(Role::User, text),
        ],
        ..Default::default()
    }
}

#[tokio::test]
async fn a_streamed_answer_is_assembled_with_usage_and_no_tools_are_offered() {
    let server = ScriptedLlm::start(vec![rule(&["hello"], "Hello from the scripted model.")]);
    let llm = AnthropicLlm::new(config(&server.url)).unwrap();
    let answer = llm.chat(&ask("hello")).await.expect("answer");
    assert_eq!(answer.content, "Hello from the scripted model.");
    assert_eq!(answer.model, "scripted-claude");
    assert!(answer.usage.prompt_tokens > 0 && answer.usage.completion_tokens > 0);
    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/messages");
    let head = seen[0].head.to_ascii_lowercase();
    assert!(head.contains(&format!("anthropic-version: {API_VERSION}")), "{head}");
    assert!(!head.contains("x-api-key"), "no key configured on loopback: {head}");
    let body = &seen[0].body;
    assert_eq!(body["system"], "be brief");
    assert_eq!(body["stream"], true);
    assert!(body["max_tokens"].as_u64().is_some());
    assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
}

#[tokio::test]
async fn an_overloaded_error_event_is_retried_and_an_invalid_request_is_not() {
    let server = ScriptedLlm::start(vec![rule(&["hello"], "fine")]);
    server
        .faults
        .lock()
        .unwrap()
        .push_back(Fault::ErrorEvent("overloaded_error"));
    let llm = AnthropicLlm::new(config(&server.url)).unwrap();
    assert_eq!(llm.chat(&ask("hello")).await.expect("second try").content, "fine");
    assert_eq!(server.requests().len(), 2);

    server
        .faults
        .lock()
        .unwrap()
        .push_back(Fault::ErrorEvent("invalid_request_error"));
    match llm.chat(&ask("hello")).await {
        Err(LlmError::Malformed { detail }) => assert!(detail.contains("invalid_request_error"), "{detail}"),
        other => panic!("expected Malformed, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 3, "not retried");

    server
        .faults
        .lock()
        .unwrap()
        .push_back(Fault::Status(401, r#"{"type":"error"}"#.into()));
    assert!(matches!(
        llm.chat(&ask("hello")).await,
        Err(LlmError::Rejected { status: 401, .. })
    ));
}

#[tokio::test]
async fn a_truncated_stream_is_an_error_not_a_short_answer() {
    let server = ScriptedLlm::start(vec![rule(&["hello"], "a long answer that is cut")]);
    for _ in 0..3 {
        server.faults.lock().unwrap().push_back(Fault::Truncate);
    }
    let llm = AnthropicLlm::new(config(&server.url)).unwrap();
    let started = Instant::now();
    match llm.chat(&ask("hello")).await {
        Err(LlmError::Unavailable { attempts: 3, reason }) => {
            assert!(reason.contains("without message_stop"), "{reason}")
        }
        other => panic!("expected Unavailable after 3 attempts, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn structured_output_is_validated_and_repaired_once() {
    let server = ScriptedLlm::start(vec![
        rule(&["was rejected"], r#"{"ok": true, "reason": "fixed"}"#),
        rule(&["verdict"], r#"{"ok": "yes"}"#),
    ]);
    let llm = AnthropicLlm::new(config(&server.url)).unwrap();
    let mut req = ask("judge this");
    req.json_schema = Some(JsonSchemaSpec {
        name: "verdict".into(),
        schema: json!({"type":"object","required":["ok","reason"],"properties":{"ok":{"type":"boolean"},"reason":{"type":"string"}}}),
    });
    let answer = llm.chat(&req).await.expect("repaired");
    assert_eq!(answer.content, r#"{"ok": true, "reason": "fixed"}"#);
    let seen = server.requests();
    assert_eq!(seen.len(), 2);
    assert!(seen[0].body["system"].as_str().unwrap().contains("JSON Schema"));
    let last = seen[1].body["messages"].as_array().unwrap().last().unwrap().clone();
    assert!(last["content"].as_str().unwrap().contains("/ok"), "{last}");
}

#[tokio::test]
async fn a_role_prices_its_calls_from_the_catalog() {
    let server = ScriptedLlm::start(vec![rule(&["hello"], "priced")]);
    let role = ModelRole {
        provider: ModelProvider::Anthropic,
        model: Some("claude-haiku-4-5".into()),
        base_url: Some(server.url.clone()),
        ..Default::default()
    };
    let llm = ghostlab::llm::from_role(&role, std::path::Path::new(".")).expect("role");
    let answer = llm.chat(&ask("hello")).await.expect("answer");
    let price = ghostlab::llm::catalog::price("anthropic", "claude-haiku-4-5").expect("in the snapshot");
    let want = price.cost(answer.usage.prompt_tokens, answer.usage.completion_tokens);
    assert!(want > 0.0);
    assert_eq!(answer.usage.cost_usd, Some(want));

    let unknown = ModelRole {
        model: Some("claude-not-in-catalog".into()),
        ..role
    };
    let llm = ghostlab::llm::from_role(&unknown, std::path::Path::new(".")).expect("role");
    let answer = llm.chat(&ask("hello")).await.expect("answer");
    assert_eq!(answer.usage.cost_usd, None, "unknown price stays unknown, never $0");
}
