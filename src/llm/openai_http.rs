//! One HTTP attempt against an OpenAI-compatible `/chat/completions`: send, then read either a
//! JSON body or an SSE stream into a [`RawAnswer`].
//!
//! Responses are read as `serde_json::Value`, not async-openai's typed structs: those reject
//! servers that omit `id`/`object`/`created` (llama.cpp, some proxies), and a typed stream
//! cannot tell a cut connection from a finished answer. This module never retries; it reports
//! whether a failure is worth retrying.

use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;

use super::sse::SseDecoder;
use super::{LlmError, Usage};

/// What one successful attempt produced.
#[derive(Debug, Clone, Default)]
pub struct RawAnswer {
    pub content: String,
    pub model: Option<String>,
    pub usage: Usage,
    pub finish_reason: Option<String>,
}

/// Why one attempt failed.
#[derive(Debug)]
pub enum AttemptError {
    /// Worth another try (429, 5xx, reset, cut stream); `retry_after` from the server if given.
    Retryable {
        reason: String,
        retry_after: Option<Duration>,
    },
    /// Retrying would not help.
    Fatal(LlmError),
}

/// Keeps error bodies short in messages.
pub fn excerpt(text: &str, max: usize) -> String {
    let t = text.trim();
    if t.chars().count() <= max {
        t.to_string()
    } else {
        let cut: String = t.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// Sends `body` and reads the whole answer. `headers` are already resolved.
pub async fn attempt(
    client: &reqwest::Client,
    url: &str,
    headers: &reqwest::header::HeaderMap,
    body: &Value,
    stream: bool,
) -> Result<RawAnswer, AttemptError> {
    let resp = client
        .post(url)
        .headers(headers.clone())
        .json(body)
        .send()
        .await
        .map_err(|e| AttemptError::Retryable {
            reason: format!("cannot reach {url}: {}", describe(&e)),
            retry_after: None,
        })?;
    let status = resp.status();
    if !status.is_success() {
        let retry_after = super::retry::parse_retry_after(
            resp.headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok()),
        );
        let text = resp.text().await.unwrap_or_default();
        let code = status.as_u16();
        if code == 429 || code == 408 || status.is_server_error() {
            return Err(AttemptError::Retryable {
                reason: format!("HTTP {code}: {}", excerpt(&text, 300)),
                retry_after,
            });
        }
        return Err(AttemptError::Fatal(LlmError::Rejected {
            status: code,
            body: excerpt(&text, 500),
        }));
    }
    // Some servers ignore `stream: true` and answer with one JSON body; accept that too.
    let is_json = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    if stream && !is_json {
        read_stream(resp).await
    } else {
        read_body(resp).await
    }
}

fn describe(e: &reqwest::Error) -> String {
    use std::error::Error;
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

async fn read_body(resp: reqwest::Response) -> Result<RawAnswer, AttemptError> {
    let text = resp.text().await.map_err(|e| AttemptError::Retryable {
        reason: format!("the answer was cut off: {}", describe(&e)),
        retry_after: None,
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        AttemptError::Fatal(LlmError::Malformed {
            detail: format!(
                "the endpoint's answer is not valid JSON ({e}); it starts: {}",
                excerpt(&text, 200)
            ),
        })
    })?;
    if let Some(err) = value.get("error").filter(|e| !e.is_null()) {
        return Err(AttemptError::Fatal(LlmError::Malformed {
            detail: format!(
                "the endpoint answered HTTP 200 with an error: {}",
                excerpt(&err.to_string(), 300)
            ),
        }));
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
    let mut decoder = SseDecoder::new();
    let mut chunks = 0usize;
    let mut bytes = resp.bytes_stream();
    loop {
        let (events, eof) = match bytes.next().await {
            Some(Ok(b)) => (decoder.push(&b), false),
            Some(Err(e)) => {
                return Err(AttemptError::Retryable {
                    reason: format!("the stream broke after {chunks} chunk(s): {}", describe(&e)),
                    retry_after: None,
                });
            }
            None => (decoder.finish().into_iter().collect::<Vec<_>>(), true),
        };
        for data in events {
            if data.trim() == "[DONE]" {
                return Ok(answer);
            }
            let chunk: Value = serde_json::from_str(&data).map_err(|e| {
                AttemptError::Fatal(LlmError::Malformed {
                    detail: format!(
                        "stream chunk {} is not valid JSON ({e}): {}",
                        chunks + 1,
                        excerpt(&data, 200)
                    ),
                })
            })?;
            chunks += 1;
            apply_chunk(&mut answer, &chunk)?;
        }
        if eof {
            // The connection closed without the `[DONE]` sentinel: the answer may be partial.
            return Err(AttemptError::Retryable {
                reason: format!("the stream was truncated: it ended after {chunks} chunk(s) without [DONE]"),
                retry_after: None,
            });
        }
    }
}

fn apply_chunk(answer: &mut RawAnswer, chunk: &Value) -> Result<(), AttemptError> {
    if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
        return Err(AttemptError::Fatal(LlmError::Malformed {
            detail: format!("the stream carried an error: {}", excerpt(&err.to_string(), 300)),
        }));
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
    AttemptError::Fatal(LlmError::Malformed {
        detail: detail.to_string(),
    })
}

/// Reads `{prompt_tokens, completion_tokens, cost?}`; missing numbers count as zero.
pub fn usage_of(usage: Option<&Value>) -> Usage {
    let n = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        prompt_tokens: n("prompt_tokens"),
        completion_tokens: n("completion_tokens"),
        cost_usd: usage.and_then(|u| u.get("cost")).and_then(Value::as_f64),
    }
}
