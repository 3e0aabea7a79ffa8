//! A scripted model server for tests, speaking Anthropic's Messages API (`POST /v1/messages`,
//! streamed as SSE or as one JSON message) and OpenAI chat (`POST /v1/chat/completions`).
//! It records every request (path, head, body) and answers by rules: the first rule whose
//! needles all occur in the request body gives the reply text. Queued faults are served first.
//! Named a fake on purpose: it plays a model, it is not one.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// One recorded request.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub head: String,
    pub body: Value,
}

/// A failure served instead of a rule's answer.
#[derive(Debug, Clone)]
pub enum Fault {
    /// An HTTP status with a body.
    Status(u16, String),
    /// An Anthropic `error` event of this type, mid-stream.
    ErrorEvent(&'static str),
    /// The stream stops after the first text delta, without `message_stop` / `[DONE]`.
    Truncate,
}

/// needles → reply text.
pub type Rule = (Vec<String>, String);

pub struct ScriptedLlm {
    /// Base URL including `/v1`.
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    pub faults: Arc<Mutex<VecDeque<Fault>>>,
}

impl ScriptedLlm {
    pub fn start(rules: Vec<Rule>) -> ScriptedLlm {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let faults = Arc::new(Mutex::new(VecDeque::new()));
        let rules = Arc::new(rules);
        let (s, f) = (seen.clone(), faults.clone());
        std::thread::spawn(move || {
            for sock in listener.incoming().flatten() {
                let (s, f, rules) = (s.clone(), f.clone(), rules.clone());
                std::thread::spawn(move || serve(sock, &s, &f, &rules));
            }
        });
        ScriptedLlm { url, seen, faults }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

pub fn rule(needles: &[&str], reply: impl Into<String>) -> Rule {
    (needles.iter().map(|n| n.to_string()).collect(), reply.into())
}

fn read_request(sock: &mut TcpStream) -> Option<(String, String)> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    loop {
        let n = sock.read(&mut tmp).ok()?;
        if n == 0 {
            return None;
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
                let n = sock.read(&mut tmp).ok()?;
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&tmp[..n]);
            }
            return Some((head, String::from_utf8_lossy(&buf[pos + 4..]).to_string()));
        }
    }
}

fn serve(mut sock: TcpStream, seen: &Mutex<Vec<Seen>>, faults: &Mutex<VecDeque<Fault>>, rules: &[Rule]) {
    let Some((head, text)) = read_request(&mut sock) else {
        return;
    };
    let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
    let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    seen.lock().unwrap().push(Seen {
        path: path.clone(),
        head: head.clone(),
        body: body.clone(),
    });
    let anthropic = path.ends_with("/messages");
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let fault = faults.lock().unwrap().pop_front();
    let reply = rules
        .iter()
        .find(|(needles, _)| needles.iter().all(|n| text.contains(n.as_str())))
        .map(|(_, r)| r.clone());
    let (status, ctype, payload) = match (fault, reply) {
        (Some(Fault::Status(code, b)), _) => (code, "application/json", b),
        (_, None) => (
            400,
            "application/json",
            json!({"error": {"type": "not_scripted", "message": "no rule matched"}}).to_string(),
        ),
        (fault, Some(reply)) => {
            let input = (text.len() / 4) as u64;
            let output = (reply.len() / 4).max(1) as u64;
            let cut = matches!(fault, Some(Fault::Truncate));
            let error = match fault {
                Some(Fault::ErrorEvent(kind)) => Some(kind),
                _ => None,
            };
            match (anthropic, stream) {
                (true, true) => (
                    200,
                    "text/event-stream",
                    anthropic_sse(&reply, input, output, error, cut),
                ),
                (true, false) => (200, "application/json", anthropic_json(&reply, input, output)),
                (false, true) => (200, "text/event-stream", openai_sse(&reply, input, output, cut)),
                (false, false) => (200, "application/json", openai_json(&reply, input, output)),
            }
        }
    };
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    );
    let _ = sock.write_all(head.as_bytes());
    let _ = sock.write_all(payload.as_bytes());
    let _ = sock.flush();
}

/// Splits text into a few deltas so the client has to assemble them.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(chars.len().div_ceil(3).max(1))
        .map(|c| c.iter().collect())
        .collect()
}

fn ev(kind: &str, data: Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

pub fn anthropic_sse(reply: &str, input: u64, output: u64, error: Option<&str>, cut: bool) -> String {
    let mut s = ev(
        "message_start",
        json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"scripted-claude","content":[],"usage":{"input_tokens":input,"output_tokens":1}}}),
    );
    s += &ev(
        "content_block_start",
        json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
    );
    s += &ev("ping", json!({"type":"ping"}));
    for (i, p) in pieces(reply).iter().enumerate() {
        s += &ev(
            "content_block_delta",
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":p}}),
        );
        if i == 0 && cut {
            return s;
        }
        if i == 0
            && let Some(kind) = error
        {
            return s + &ev(
                "error",
                json!({"type":"error","error":{"type":kind,"message":"scripted failure"}}),
            );
        }
    }
    s += &ev("content_block_stop", json!({"type":"content_block_stop","index":0}));
    s += &ev(
        "message_delta",
        json!({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":output}}),
    );
    s + &ev("message_stop", json!({"type":"message_stop"}))
}

fn anthropic_json(reply: &str, input: u64, output: u64) -> String {
    json!({"id":"msg_1","type":"message","role":"assistant","model":"scripted-claude",
        "content":[{"type":"text","text":reply}],"stop_reason":"end_turn",
        "usage":{"input_tokens":input,"output_tokens":output}})
    .to_string()
}

fn openai_sse(reply: &str, input: u64, output: u64, cut: bool) -> String {
    let mut s = String::new();
    for (i, p) in pieces(reply).iter().enumerate() {
        let c = json!({"model":"scripted-gpt","choices":[{"index":0,"delta":{"content":p},"finish_reason":null}]});
        s += &format!("data: {c}\n\n");
        if i == 0 && cut {
            return s;
        }
    }
    let u = json!({"choices":[],"usage":{"prompt_tokens":input,"completion_tokens":output}});
    s + &format!("data: {u}\n\ndata: [DONE]\n\n")
}

fn openai_json(reply: &str, input: u64, output: u64) -> String {
    json!({"id":"x","object":"chat.completion","created":1,"model":"scripted-gpt",
        "choices":[{"index":0,"message":{"role":"assistant","content":reply},"finish_reason":"stop"}],
        "usage":{"prompt_tokens":input,"completion_tokens":output}})
    .to_string()
}
