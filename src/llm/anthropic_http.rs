//! One HTTP attempt against Anthropic's `POST /messages`: send, then read a JSON body or the
//! SSE stream (`message_start`, `content_block_delta`, `message_delta` with usage,
//! `message_stop`; `error` events) into a [`RawAnswer`]. Never retries; says whether a failure
//! is worth retrying, with the same rules as the OpenAI path.

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::http_attempt::{AttemptError, RawAnswer, excerpt, is_json, post, read_json, read_sse};

/// Sends `body` and reads the whole answer. `headers` are already resolved.
pub(crate) async fn attempt(
    client: &reqwest::Client,
    url: &str,
    headers: &HeaderMap,
    body: &Value,
) -> Result<RawAnswer, AttemptError> {
    let resp = post(client, url, headers, body).await?;
    if is_json(&resp) {
        read_message(&read_json(resp).await?)
    } else {
        read_stream(resp).await
    }
}

fn fatal(detail: String) -> AttemptError {
    AttemptError::malformed(detail)
}

/// A non-streamed message: text blocks joined; a `tool_use` block is refused (no tools offered).
fn read_message(v: &Value) -> Result<RawAnswer, AttemptError> {
    if v.get("type").and_then(Value::as_str) == Some("error") {
        return Err(error_event(v));
    }
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| fatal("the message has no content array".into()))?;
    let mut answer = RawAnswer {
        model: v.get("model").and_then(Value::as_str).map(str::to_string),
        finish_reason: v.get("stop_reason").and_then(Value::as_str).map(str::to_string),
        ..RawAnswer::default()
    };
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => answer
                .content
                .push_str(b.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => return Err(no_tools()),
            _ => {}
        }
    }
    add_usage(&mut answer, v.get("usage"));
    Ok(answer)
}

fn no_tools() -> AttemptError {
    fatal("the model answered with a tool call, but this request offers no tools".into())
}

/// An `error` payload: `overloaded_error` and `api_error` are transient, the rest are not.
fn error_event(v: &Value) -> AttemptError {
    let kind = v.pointer("/error/type").and_then(Value::as_str).unwrap_or("unknown");
    let message = v.pointer("/error/message").and_then(Value::as_str).unwrap_or("");
    let reason = format!("the stream carried an error ({kind}): {}", excerpt(message, 300));
    if matches!(kind, "overloaded_error" | "api_error" | "rate_limit_error") {
        AttemptError::retry(reason)
    } else {
        fatal(reason)
    }
}

/// Input tokens (including cache reads and writes) and output tokens; later reports replace
/// earlier ones field by field, as the stream's `message_delta` carries cumulative counts.
fn add_usage(answer: &mut RawAnswer, usage: Option<&Value>) {
    let Some(u) = usage.filter(|u| u.is_object()) else {
        return;
    };
    let n = |k: &str| u.get(k).and_then(Value::as_u64);
    let input = [
        n("input_tokens"),
        n("cache_creation_input_tokens"),
        n("cache_read_input_tokens"),
    ];
    if input.iter().any(Option::is_some) {
        answer.usage.prompt_tokens = input.iter().flatten().sum();
    }
    if let Some(out) = n("output_tokens") {
        answer.usage.completion_tokens = out;
    }
}

async fn read_stream(resp: reqwest::Response) -> Result<RawAnswer, AttemptError> {
    let mut answer = RawAnswer::default();
    // Complete only at `message_stop`: a stream closed before it may be partial.
    read_sse(resp, "event", "message_stop", |data, n| {
        let v: Value = serde_json::from_str(data).map_err(|e| {
            fatal(format!(
                "stream event {n} is not valid JSON ({e}): {}",
                excerpt(data, 200)
            ))
        })?;
        apply_event(&mut answer, &v)
    })
    .await?;
    Ok(answer)
}

/// Applies one event; `Ok(true)` at `message_stop`.
fn apply_event(answer: &mut RawAnswer, v: &Value) -> Result<bool, AttemptError> {
    match v.get("type").and_then(Value::as_str) {
        Some("message_start") => {
            answer.model = v.pointer("/message/model").and_then(Value::as_str).map(str::to_string);
            add_usage(answer, v.pointer("/message/usage"));
        }
        Some("content_block_start") => match v.pointer("/content_block/type").and_then(Value::as_str) {
            Some("tool_use") | Some("server_tool_use") => return Err(no_tools()),
            Some("text") => {
                let t = v.pointer("/content_block/text").and_then(Value::as_str).unwrap_or("");
                answer.content.push_str(t);
            }
            _ => {}
        },
        Some("content_block_delta") => match v.pointer("/delta/type").and_then(Value::as_str) {
            Some("text_delta") => {
                let t = v.pointer("/delta/text").and_then(Value::as_str).unwrap_or("");
                answer.content.push_str(t);
            }
            Some("input_json_delta") => return Err(no_tools()),
            _ => {} // thinking and signature deltas are not part of the answer
        },
        Some("message_delta") => {
            if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                answer.finish_reason = Some(r.to_string());
            }
            add_usage(answer, v.get("usage"));
        }
        Some("message_stop") => return Ok(true),
        Some("error") => return Err(error_event(v)),
        _ => {} // ping, content_block_stop
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_assemble_text_and_usage() {
        let mut a = RawAnswer::default();
        let evs = [
            json!({"type":"message_start","message":{"model":"claude-x","usage":{"input_tokens":20,"cache_read_input_tokens":5,"output_tokens":1}}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
            json!({"type":"ping"}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}),
            json!({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}),
        ];
        for e in &evs {
            assert!(!apply_event(&mut a, e).unwrap());
        }
        assert!(apply_event(&mut a, &json!({"type":"message_stop"})).unwrap());
        assert_eq!(a.content, "Hello");
        assert_eq!((a.usage.prompt_tokens, a.usage.completion_tokens), (25, 9));
        assert_eq!(a.model.as_deref(), Some("claude-x"));
    }

    #[test]
    fn tool_use_and_errors_are_refused() {
        let mut a = RawAnswer::default();
        let tool = json!({"type":"content_block_start","content_block":{"type":"tool_use","name":"x"}});
        assert!(matches!(apply_event(&mut a, &tool), Err(AttemptError::Fatal(_))));
        let over = json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}});
        assert!(matches!(
            apply_event(&mut a, &over),
            Err(AttemptError::Retryable { .. })
        ));
        let bad = json!({"type":"error","error":{"type":"invalid_request_error","message":"no"}});
        assert!(matches!(apply_event(&mut a, &bad), Err(AttemptError::Fatal(_))));
    }
}
