//! FAKE, for tests only: the OpenAI Responses API as OpenCode's built-in `openai` provider
//! calls it (captured from opencode 1.18.33): `POST /v1/responses` with
//! `Authorization: Bearer <key>`, `stream: true`, `store: false`, the conversation as `input`
//! items (`system`/`developer` and `user` messages with `input_text` parts, `function_call` and
//! `function_call_output` items), tools as `{type: "function", name, …}`. The answer is an SSE
//! stream: `response.created`, per output item `response.output_item.added`, its
//! `response.output_text.delta` or `response.function_call_arguments.delta`/`.done`,
//! `response.output_item.done`, then `response.completed` with usage.

use ghostlab::llm::script::{Reply, RequestView, content_text};
use serde_json::{Value, json};

/// The path OpenCode posts to.
pub const PATH: &str = "/v1/responses";

/// The credential the request carried (the bearer token).
pub fn api_key(head: &str) -> Option<String> {
    super::http::header(head, "authorization").and_then(|v| v.strip_prefix("Bearer ").map(str::to_string))
}

/// An error body as the OpenAI API shapes it.
pub fn error_body(status: u16, message: &str) -> String {
    let code = match status {
        401 => "invalid_api_key",
        403 => "permission_denied",
        _ => "invalid_request",
    };
    json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": code}}).to_string()
}

fn kind(item: &Value) -> &str {
    item.get("type").and_then(Value::as_str).unwrap_or("message")
}

fn role(item: &Value) -> &str {
    item.get("role").and_then(Value::as_str).unwrap_or("")
}

/// Reads a Responses request into the view the script rules match on.
pub fn view(req: &Value) -> RequestView {
    let empty = Vec::new();
    let input = req.get("input").and_then(Value::as_array).unwrap_or(&empty);
    let messages = || input.iter().filter(|i| kind(i) == "message");
    let system = req
        .get("instructions")
        .and_then(Value::as_str)
        .map(str::to_string)
        .into_iter()
        .chain(
            messages()
                .filter(|m| matches!(role(m), "system" | "developer"))
                .map(|m| content_text(m.get("content"))),
        )
        .collect::<Vec<_>>()
        .join("\n");
    let last_user = messages()
        .filter(|m| role(m) == "user")
        .map(|m| content_text(m.get("content")))
        .rfind(|t| !t.is_empty())
        .unwrap_or_default();
    let name_of = |call_id: &str| -> String {
        input
            .iter()
            .filter(|i| kind(i) == "function_call")
            .find(|i| i.get("call_id").and_then(Value::as_str) == Some(call_id))
            .and_then(|i| i.get("name").and_then(Value::as_str))
            .unwrap_or("")
            .to_string()
    };
    // The results of the last batch of calls: the outputs at the very end of the input.
    let mut trailing: Vec<(String, String)> = input
        .iter()
        .rev()
        .take_while(|i| kind(i) == "function_call_output")
        .map(|i| {
            let id = i.get("call_id").and_then(Value::as_str).unwrap_or("").to_string();
            let name = name_of(&id);
            (id, name)
        })
        .collect();
    trailing.reverse();
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

/// The Responses event stream for a scripted reply.
pub fn sse(reply: &Reply, rule: usize, serial: u64, model: &str) -> String {
    let mut out = String::new();
    let mut sequence = 0u64;
    let mut event = |name: &str, mut data: Value| {
        data["type"] = json!(name);
        data["sequence_number"] = json!(sequence);
        sequence += 1;
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    let response_id = format!("resp_fake_{serial}");
    let head = |status: &str| {
        json!({"id": response_id, "object": "response", "created_at": 1_700_000_000u64, "status": status,
            "model": model, "output": [], "incomplete_details": null})
    };
    event("response.created", json!({"response": head("in_progress")}));
    let mut index = 0;
    if let Some(text) = reply.text.as_deref().filter(|t| !t.is_empty()) {
        let id = format!("msg_fake_{serial}");
        let item = |status: &str, content: Value| json!({"type": "message", "id": id, "role": "assistant", "status": status, "content": content});
        event(
            "response.output_item.added",
            json!({"output_index": index, "item": item("in_progress", json!([]))}),
        );
        let mid = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map(|(i, _)| i)
            .unwrap_or(0);
        for part in [&text[..mid], &text[mid..]] {
            event(
                "response.output_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0, "delta": part, "logprobs": []}),
            );
        }
        let done = json!([{"type": "output_text", "text": text, "annotations": []}]);
        event(
            "response.output_item.done",
            json!({"output_index": index, "item": item("completed", done)}),
        );
        index += 1;
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        let call_id = call
            .id
            .clone()
            .unwrap_or_else(|| format!("call_fake_{rule}_{serial}_{i}"));
        let id = format!("fc_fake_{serial}_{i}");
        let args = match &call.arguments {
            Value::String(s) => s.clone(),
            Value::Null => "{}".to_string(),
            other => other.to_string(),
        };
        let item = |status: &str, arguments: &str| {
            json!({"type": "function_call", "id": id, "call_id": call_id, "name": call.name,
                "arguments": arguments, "status": status})
        };
        event(
            "response.output_item.added",
            json!({"output_index": index, "item": item("in_progress", "")}),
        );
        event(
            "response.function_call_arguments.delta",
            json!({"item_id": id, "output_index": index, "delta": args}),
        );
        event(
            "response.function_call_arguments.done",
            json!({"item_id": id, "output_index": index, "arguments": args}),
        );
        event(
            "response.output_item.done",
            json!({"output_index": index, "item": item("completed", &args)}),
        );
        index += 1;
    }
    let mut done = head("completed");
    done["usage"] = json!({"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 21});
    event("response.completed", json!({"response": done}));
    out
}

#[test]
fn responses_requests_are_viewed_like_chat_requests() {
    // The shape OpenCode 1.18.33 sends after two tool calls (abridged).
    let req = json!({
        "model": "gpt-4.1",
        "input": [
            {"role": "system", "content": "You are the release agent"},
            {"role": "user", "content": [{"type": "input_text", "text": "prepare a release"}]},
            {"type": "function_call", "call_id": "call_1", "name": "release_ci_status", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "green"},
            {"type": "function_call", "call_id": "call_2", "name": "filesystem_read_text_file", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_2", "output": "# Changelog"}
        ],
        "tools": [{"type": "function", "name": "release_ci_status", "parameters": {}}],
        "store": false,
        "stream": true
    });
    let v = view(&req);
    assert_eq!(v.system, "You are the release agent");
    assert_eq!(v.last_user, "prepare a release");
    assert_eq!(
        v.trailing_tool_results,
        vec![("call_2".to_string(), "filesystem_read_text_file".to_string())]
    );
    assert_eq!(v.tools_offered, ["release_ci_status"]);
    assert!(v.stream);
}

#[test]
fn a_scripted_tool_call_streams_as_a_function_call_item() {
    let reply: Reply =
        serde_json::from_value(json!({"tool_calls": [{"name": "read", "arguments": {"filePath": "a"}}]})).unwrap();
    let events: Vec<Value> = sse(&reply, 0, 7, "gpt-4.1")
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed"
        ]
    );
    assert_eq!(events[4]["item"]["arguments"], "{\"filePath\":\"a\"}");
    assert_eq!(events[5]["response"]["usage"]["output_tokens"], 9);
}
