//! Server-sent events: incremental parsing of `data:` lines for streamed chat completions.
//!
//! The parser only splits events; it never interprets their JSON and never treats a stream
//! that stopped early as complete — callers check for the `[DONE]` sentinel themselves.

/// Incremental SSE decoder: feed bytes as they arrive, collect finished `data` payloads.
#[derive(Debug, Default)]
pub struct SseDecoder {
    buffer: Vec<u8>,
    data: Vec<String>,
}

impl SseDecoder {
    /// Creates an empty decoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds bytes and returns the data payloads of every event completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.buffer.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some(pos) = self.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=pos).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !self.data.is_empty() {
                    events.push(self.data.join("\n"));
                    self.data.clear();
                }
            } else if let Some(rest) = line.strip_prefix("data:") {
                self.data.push(rest.strip_prefix(' ').unwrap_or(rest).to_string());
            }
            // Comments (`:`), `event:`, `id:` and `retry:` lines carry nothing we use.
        }
        events
    }

    /// Ends the stream: returns a last event that was not followed by a blank line, if any.
    pub(crate) fn finish(&mut self) -> Option<String> {
        if !self.buffer.is_empty() {
            let rest = std::mem::take(&mut self.buffer);
            let rest = String::from_utf8_lossy(&rest);
            if let Some(d) = rest.trim_end().strip_prefix("data:") {
                self.data.push(d.trim_start().to_string());
            }
        }
        if self.data.is_empty() {
            None
        } else {
            let e = self.data.join("\n");
            self.data.clear();
            Some(e)
        }
    }
}

/// Formats one SSE event carrying `data`.
pub(crate) fn event(data: &str) -> String {
    format!("data: {data}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_events_across_arbitrary_chunk_boundaries() {
        let text = "data: {\"a\":1}\n\n: keepalive\n\ndata: [DONE]\n\n";
        for cut in 0..text.len() {
            let mut d = SseDecoder::new();
            let mut got = d.push(&text.as_bytes()[..cut]);
            got.extend(d.push(&text.as_bytes()[cut..]));
            assert_eq!(got, vec!["{\"a\":1}".to_string(), "[DONE]".to_string()], "cut at {cut}");
            assert_eq!(d.finish(), None);
        }
    }

    #[test]
    fn unterminated_last_event_is_returned_by_finish() {
        let mut d = SseDecoder::new();
        assert!(d.push(b"data: {\"x\":").is_empty());
        assert_eq!(d.finish().as_deref(), Some("{\"x\":"));
    }
}
