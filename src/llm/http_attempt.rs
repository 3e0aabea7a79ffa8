//! What one HTTP attempt of a role's provider shares across wire formats (OpenAI chat,
//! Anthropic Messages): the answer and failure types, the POST with its status rules (429, 408
//! and 5xx are worth a retry, other statuses are a rejection), and the SSE reading loop that
//! tells a finished stream from a cut one. Never retries itself (`retry` does).

use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;

use super::sse::SseDecoder;
use super::{LlmError, Usage};

/// What one successful attempt produced.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawAnswer {
    pub(crate) content: String,
    pub(crate) model: Option<String>,
    pub(crate) usage: Usage,
    pub(crate) finish_reason: Option<String>,
}

/// Why one attempt failed.
#[derive(Debug)]
pub(crate) enum AttemptError {
    /// Worth another try (429, 5xx, reset, cut stream); `retry_after` from the server if given.
    Retryable {
        reason: String,
        retry_after: Option<Duration>,
    },
    /// Retrying would not help.
    Fatal(LlmError),
}

impl AttemptError {
    /// A transient failure without a server hint.
    pub(crate) fn retry(reason: String) -> Self {
        AttemptError::Retryable {
            reason,
            retry_after: None,
        }
    }

    /// An answer that cannot be used.
    pub(crate) fn malformed(detail: impl Into<String>) -> Self {
        AttemptError::Fatal(LlmError::Malformed { detail: detail.into() })
    }
}

/// Keeps error bodies short in messages.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let t = text.trim();
    if t.chars().count() <= max {
        t.to_string()
    } else {
        let cut: String = t.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// An error with its chain of causes (reqwest hides the useful part in `source()`).
pub(crate) fn describe(e: &reqwest::Error) -> String {
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

/// POSTs `body` with `headers` (already resolved); a response with a success status, or the
/// attempt's failure: unreachable, 429/408/5xx (Anthropic's 529 "overloaded" included) are
/// retryable with the server's `Retry-After`, any other status is a rejection.
pub(crate) async fn post(
    client: &reqwest::Client,
    url: &str,
    headers: &reqwest::header::HeaderMap,
    body: &Value,
) -> Result<reqwest::Response, AttemptError> {
    let resp = client
        .post(url)
        .headers(headers.clone())
        .json(body)
        .send()
        .await
        .map_err(|e| AttemptError::retry(format!("cannot reach {url}: {}", describe(&e))))?;
    let status = resp.status();
    if status.is_success() {
        return Ok(resp);
    }
    let retry_after = parse_retry_after(
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
    Err(AttemptError::Fatal(LlmError::Rejected {
        status: code,
        body: excerpt(&text, 500),
    }))
}

/// Whether the response is one JSON body (some servers ignore `stream: true`).
pub(crate) fn is_json(resp: &reqwest::Response) -> bool {
    resp.headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"))
}

/// The whole body as JSON; a body cut off is retryable, one that is not JSON is not.
pub(crate) async fn read_json(resp: reqwest::Response) -> Result<Value, AttemptError> {
    let text = resp
        .text()
        .await
        .map_err(|e| AttemptError::retry(format!("the answer was cut off: {}", describe(&e))))?;
    serde_json::from_str(&text).map_err(|e| {
        AttemptError::malformed(format!(
            "the endpoint's answer is not valid JSON ({e}); it starts: {}",
            excerpt(&text, 200)
        ))
    })
}

/// Reads an SSE stream, handing each event's data with its 1-based number to `on_event`,
/// until `on_event` says the answer is complete (`Ok(true)`). A broken connection, or one that
/// closes before that (`end` names the missing marker), is a retryable failure: a partial
/// answer is never an answer. `unit` names the events in messages ("chunk", "event").
pub(crate) async fn read_sse(
    resp: reqwest::Response,
    unit: &str,
    end: &str,
    mut on_event: impl FnMut(&str, usize) -> Result<bool, AttemptError>,
) -> Result<(), AttemptError> {
    let mut decoder = SseDecoder::new();
    let mut done = 0usize;
    let mut bytes = resp.bytes_stream();
    loop {
        let (batch, eof) = match bytes.next().await {
            Some(Ok(b)) => (decoder.push(&b), false),
            Some(Err(e)) => {
                return Err(AttemptError::retry(format!(
                    "the stream broke after {done} {unit}(s): {}",
                    describe(&e)
                )));
            }
            None => (decoder.finish().into_iter().collect::<Vec<_>>(), true),
        };
        for data in batch {
            if on_event(&data, done + 1)? {
                return Ok(());
            }
            done += 1;
        }
        if eof {
            return Err(AttemptError::retry(format!(
                "the stream was truncated: it ended after {done} {unit}(s) without {end}"
            )));
        }
    }
}

/// Parses an HTTP `Retry-After` header given in seconds (dates are ignored: rare for APIs).
pub(crate) fn parse_retry_after(value: Option<&str>) -> Option<Duration> {
    let secs: f64 = value?.trim().parse().ok()?;
    if secs.is_finite() && secs >= 0.0 {
        Some(Duration::from_secs_f64(secs))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_parses_seconds_only() {
        assert_eq!(parse_retry_after(Some(" 2 ")), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(parse_retry_after(None), None);
    }
}
