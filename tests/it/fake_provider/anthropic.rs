//! FAKE, for tests only: the Anthropic Messages API as OpenCode's built-in `anthropic` provider
//! calls it: `POST /v1/messages` with the key in `x-api-key`, answered as an SSE stream of
//! `message_start`, text and `tool_use` content blocks, `message_delta` and `message_stop`.

use ghostlab::llm::script::{Reply, RequestView, content_text};
use serde_json::{Value, json};

/// The path OpenCode posts to.
pub const PATH: &str = "/v1/messages";

/// The credential the request carried.
pub fn api_key(head: &str) -> Option<String> {
    super::http::header(head, "x-api-key")
}

/// An error body as the Anthropic API shapes it.
pub fn error_body(status: u16, message: &str) -> String {
    let kind = match status {
        401 => "authentication_error",
        403 => "permission_error",
        _ => "invalid_request_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

/// Reads an Anthropic Messages request into the view the script rules match on.
pub fn view(req: &Value) -> RequestView {
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
pub fn sse(reply: &Reply, rule: usize, serial: u64, model: &str) -> String {
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
    let v = view(&req);
    assert_eq!(v.system, "You are the release agent");
    assert_eq!(v.last_user, "prepare a release");
    assert_eq!(
        v.trailing_tool_results,
        vec![("toolu_1".to_string(), "release_ci_status".to_string())]
    );
    assert_eq!(v.tools_offered, ["release_ci_status"]);
}
