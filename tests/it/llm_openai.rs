//! The `openai` provider against a fake OpenAI-compatible server that each test scripts, plus
//! record/replay cassettes. Every test checks the outcome *and* that it came within bounds.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ghostlab::llm::cassette::{Cassette, RecordLlm, ReplayLlm};
use ghostlab::llm::openai::{ApiKey, OpenAiConfig, OpenAiLlm, StructuredMode};
use ghostlab::llm::retry::RetryPolicy;
use ghostlab::llm::{ChatMessage, ChatRequest, JsonSchemaSpec, Llm, LlmError, Role};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the fake server does with one incoming request.
#[derive(Clone)]
enum Step {
    Json(u16, String),
    /// An SSE body sent as is, then the connection closes.
    Sse(String),
    /// Accept the request and never answer.
    Hang,
}

struct FakeOpenAi {
    url: String,
    /// (request head, request body) of every request seen.
    seen: Arc<Mutex<Vec<(String, Value)>>>,
}

async fn fake_openai(steps: Vec<Step>) -> FakeOpenAi {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let queue = Arc::new(Mutex::new(VecDeque::from(steps)));
    let seen2 = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let seen = seen2.clone();
            let queue = queue.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut tmp = [0u8; 4096];
                let (head, body) = loop {
                    let n = sock.read(&mut tmp).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&tmp[..n]);
                    if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..pos]).to_string();
                        let len: usize = head
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        while buf.len() < pos + 4 + len {
                            let n = sock.read(&mut tmp).await.unwrap_or(0);
                            if n == 0 {
                                break;
                            }
                            buf.extend_from_slice(&tmp[..n]);
                        }
                        let body = serde_json::from_slice(&buf[pos + 4..]).unwrap_or(Value::Null);
                        break (head, body);
                    }
                };
                seen.lock().unwrap().push((head, body));
                let step = queue
                    .lock()
                    .unwrap()
                    .pop_front()
                    .unwrap_or(Step::Json(599, "script exhausted".into()));
                let reply = match step {
                    Step::Json(status, body) => format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    ),
                    Step::Sse(body) => {
                        format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n{body}")
                    }
                    Step::Hang => {
                        tokio::time::sleep(Duration::from_secs(60)).await;
                        return;
                    }
                };
                let _ = sock.write_all(reply.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    FakeOpenAi { url, seen }
}

fn completion(content: &str) -> Step {
    let body = json!({
        "id": "x", "object": "chat.completion", "created": 1, "model": "served-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    });
    Step::Json(200, body.to_string())
}

/// A minimal completion without id/object/created, as llama.cpp-style servers send.
fn bare_completion(content: &str) -> Step {
    Step::Json(200, json!({"choices": [{"message": {"content": content}}]}).to_string())
}

fn sse_chunks(pieces: &[&str], done: bool) -> String {
    let mut out = String::new();
    for p in pieces {
        let c =
            json!({"model": "served-model", "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]});
        out.push_str(&format!("data: {c}\n\n"));
    }
    if done {
        out.push_str(&format!(
            "data: {}\n\ndata: [DONE]\n\n",
            json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3}})
        ));
    }
    out
}

fn config(url: &str) -> OpenAiConfig {
    let mut c = OpenAiConfig::new(url, "test-model");
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

fn verdict_schema() -> JsonSchemaSpec {
    JsonSchemaSpec {
        name: "verdict".into(),
        schema: json!({"type": "object", "required": ["ok", "reason"], "additionalProperties": false,
            "properties": {"ok": {"type": "boolean"}, "reason": {"type": "string"}}}),
    }
}

#[tokio::test]
async fn good_answer_with_usage_latency_and_bearer_from_env() {
    let server = fake_openai(vec![completion("hello there")]).await;
    let mut cfg = config(&server.url);
    // SAFETY: set_var races with concurrent env reads; this name is unique to this test and
    // set before the provider (the only reader) exists.
    unsafe { std::env::set_var("GHOSTLAB_TEST_KEY_GOOD", "sk-test-123") };
    cfg.api_key = ApiKey::Env("GHOSTLAB_TEST_KEY_GOOD".into());
    cfg.headers
        .insert("X-Team".into(), "${GHOSTLAB_TEST_KEY_GOOD}-team".into());
    let llm = OpenAiLlm::new(cfg).unwrap();
    let r = llm.chat(&ask("hi")).await.unwrap();
    assert_eq!(r.content, "hello there");
    assert_eq!(r.model, "served-model");
    assert_eq!((r.usage.prompt_tokens, r.usage.completion_tokens), (11, 7));
    assert!(r.latency_ms < 5000);
    let seen = server.seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let (head, body) = &seen[0];
    let head = head.to_ascii_lowercase();
    assert!(head.contains("authorization: bearer sk-test-123"), "{head}");
    assert!(head.contains("x-team: sk-test-123-team"), "{head}");
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["messages"][1], json!({"role": "user", "content": "hi"}));
}

#[tokio::test]
async fn server_omitting_id_object_created_is_accepted() {
    let server = fake_openai(vec![bare_completion("fine")]).await;
    let llm = OpenAiLlm::new(config(&server.url)).unwrap();
    let r = llm.chat(&ask("hi")).await.unwrap();
    assert_eq!(r.content, "fine");
    assert_eq!(r.model, "test-model");
}

#[tokio::test]
async fn schema_violation_is_retried_once_with_the_error() {
    let server = fake_openai(vec![
        completion("{\"ok\": \"yes\"}"),
        completion("```json\n{\"ok\": true, \"reason\": \"fits\"}\n```"),
    ])
    .await;
    let llm = OpenAiLlm::new(config(&server.url)).unwrap();
    let mut req = ask("judge");
    req.json_schema = Some(verdict_schema());
    let r = llm.chat(&req).await.unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&r.content).unwrap(),
        json!({"ok": true, "reason": "fits"})
    );
    assert_eq!(r.usage.prompt_tokens, 22, "usage summed over both calls");
    let seen = server.seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].1["response_format"]["type"], "json_schema");
    assert_eq!(seen[0].1["response_format"]["json_schema"]["name"], "verdict");
    let msgs = seen[1].1["messages"].as_array().unwrap();
    let last = msgs.last().unwrap()["content"].as_str().unwrap();
    assert!(
        last.contains("/ok") && last.contains("boolean"),
        "repair message names the problem: {last}"
    );
    assert_eq!(msgs[msgs.len() - 2]["role"], "assistant");
}

#[tokio::test]
async fn schema_violated_twice_fails_malformed_naming_the_problem() {
    let server = fake_openai(vec![completion("{\"ok\": 1}"), completion("{\"ok\": true}")]).await;
    let llm = OpenAiLlm::new(config(&server.url)).unwrap();
    let mut req = ask("judge");
    req.json_schema = Some(verdict_schema());
    match llm.chat(&req).await {
        Err(LlmError::Malformed { detail }) => {
            assert!(detail.contains("verdict") && detail.contains("reason"), "{detail}");
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
    assert_eq!(server.seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn server_without_json_schema_support_gets_the_schema_in_the_prompt() {
    let server = fake_openai(vec![
        Step::Json(
            400,
            json!({"error": {"message": "response_format json_schema is not supported"}}).to_string(),
        ),
        completion("{\"ok\": false, \"reason\": \"n/a\"}"),
        completion("{\"ok\": true, \"reason\": \"again\"}"),
    ])
    .await;
    let llm = OpenAiLlm::new(config(&server.url)).unwrap();
    let mut req = ask("judge");
    req.json_schema = Some(verdict_schema());
    assert!(llm.chat(&req).await.is_ok());
    assert!(llm.chat(&req).await.is_ok(), "second call goes straight to prompt mode");
    {
        let seen = server.seen.lock().unwrap();
        assert_eq!(seen.len(), 3);
        for (_, body) in &seen[1..] {
            assert!(body.get("response_format").is_none());
            let sys = body["messages"].as_array().unwrap().last().unwrap()["content"]
                .as_str()
                .unwrap()
                .to_string();
            assert!(sys.contains("JSON Schema") && sys.contains("\"reason\""), "{sys}");
        }
    }
    // Forcing json_schema mode never silently drops the schema.
    let server = fake_openai(vec![Step::Json(
        400,
        "{\"error\":\"response_format unsupported\"}".into(),
    )])
    .await;
    let mut cfg = config(&server.url);
    cfg.structured = StructuredMode::JsonSchema;
    let llm = OpenAiLlm::new(cfg).unwrap();
    assert!(matches!(
        llm.chat(&req).await,
        Err(LlmError::Rejected { status: 400, .. })
    ));
}

#[tokio::test]
async fn rate_limit_then_success() {
    let server = fake_openai(vec![
        Step::Json(429, "{\"error\":\"slow down\"}".into()),
        completion("ok now"),
    ])
    .await;
    let llm = OpenAiLlm::new(config(&server.url)).unwrap();
    let t = Instant::now();
    assert_eq!(llm.chat(&ask("hi")).await.unwrap().content, "ok now");
    assert!(t.elapsed() < Duration::from_secs(2));
    assert_eq!(server.seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn server_errors_past_the_budget_are_unavailable_with_attempts() {
    let s500 = Step::Json(500, "{\"error\":\"boom\"}".into());
    let server = fake_openai(vec![s500.clone(), s500.clone(), s500.clone(), completion("too late")]).await;
    let llm = OpenAiLlm::new(config(&server.url)).unwrap();
    let t = Instant::now();
    match llm.chat(&ask("hi")).await {
        Err(LlmError::Unavailable { attempts, reason }) => {
            assert_eq!(attempts, 3);
            assert!(reason.contains("500"), "{reason}");
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
    assert!(t.elapsed() < Duration::from_secs(2));
    assert_eq!(server.seen.lock().unwrap().len(), 3, "exactly the budget, no more");
}

#[tokio::test]
async fn a_silent_server_times_out_within_bounds() {
    let server = fake_openai(vec![Step::Hang, Step::Hang]).await;
    let mut cfg = config(&server.url);
    cfg.timeout = Duration::from_millis(300);
    cfg.retry = RetryPolicy::quick(2);
    let llm = OpenAiLlm::new(cfg).unwrap();
    let t = Instant::now();
    assert!(matches!(llm.chat(&ask("hi")).await, Err(LlmError::Timeout { .. })));
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(600) && took < Duration::from_secs(3),
        "{took:?}"
    );
}

#[tokio::test]
async fn streamed_answer_is_assembled_with_usage() {
    let server = fake_openai(vec![Step::Sse(sse_chunks(&["Hel", "lo ", "wörld"], true))]).await;
    let mut cfg = config(&server.url);
    cfg.stream = true;
    let llm = OpenAiLlm::new(cfg).unwrap();
    let r = llm.chat(&ask("hi")).await.unwrap();
    assert_eq!(r.content, "Hello wörld");
    assert_eq!((r.usage.prompt_tokens, r.usage.completion_tokens), (5, 3));
    let seen = server.seen.lock().unwrap();
    assert_eq!(seen[0].1["stream"], true);
    assert_eq!(seen[0].1["stream_options"]["include_usage"], true);
}

#[tokio::test]
async fn a_truncated_stream_is_an_error_not_a_short_answer() {
    let cut = Step::Sse(sse_chunks(&["The answer is", " definitely"], false));
    let server = fake_openai(vec![cut.clone(), cut]).await;
    let mut cfg = config(&server.url);
    cfg.stream = true;
    cfg.retry = RetryPolicy::quick(2);
    let llm = OpenAiLlm::new(cfg).unwrap();
    let t = Instant::now();
    match llm.chat(&ask("hi")).await {
        Err(LlmError::Unavailable { attempts: 2, reason }) => assert!(reason.contains("truncated"), "{reason}"),
        other => panic!("expected Unavailable(truncated), got {other:?}"),
    }
    assert!(t.elapsed() < Duration::from_secs(2));
    // A cut followed by a complete stream recovers.
    let server = fake_openai(vec![
        Step::Sse(sse_chunks(&["par"], false)),
        Step::Sse(sse_chunks(&["whole"], true)),
    ])
    .await;
    let mut cfg = config(&server.url);
    cfg.stream = true;
    assert_eq!(
        OpenAiLlm::new(cfg).unwrap().chat(&ask("hi")).await.unwrap().content,
        "whole"
    );
}

#[tokio::test]
async fn malformed_json_fails_at_once() {
    let server = fake_openai(vec![Step::Json(200, "{\"choices\": [".into()), completion("never")]).await;
    let llm = OpenAiLlm::new(config(&server.url)).unwrap();
    match llm.chat(&ask("hi")).await {
        Err(LlmError::Malformed { detail }) => assert!(detail.contains("not valid JSON"), "{detail}"),
        other => panic!("expected Malformed, got {other:?}"),
    }
    assert_eq!(server.seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn missing_credential_fails_before_any_request() {
    let server = fake_openai(vec![completion("never")]).await;
    let mut cfg = config(&server.url);
    cfg.api_key = ApiKey::Env("GHOSTLAB_TEST_DEFINITELY_UNSET".into());
    let llm = OpenAiLlm::new(cfg).unwrap();
    match llm.chat(&ask("hi")).await {
        Err(LlmError::MissingCredential { hint, .. }) => assert!(hint.contains("GHOSTLAB_TEST_DEFINITELY_UNSET")),
        other => panic!("expected MissingCredential, got {other:?}"),
    }
    // A remote endpoint with no stored key says how to set one.
    let mut cfg = OpenAiConfig::new("https://models.invalid/v1", "m");
    cfg.api_key = ApiKey::Stored {
        provider: "ghostlab-test-none".into(),
    };
    match OpenAiLlm::new(cfg).unwrap().chat(&ask("hi")).await {
        Err(LlmError::MissingCredential { hint, .. }) => {
            assert!(hint.contains("ghostlab auth set ghostlab-test-none"), "{hint}")
        }
        other => panic!("expected MissingCredential, got {other:?}"),
    }
    assert!(server.seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn record_then_replay_is_byte_identical_and_unrecorded_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    let server = fake_openai(vec![
        completion("first answer"),
        completion("{\"ok\":true,\"reason\":\"r\"}"),
    ])
    .await;
    let real: Arc<dyn Llm> = OpenAiLlm::new(config(&server.url)).unwrap();
    let rec = RecordLlm::new(real, &path, "test-model");
    let a = ask("question one");
    let mut b = ask("question two");
    b.json_schema = Some(verdict_schema());
    let ra = rec.chat(&a).await.unwrap();
    let rb = rec.chat(&b).await.unwrap();
    let bytes_before = std::fs::read(&path).unwrap();
    let cassette = Cassette::load(&path).unwrap();
    assert_eq!(cassette.version, 1);
    assert_eq!(cassette.entries.len(), 2);

    let replay = ReplayLlm::load(&path, "test-model").unwrap();
    for (req, original) in [(&a, &ra), (&b, &rb)] {
        let again = replay.chat(req).await.unwrap();
        assert_eq!(
            serde_json::to_vec(&again).unwrap(),
            serde_json::to_vec(original).unwrap()
        );
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes_before, "replay never writes");
    let mut other = ask("a question nobody recorded about release notes");
    other.model = Some("other-model".into());
    match replay.chat(&other).await {
        Err(LlmError::NotInCassette { summary }) => {
            assert!(summary.contains("other-model"), "{summary}");
            assert!(summary.contains("nobody recorded about release notes"), "{summary}");
        }
        other => panic!("expected NotInCassette, got {other:?}"),
    }
    assert_eq!(server.seen.lock().unwrap().len(), 2, "replay made no network call");
}

#[tokio::test]
async fn a_closed_port_is_unavailable_after_the_budget() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let llm = OpenAiLlm::new(config(&format!("http://127.0.0.1:{port}/v1"))).unwrap();
    let t = Instant::now();
    match llm.chat(&ask("hi")).await {
        Err(LlmError::Unavailable { attempts: 3, reason }) => assert!(reason.contains("cannot reach"), "{reason}"),
        other => panic!("expected Unavailable, got {other:?}"),
    }
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_server_ignoring_stream_true_is_still_understood() {
    let server = fake_openai(vec![completion("plain body")]).await;
    let mut cfg = config(&server.url);
    cfg.stream = true;
    assert_eq!(
        OpenAiLlm::new(cfg).unwrap().chat(&ask("hi")).await.unwrap().content,
        "plain body"
    );
}

// Two recorders on one file, calls interleaved on two threads: every exchange must survive
// (the overlap window is small, so this guards the bookkeeping more than the lock itself).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_recorders_on_one_cassette_keep_every_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.json");
    let answers: Vec<Step> = (0..8).map(|i| completion(&format!("answer {i}"))).collect();
    let server = fake_openai(answers).await;
    let a = RecordLlm::new(OpenAiLlm::new(config(&server.url)).unwrap(), &path, "test-model");
    let b = RecordLlm::new(OpenAiLlm::new(config(&server.url)).unwrap(), &path, "test-model");
    let reqs: Vec<ChatRequest> = (0..8).map(|i| ask(&format!("question {i}"))).collect();
    let calls = reqs.iter().enumerate().map(|(i, r)| {
        let rec = if i % 2 == 0 { a.clone() } else { b.clone() };
        async move { rec.chat(r).await }
    });
    for r in futures::future::join_all(calls).await {
        r.unwrap();
    }
    assert_eq!(Cassette::load(&path).unwrap().entries.len(), 8);
}
