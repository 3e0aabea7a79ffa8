//! Legacy HTTP+SSE client transport (MCP 2024-11-05): a GET event stream that first names the
//! POST endpoint, then carries every server message; client messages are POSTed one by one.
//!
//! rmcp 3.11 ships no client for it, so this bridges the two HTTP legs onto the line-based
//! reader/writer pair rmcp already speaks over. Header values are never logged or echoed.

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::task::{AbortHandle, JoinHandle};

/// Why the SSE legs failed, for error messages.
#[derive(Debug, Clone, Default)]
pub(crate) struct SseDiag(Arc<Mutex<Option<String>>>);

impl SseDiag {
    fn set(&self, reason: String) {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if g.is_none() {
            *g = Some(reason);
        }
    }

    /// The first failure seen, if any.
    pub(crate) fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Keeps both HTTP legs alive; dropping it stops them.
pub(crate) struct SseSession {
    tasks: Vec<JoinHandle<()>>,
    pub(crate) diag: SseDiag,
}

impl Drop for SseSession {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// One parsed server-sent event.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Event {
    pub(crate) event: String,
    pub(crate) data: String,
}

/// Incremental `text/event-stream` parser.
#[derive(Debug, Default)]
pub(crate) struct EventParser {
    buf: String,
    event: String,
    data: Vec<String>,
}

impl EventParser {
    /// Feeds bytes; returns the events completed by them.
    pub(crate) fn push(&mut self, chunk: &str) -> Vec<Event> {
        self.buf.push_str(chunk);
        let mut out = Vec::new();
        while let Some(i) = self.buf.find('\n') {
            let line: String = self.buf.drain(..=i).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !self.data.is_empty() {
                    let event = if self.event.is_empty() {
                        "message".to_string()
                    } else {
                        std::mem::take(&mut self.event)
                    };
                    out.push(Event {
                        event,
                        data: std::mem::take(&mut self.data).join("\n"),
                    });
                }
                self.event.clear();
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => self.event = value.to_string(),
                "data" => self.data.push(value.to_string()),
                _ => {}
            }
        }
        out
    }
}

/// Why an SSE server's event stream could not be opened (each names the URL).
#[derive(Debug, thiserror::Error)]
pub(crate) enum SseOpenError {
    /// `reason`: the URL parser's words (its error type is not a dependency of ours).
    #[error("{url} is not a valid URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("cannot build an HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    #[error("GET {url} failed: {source}")]
    Get {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("GET {url} answered {status}")]
    Status { url: String, status: reqwest::StatusCode },
    #[error("event stream of {url} failed: {source}")]
    Stream {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("event stream of {url} ended before its `endpoint` event")]
    NoEndpoint { url: String },
    #[error("bad `endpoint` event from {url}: {reason}")]
    BadEndpoint { url: String, reason: String },
}

/// Opens the event stream, waits for the `endpoint` event, and returns the (reader, writer)
/// pair for rmcp. The caller bounds this with its startup timeout.
pub(crate) async fn open(
    url: &str,
    headers: HashMap<HeaderName, HeaderValue>,
) -> Result<(DuplexStream, DuplexStream, SseSession), SseOpenError> {
    let base = reqwest::Url::parse(url).map_err(|e| SseOpenError::BadUrl {
        url: url.to_string(),
        reason: e.to_string(),
    })?;
    let mut defaults = HeaderMap::new();
    defaults.extend(headers);
    let client = crate::util::tls::http_client_builder()
        .default_headers(defaults)
        .build()
        .map_err(SseOpenError::Client)?;
    let resp = get_event_stream(&client, &base, url).await?;
    let stream = wait_for_endpoint(resp, &base, url).await?;

    let diag = SseDiag::default();
    let (rmcp_in, to_rmcp) = tokio::io::duplex(1 << 16);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 16);
    let endpoint = stream.endpoint.clone();
    let reader = tokio::spawn(read_leg(stream, to_rmcp, diag.clone()));
    let stop_reader = reader.abort_handle();
    let writer = tokio::spawn(write_leg(client, endpoint, from_rmcp, stop_reader, diag.clone()));
    Ok((
        rmcp_in,
        rmcp_out,
        SseSession {
            tasks: vec![reader, writer],
            diag,
        },
    ))
}

/// The GET leg, answered with a success status.
async fn get_event_stream(
    client: &reqwest::Client,
    base: &reqwest::Url,
    url: &str,
) -> Result<reqwest::Response, SseOpenError> {
    let resp = client
        .get(base.clone())
        .header(ACCEPT, "text/event-stream")
        .send()
        .await
        .map_err(|source| SseOpenError::Get {
            url: url.to_string(),
            source,
        })?;
    if !resp.status().is_success() {
        return Err(SseOpenError::Status {
            url: url.to_string(),
            status: resp.status(),
        });
    }
    Ok(resp)
}

/// An event stream past its `endpoint` event: the events that came before or with it are
/// kept so none is lost.
struct OpenStream {
    resp: reqwest::Response,
    parser: EventParser,
    early: Vec<Event>,
    /// Where client messages are POSTed (the `endpoint` data, resolved against the GET URL).
    endpoint: reqwest::Url,
}

/// Reads the stream until its first `endpoint` event.
async fn wait_for_endpoint(
    mut resp: reqwest::Response,
    base: &reqwest::Url,
    url: &str,
) -> Result<OpenStream, SseOpenError> {
    let mut parser = EventParser::default();
    let mut early: Vec<Event> = Vec::new();
    loop {
        let chunk = resp
            .chunk()
            .await
            .map_err(|source| SseOpenError::Stream {
                url: url.to_string(),
                source,
            })?
            .ok_or_else(|| SseOpenError::NoEndpoint { url: url.to_string() })?;
        let mut found = None;
        for ev in parser.push(&String::from_utf8_lossy(&chunk)) {
            if ev.event == "endpoint" && found.is_none() {
                found = Some(ev.data);
            } else {
                early.push(ev);
            }
        }
        if let Some(e) = found {
            let endpoint = base.join(e.trim()).map_err(|e| SseOpenError::BadEndpoint {
                url: url.to_string(),
                reason: e.to_string(),
            })?;
            return Ok(OpenStream {
                resp,
                parser,
                early,
                endpoint,
            });
        }
    }
}

/// Server → rmcp: each `message` event becomes one line; the end of the stream is recorded.
async fn read_leg(stream: OpenStream, mut to_rmcp: DuplexStream, diag: SseDiag) {
    let OpenStream {
        mut resp,
        mut parser,
        early,
        ..
    } = stream;
    let mut pending = early;
    loop {
        for ev in pending.drain(..) {
            if ev.event == "message" {
                // JSON allows whitespace for the newlines a multi-line data field had.
                let line = ev.data.replace(['\n', '\r'], " ");
                if to_rmcp.write_all(line.as_bytes()).await.is_err() || to_rmcp.write_all(b"\n").await.is_err() {
                    return;
                }
            }
        }
        match resp.chunk().await {
            Ok(Some(chunk)) => pending = parser.push(&String::from_utf8_lossy(&chunk)),
            Ok(None) => {
                diag.set("the server closed its event stream".into());
                break;
            }
            Err(e) => {
                diag.set(format!("the event stream failed: {e}"));
                break;
            }
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// rmcp → server: each line is POSTed; the first failed POST ends both legs.
async fn write_leg(
    client: reqwest::Client,
    endpoint: reqwest::Url,
    from_rmcp: DuplexStream,
    stop_reader: AbortHandle,
    diag: SseDiag,
) {
    let mut lines = BufReader::new(from_rmcp).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let sent = client
            .post(endpoint.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(line)
            .send()
            .await;
        let failure = match sent {
            Ok(r) if r.status().is_success() => None,
            Ok(r) => Some(format!("POST to the message endpoint answered {}", r.status())),
            Err(e) => Some(format!("POST to the message endpoint failed: {e}")),
        };
        if let Some(reason) = failure {
            diag.set(reason);
            // Ending the read leg makes rmcp see a closed connection at once.
            stop_reader.abort();
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_events_across_chunks() {
        let mut p = EventParser::default();
        assert!(p.push("event: endpoint\ndata: /message?sess").is_empty());
        let evs = p.push("ionId=1\n\n: keep-alive\n\ndata: {\"a\":\ndata: 1}\r\n\r\n");
        assert_eq!(
            evs,
            vec![
                Event {
                    event: "endpoint".into(),
                    data: "/message?sessionId=1".into()
                },
                Event {
                    event: "message".into(),
                    data: "{\"a\":\n1}".into()
                },
            ]
        );
    }
}
