//! FAKE, for tests only: a local TLS server that impersonates a real model provider host
//! (api.anthropic.com) with a test CA generated at test time, and speaks the Anthropic Messages
//! API as OpenCode's built-in `anthropic` provider calls it (`POST /v1/messages`, SSE stream,
//! text and `tool_use` blocks). Answers come from a cassette's script rules (the same rules
//! `ghostlab model-server` uses), so the agent's conversation is scripted, not invented.
//!
//! Every request is recorded with its credential headers so a test can assert the key that
//! reached the provider. In `reject` mode every request gets HTTP 401.

use ghostlab::llm::cassette::Cassette;
use ghostlab::llm::script::{RequestView, ScriptState, content_text};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;

/// A test CA and a server certificate for the impersonated hosts, made with the openssl CLI.
pub struct TestCa {
    pub dir: tempfile::TempDir,
}

impl TestCa {
    /// `None` (with the reason) when the openssl CLI is missing.
    pub fn generate(hosts: &[&str]) -> Result<TestCa, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let d = dir.path();
        let san = hosts.iter().map(|h| format!("DNS:{h}")).collect::<Vec<_>>().join(",");
        std::fs::write(
            d.join("leaf.ext"),
            format!("subjectAltName={san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature\n"),
        )
        .map_err(|e| e.to_string())?;
        let steps: &[&[&str]] = &[
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=Ghostlab test CA (fake provider)",
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
            ],
            &[
                "req",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "leaf.key",
                "-out",
                "leaf.csr",
                "-subj",
                "/CN=fake provider",
            ],
            &[
                "x509",
                "-req",
                "-in",
                "leaf.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "leaf.pem",
                "-days",
                "2",
                "-extfile",
                "leaf.ext",
            ],
            &["x509", "-in", "leaf.pem", "-outform", "DER", "-out", "leaf.der"],
            &[
                "pkcs8",
                "-topk8",
                "-nocrypt",
                "-in",
                "leaf.key",
                "-outform",
                "DER",
                "-out",
                "leaf.key.der",
            ],
        ];
        for args in steps {
            let out = std::process::Command::new("openssl")
                .args(*args)
                .current_dir(d)
                .output()
                .map_err(|e| format!("openssl CLI not available: {e}"))?;
            if !out.status.success() {
                return Err(format!("openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr)));
            }
        }
        Ok(TestCa { dir })
    }

    /// The CA certificate (PEM) the sandboxed agent is told to trust.
    pub fn ca_pem(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    fn acceptor(&self) -> TlsAcceptor {
        let d = self.dir.path();
        let cert = rustls::pki_types::CertificateDer::from(std::fs::read(d.join("leaf.der")).unwrap());
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(std::fs::read(d.join("leaf.key.der")).unwrap().into());
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap();
        TlsAcceptor::from(Arc::new(config))
    }
}

/// One request the fake provider received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub api_key: Option<String>,
    /// What was asked (model, last user message, trailing tool results).
    pub summary: String,
}

/// How the fake answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// Scripted answers for requests carrying the expected key; 401 otherwise.
    Script,
    /// 401 for everything.
    Reject,
}

struct State {
    rules: Cassette,
    script: ScriptState,
    seen: Vec<Seen>,
    unmatched: Vec<String>,
}

/// A running fake provider on 127.0.0.1.
pub struct FakeAnthropic {
    pub port: u16,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeAnthropic {
    pub async fn start(ca: &TestCa, cassette: &Path, expected_key: &str, mode: Mode) -> FakeAnthropic {
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
                        while let Some((head, body)) = read_request(&mut tls).await {
                            let reply = answer(&state, &head, &body, &expected, mode);
                            if tls.write_all(reply.as_bytes()).await.is_err() {
                                break;
                            }
                            let _ = tls.flush().await;
                        }
                    }
                });
            }
        });
        FakeAnthropic { port, state, task }
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    pub fn unmatched(&self) -> Vec<String> {
        self.state.lock().unwrap().unmatched.clone()
    }
}

impl Drop for FakeAnthropic {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn read_request<S: tokio::io::AsyncRead + Unpin>(s: &mut S) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut body = buf[end + 4..].to_vec();
    let header = |name: &str| {
        head.lines()
            .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(name)))
            .map(|(_, v)| v.trim().to_string())
    };
    if let Some(len) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        while body.len() < len {
            let n = s.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            body.extend_from_slice(&chunk[..n]);
        }
        body.truncate(len);
    } else if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        while !body.windows(5).any(|w| w == b"0\r\n\r\n") {
            let n = s.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            body.extend_from_slice(&chunk[..n]);
        }
        body = dechunk(&body);
    }
    Some((head, body))
}

fn dechunk(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = raw;
    while let Some(i) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..i]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = i + 2;
        out.extend_from_slice(&rest[start..(start + size).min(rest.len())]);
        rest = &rest[(start + size + 2).min(rest.len())..];
    }
    out
}

fn response(status: &str, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nrequest-id: req_fake\r\n\r\n{body}",
        body.len()
    )
}

fn answer(state: &Mutex<State>, head: &str, body: &[u8], expected: &str, mode: Mode) -> String {
    let header = |name: &str| {
        head.lines()
            .skip(1)
            .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(name)))
            .map(|(_, v)| v.trim().to_string())
    };
    let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let view = anthropic_view(&request);
    let mut st = state.lock().unwrap();
    st.seen.push(Seen {
        path: path.clone(),
        api_key: header("x-api-key"),
        summary: ghostlab::llm::script::describe(&view),
    });
    let unauthorized = || {
        response(
            "401 Unauthorized",
            "application/json",
            &json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
                .to_string(),
        )
    };
    if mode == Mode::Reject || header("x-api-key").as_deref() != Some(expected) {
        return unauthorized();
    }
    if !path.ends_with("/messages") {
        return response("404 Not Found", "application/json", "{}");
    }
    let st = &mut *st;
    let Some(i) = st.script.pick(&st.rules.script, &view) else {
        let what = ghostlab::llm::script::describe(&view);
        st.unmatched.push(what.clone());
        return response(
            "400 Bad Request",
            "application/json",
            &json!({"type": "error", "error": {"type": "invalid_request_error", "message": format!("fake provider: no script rule for {what}")}}).to_string(),
        );
    };
    let serial = st.script.served();
    let reply = st.rules.script[i].reply.clone();
    response("200 OK", "text/event-stream", &sse(&reply, i, serial, &view.model))
}

/// Reads an Anthropic Messages request into the view the script rules match on.
pub fn anthropic_view(req: &Value) -> RequestView {
    let empty = Vec::new();
    let system = match req.get("system") {
        Some(Value::String(s)) => s.clone(),
        other => content_text(other),
    };
    let messages = req.get("messages").and_then(Value::as_array).unwrap_or(&empty);
    let blocks = |m: &Value| -> Vec<Value> {
        match m.get("content") {
            Some(Value::Array(a)) => a.clone(),
            Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
            _ => Vec::new(),
        }
    };
    let is_type = |b: &Value, t: &str| b.get("type").and_then(Value::as_str) == Some(t);
    let role = |m: &Value| m.get("role").and_then(Value::as_str).unwrap_or("").to_string();
    let last_user = messages
        .iter()
        .rev()
        .filter(|m| role(m) == "user")
        .find(|m| blocks(m).iter().any(|b| is_type(b, "text")))
        .map(|m| {
            content_text(Some(&Value::Array(
                blocks(m).into_iter().filter(|b| is_type(b, "text")).collect(),
            )))
        })
        .unwrap_or_default();
    let name_of = |id: &str| -> String {
        messages
            .iter()
            .filter(|m| role(m) == "assistant")
            .flat_map(blocks)
            .find(|b| is_type(b, "tool_use") && b.get("id").and_then(Value::as_str) == Some(id))
            .and_then(|b| b.get("name").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default()
    };
    let trailing = messages
        .last()
        .filter(|m| role(m) == "user")
        .map(|m| {
            blocks(m)
                .iter()
                .filter(|b| is_type(b, "tool_result"))
                .map(|b| {
                    let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("").to_string();
                    let name = name_of(&id);
                    (id, name)
                })
                .collect()
        })
        .unwrap_or_default();
    RequestView {
        model: req.get("model").and_then(Value::as_str).unwrap_or("").to_string(),
        system,
        last_user,
        trailing_tool_results: trailing,
        tools_offered: req
            .get("tools")
            .and_then(Value::as_array)
            .unwrap_or(&empty)
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string))
            .collect(),
        stream: req.get("stream").and_then(Value::as_bool).unwrap_or(false),
        include_usage: true,
    }
}

/// The Anthropic Messages event stream for a scripted reply.
fn sse(reply: &ghostlab::llm::script::Reply, rule: usize, serial: u64, model: &str) -> String {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| {
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {"id": format!("msg_fake_{serial}"), "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 12, "output_tokens": 1}}}),
    );
    let mut index = 0;
    if let Some(text) = reply.text.as_deref().filter(|t| !t.is_empty()) {
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        );
        let mid = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map(|(i, _)| i)
            .unwrap_or(0);
        for part in [&text[..mid], &text[mid..]] {
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": part}}),
            );
        }
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
        index += 1;
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        let id = call
            .id
            .clone()
            .unwrap_or_else(|| format!("toolu_fake_{rule}_{serial}_{i}"));
        let args = match &call.arguments {
            Value::String(s) => s.clone(),
            Value::Null => "{}".to_string(),
            other => other.to_string(),
        };
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": call.name, "input": {}}}),
        );
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": args}}),
        );
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
        index += 1;
    }
    let stop = if reply.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 9}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    out
}

#[test]
fn anthropic_requests_are_viewed_like_chat_requests() {
    let req = json!({
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": "You are the release agent"}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "prepare a release"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "release_ci_status", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "green"}]}
        ],
        "tools": [{"name": "release_ci_status", "input_schema": {}}],
        "stream": true
    });
    let v = anthropic_view(&req);
    assert_eq!(v.system, "You are the release agent");
    assert_eq!(v.last_user, "prepare a release");
    assert_eq!(
        v.trailing_tool_results,
        vec![("toolu_1".to_string(), "release_ci_status".to_string())]
    );
    assert_eq!(v.tools_offered, ["release_ci_status"]);
}
