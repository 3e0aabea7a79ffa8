//! One HTTP attempt against an OpenAI-compatible `/chat/completions`: send, then read either a
//! JSON body or an SSE stream into a [`RawAnswer`].
//!
//! Responses are read as `serde_json::Value`, not async-openai's typed structs: those reject
//! servers that omit `id`/`object`/`created` (llama.cpp, some proxies), and a typed stream
//! cannot tell a cut connection from a finished answer. This module never retries; it reports
//! whether a failure is worth retrying.

use serde_json::Value;

use super::Usage;
pub(crate) use super::http_attempt::{AttemptError, RawAnswer, excerpt};
use super::http_attempt::{is_json, post, read_json, read_sse};

/// Sends `body` and reads the whole answer. `headers` are already resolved.
pub(crate) async fn attempt(
    client: &reqwest::Client,
    url: &str,
    headers: &reqwest::header::HeaderMap,
    body: &Value,
    stream: bool,
) -> Result<RawAnswer, AttemptError> {
    let resp = post(client, url, headers, body).await?;
    // Some servers ignore `stream: true` and answer with one JSON body; accept that too.
    if stream && !is_json(&resp) {
        read_stream(resp).await
    } else {
        read_body(resp).await
    }
}

async fn read_body(resp: reqwest::Response) -> Result<RawAnswer, AttemptError> {
    let value = read_json(resp).await?;
    if let Some(err) = value.get("error").filter(|e| !e.is_null()) {
        return Err(AttemptError::malformed(format!(
            "the endpoint answered HTTP 200 with an error: {}",
            excerpt(&err.to_string(), 300)
        )));
    }
    let choice = value
        .pointer("/choices/0")
        .ok_or_else(|| malformed("the answer has no choices[0]"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| malformed("choices[0] has no message"))?;
    let content = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        _ if message.get("tool_calls").is_some_and(|t| !t.is_null()) => {
            return Err(malformed(
                "the model answered with tool calls, but this request offers no tools",
            ));
        }
        _ => return Err(malformed("choices[0].message.content is missing or not a string")),
    };
    Ok(RawAnswer {
        content,
        model: value.get("model").and_then(Value::as_str).map(str::to_string),
        usage: usage_of(value.get("usage")),
        finish_reason: choice.get("finish_reason").and_then(Value::as_str).map(str::to_string),
    })
}

async fn read_stream(resp: reqwest::Response) -> Result<RawAnswer, AttemptError> {
    let mut answer = RawAnswer::default();
    // Complete only at the `[DONE]` sentinel.
    read_sse(resp, "chunk", "[DONE]", |data, n| {
        if data.trim() == "[DONE]" {
            return Ok(true);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            AttemptError::malformed(format!(
                "stream chunk {n} is not valid JSON ({e}): {}",
                excerpt(data, 200)
            ))
        })?;
        apply_chunk(&mut answer, &chunk)?;
        Ok(false)
    })
    .await?;
    Ok(answer)
}

fn apply_chunk(answer: &mut RawAnswer, chunk: &Value) -> Result<(), AttemptError> {
    if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
        return Err(AttemptError::malformed(format!(
            "the stream carried an error: {}",
            excerpt(&err.to_string(), 300)
        )));
    }
    if answer.model.is_none() {
        answer.model = chunk.get("model").and_then(Value::as_str).map(str::to_string);
    }
    if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
        answer.usage = usage_of(Some(u));
    }
    if let Some(choice) = chunk.pointer("/choices/0") {
        if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str) {
            answer.content.push_str(text);
        }
        if choice.pointer("/delta/tool_calls").is_some_and(|t| !t.is_null()) {
            return Err(malformed(
                "the model streamed tool calls, but this request offers no tools",
            ));
        }
        if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
            answer.finish_reason = Some(r.to_string());
        }
    }
    Ok(())
}

fn malformed(detail: &str) -> AttemptError {
    AttemptError::malformed(detail)
}

/// Reads `{prompt_tokens, completion_tokens, cost?}`; missing numbers count as zero.
pub(crate) fn usage_of(usage: Option<&Value>) -> Usage {
    let n = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        prompt_tokens: n("prompt_tokens"),
        completion_tokens: n("completion_tokens"),
        cost_usd: usage.and_then(|u| u.get("cost")).and_then(Value::as_f64),
    }
}
