//! FAKE, for tests only: a local TLS server that impersonates a real model provider host
//! (api.anthropic.com, api.openai.com) with a test CA generated at test time, and speaks that
//! provider's wire format as OpenCode's built-in provider calls it ([`Wire`]: the Anthropic
//! Messages API in `anthropic.rs`, the OpenAI Responses API in `openai.rs`). Answers come from a
//! cassette's script rules (the same rules `ghostlab model-server` uses), so the agent's
//! conversation is scripted, not invented.
//!
//! Every request is recorded with the credential it carried so a test can assert the key that
//! reached the provider. In [`Mode::Refuse`] every request gets that HTTP status.

pub mod anthropic;
mod ca;
mod http;
pub mod openai;

pub use ca::TestCa;

use ghostlab::llm::cassette::Cassette;
use ghostlab::llm::script::{Reply, RequestView, ScriptState};
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// Which provider API the fake speaks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wire {
    /// `POST /v1/messages`, `x-api-key`.
    Anthropic,
    /// `POST /v1/responses`, `Authorization: Bearer`.
    OpenAiResponses,
}

impl Wire {
    fn path(self) -> &'static str {
        match self {
            Wire::Anthropic => anthropic::PATH,
            Wire::OpenAiResponses => openai::PATH,
        }
    }
    fn api_key(self, head: &str) -> Option<String> {
        match self {
            Wire::Anthropic => anthropic::api_key(head),
            Wire::OpenAiResponses => openai::api_key(head),
        }
    }
    fn view(self, request: &Value) -> RequestView {
        match self {
            Wire::Anthropic => anthropic::view(request),
            Wire::OpenAiResponses => openai::view(request),
        }
    }
    fn error_body(self, status: u16, message: &str) -> String {
        match self {
            Wire::Anthropic => anthropic::error_body(status, message),
            Wire::OpenAiResponses => openai::error_body(status, message),
        }
    }
    fn stream(self, reply: &Reply, rule: usize, serial: u64, model: &str) -> String {
        match self {
            Wire::Anthropic => anthropic::sse(reply, rule, serial, model),
            Wire::OpenAiResponses => openai::sse(reply, rule, serial, model),
        }
    }
}

/// One request the fake provider received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub api_key: Option<String>,
    /// What was asked (model, last user message, trailing tool results).
    pub summary: String,
    /// The request body's top-level keys (to pin the wire format OpenCode used).
    pub keys: Vec<String>,
}

/// How the fake answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// Scripted answers for requests carrying the expected key; 401 otherwise.
    Script,
    /// This HTTP status (401, 403) for everything, as a provider refusing the credential.
    Refuse(u16),
}

struct State {
    rules: Cassette,
    script: ScriptState,
    seen: Vec<Seen>,
    unmatched: Vec<String>,
}

/// A running fake provider on 127.0.0.1.
pub struct FakeProvider {
    pub port: u16,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeProvider {
    pub async fn start(ca: &TestCa, wire: Wire, cassette: &Path, expected_key: &str, mode: Mode) -> FakeProvider {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let acceptor = ca.acceptor();
        let state = Arc::new(Mutex::new(State {
            rules: Cassette::load(cassette).unwrap(),
            script: ScriptState::default(),
            seen: Vec::new(),
            unmatched: Vec::new(),
        }));
        let shared = state.clone();
        let expected = expected_key.to_string();
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                let state = shared.clone();
                let expected = expected.clone();
                tokio::spawn(async move {
                    if let Ok(mut tls) = acceptor.accept(tcp).await {
                        // Keep-alive: serve requests on this connection until it closes.
                        while let Some((head, body)) = http::read_request(&mut tls).await {
                            let reply = answer(&state, wire, &head, &body, &expected, mode);
                            if tls.write_all(reply.as_bytes()).await.is_err() {
                                break;
                            }
                            let _ = tls.flush().await;
                        }
                    }
                });
            }
        });
        FakeProvider { port, state, task }
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    pub fn unmatched(&self) -> Vec<String> {
        self.state.lock().unwrap().unmatched.clone()
    }
}

impl Drop for FakeProvider {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn answer(state: &Mutex<State>, wire: Wire, head: &str, body: &[u8], expected: &str, mode: Mode) -> String {
    let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let view = wire.view(&request);
    let key = wire.api_key(head);
    let mut st = state.lock().unwrap();
    st.seen.push(Seen {
        path: path.clone(),
        api_key: key.clone(),
        summary: ghostlab::llm::script::describe(&view),
        keys: request
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default(),
    });
    let json = "application/json";
    match mode {
        Mode::Refuse(status) => {
            let line = format!("{status} {}", if status == 403 { "Forbidden" } else { "Unauthorized" });
            return http::response(
                &line,
                json,
                &wire.error_body(status, "fake provider: credential refused"),
            );
        }
        Mode::Script if key.as_deref() != Some(expected) => {
            return http::response("401 Unauthorized", json, &wire.error_body(401, "invalid api key"));
        }
        Mode::Script => {}
    }
    if path != wire.path() {
        return http::response(
            "404 Not Found",
            json,
            &wire.error_body(404, "fake provider: unknown path"),
        );
    }
    let st = &mut *st;
    let Some(i) = st.script.pick(&st.rules.script, &view) else {
        let what = ghostlab::llm::script::describe(&view);
        st.unmatched.push(what.clone());
        let message = format!("fake provider: no script rule for {what}");
        return http::response("400 Bad Request", json, &wire.error_body(400, &message));
    };
    let serial = st.script.served();
    let reply = st.rules.script[i].reply.clone();
    http::response(
        "200 OK",
        "text/event-stream",
        &wire.stream(&reply, i, serial, &view.model),
    )
}
