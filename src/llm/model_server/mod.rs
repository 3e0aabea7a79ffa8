//! `ghostlab model-server`: a local OpenAI-compatible endpoint that answers from a cassette,
//! so the real agent CLI (OpenCode) can run end to end without a real model.
//!
//! Serves `POST /v1/chat/completions` (JSON or SSE, text or tool calls) and `GET /v1/models` on
//! 127.0.0.1 only. A request is answered from an exact cassette entry (Ghostlab's own tool-free
//! requests) or from the first matching script rule. A request nothing matches gets HTTP 400
//! naming what was asked, and is logged and kept in [`RunningServer::unmatched`] — the server
//! never makes up an answer.

mod respond;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::cassette::{Cassette, recorded_request, request_key};
use super::script::{ScriptState, assistant_message, content_text, describe, view};
use super::{ChatMessage, ChatRequest, JsonSchemaSpec, Role};
use respond::{Answer, error_body, estimate_tokens};

/// How to run the server.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// 0 picks a free port.
    pub port: u16,
    /// Added before every answer (simulates a slow model).
    pub latency: Duration,
}

struct AppState {
    cassette: Cassette,
    script: Mutex<ScriptState>,
    latency: Duration,
    unmatched: Arc<Mutex<Vec<String>>>,
    answered: Arc<Mutex<Vec<String>>>,
}

/// A started server; dropping it leaves the task running until [`RunningServer::shutdown`].
pub struct RunningServer {
    pub(crate) addr: SocketAddr,
    unmatched: Arc<Mutex<Vec<String>>>,
    answered: Arc<Mutex<Vec<String>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl RunningServer {
    /// `http://127.0.0.1:PORT/v1`, the base URL clients configure.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Descriptions of every request that nothing in the cassette matched.
    pub fn unmatched(&self) -> Vec<String> {
        self.unmatched.lock().map(|u| u.clone()).unwrap_or_default()
    }

    /// What answered each chat request so far, in order: `entry:<key>` or `rule:<name or index>`.
    pub fn answered(&self) -> Vec<String> {
        self.answered.lock().map(|a| a.clone()).unwrap_or_default()
    }

    /// Stops accepting connections; gives open ones two seconds, then cuts them.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if tokio::time::timeout(Duration::from_secs(2), &mut self.task)
            .await
            .is_err()
        {
            self.task.abort();
        }
    }
}

/// Binds 127.0.0.1 and starts serving `cassette`.
pub async fn start(cassette: Cassette, options: ServerOptions) -> std::io::Result<RunningServer> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", options.port)).await?;
    let addr = listener.local_addr()?;
    let unmatched = Arc::new(Mutex::new(Vec::new()));
    let answered = Arc::new(Mutex::new(Vec::new()));
    let state = Arc::new(AppState {
        cassette,
        script: Mutex::new(ScriptState::default()),
        latency: options.latency,
        unmatched: unmatched.clone(),
        answered: answered.clone(),
    });
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/chat/completions", post(chat))
        .route("/v1/models", get(models))
        .route("/models", get(models))
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                axum::Json(error_body("unknown path", "not_found")),
            )
        })
        .with_state(state);
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, app).with_graceful_shutdown(async move {
            let _ = rx.await;
        });
        if let Err(e) = served.await {
            tracing::error!("model-server stopped: {e}");
        }
    });
    Ok(RunningServer {
        addr,
        unmatched,
        answered,
        stop: Some(tx),
        task,
    })
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (status, axum::Json(body)).into_response()
}

async fn models(State(st): State<Arc<AppState>>) -> Response {
    let mut ids: Vec<String> = st
        .cassette
        .entries
        .iter()
        .filter_map(|e| e.request.get("model").and_then(Value::as_str).map(str::to_string))
        .chain(st.cassette.script.iter().filter_map(|r| r.when.model.clone()))
        .collect();
    ids.sort();
    ids.dedup();
    if ids.is_empty() {
        ids.push("ghostlab-scripted".into());
    }
    let data: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "ghostlab"}))
        .collect();
    json_response(StatusCode::OK, json!({"object": "list", "data": data}))
}

/// A tool-free request in Ghostlab's own shape, for exact cassette lookup.
fn as_chat_request(body: &Value) -> Option<ChatRequest> {
    if body
        .get("tools")
        .is_some_and(|t| t.as_array().is_some_and(|a| !a.is_empty()))
    {
        return None;
    }
    let mut messages = Vec::new();
    for m in body.get("messages")?.as_array()? {
        let role = match m.get("role")?.as_str()? {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" if m.get("tool_calls").is_none_or(Value::is_null) => Role::Assistant,
            _ => return None,
        };
        messages.push(ChatMessage::new(role, content_text(m.get("content"))));
    }
    let json_schema = body.pointer("/response_format/json_schema").and_then(|s| {
        Some(JsonSchemaSpec {
            name: s.get("name")?.as_str()?.to_string(),
            schema: s.get("schema")?.clone(),
        })
    });
    Some(ChatRequest {
        model: body.get("model").and_then(Value::as_str).map(str::to_string),
        messages,
        temperature: body.get("temperature").and_then(Value::as_f64),
        max_tokens: body.get("max_tokens").and_then(Value::as_u64).map(|n| n as u32),
        json_schema,
    })
}

async fn chat(State(st): State<Arc<AppState>>, body: Bytes) -> Response {
    let request: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                error_body(&format!("the request body is not JSON: {e}"), "invalid_request_error"),
            );
        }
    };
    let v = view(&request);
    if !st.latency.is_zero() {
        tokio::time::sleep(st.latency).await;
    }
    let prompt_tokens = estimate_tokens(&request.get("messages").map(Value::to_string).unwrap_or_default());
    let exact = as_chat_request(&request).and_then(|r| {
        let key = request_key(&recorded_request(&r, &v.model));
        st.cassette.find(&key).cloned()
    });
    let source;
    let answer = if let Some(entry) = exact {
        source = format!("entry:{}", entry.request_key);
        tracing::info!(key = %entry.request_key, "model-server: answered from a recorded entry");
        Answer {
            id: format!("chatcmpl-ghostlab-{}", entry.request_key.get(7..19).unwrap_or("entry")),
            model: entry.response.model.clone(),
            message: json!({"role": "assistant", "content": entry.response.content}),
            prompt_tokens: entry.response.usage.prompt_tokens,
            completion_tokens: entry.response.usage.completion_tokens,
        }
    } else {
        let picked = st.script.lock().ok().and_then(|mut s| {
            let i = s.pick(&st.cassette.script, &v)?;
            Some((i, s.served()))
        });
        let Some((i, serial)) = picked else {
            let what = describe(&v);
            tracing::warn!("model-server: no cassette entry or script rule matches: {what}");
            if let Ok(mut u) = st.unmatched.lock() {
                u.push(what.clone());
            }
            return json_response(
                StatusCode::BAD_REQUEST,
                error_body(
                    &format!("ghostlab model-server: nothing in the cassette matches this request ({what})"),
                    "not_in_cassette",
                ),
            );
        };
        let rule = &st.cassette.script[i];
        source = format!("rule:{}", rule.name.clone().unwrap_or_else(|| i.to_string()));
        tracing::info!(
            rule = i,
            name = rule.name.as_deref().unwrap_or(""),
            "model-server: answered by a script rule"
        );
        let message = assistant_message(&rule.reply, i, serial);
        Answer {
            id: format!("chatcmpl-ghostlab-{serial}"),
            model: if v.model.is_empty() {
                "ghostlab-scripted".into()
            } else {
                v.model.clone()
            },
            completion_tokens: estimate_tokens(&message.to_string()),
            message,
            prompt_tokens,
        }
    };
    if let Ok(mut a) = st.answered.lock() {
        a.push(source);
    }
    if v.stream {
        (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            answer.to_sse(v.include_usage),
        )
            .into_response()
    } else {
        json_response(StatusCode::OK, answer.to_json())
    }
}
