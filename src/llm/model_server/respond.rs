//! Builds chat-completions answers in both shapes: one JSON body, or SSE chunks ending in
//! `data: [DONE]` (with a usage chunk when `stream_options.include_usage` was asked for).
//!
//! Token counts here are estimates (about four characters per token): the server is a fake
//! model and says so in its `system_fingerprint`.

use serde_json::{Value, json};

use crate::llm::sse::event;

/// An answer ready to be encoded.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) id: String,
    pub(crate) model: String,
    /// The assistant message (`content` and optional `tool_calls`).
    pub(crate) message: Value,
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
}

impl Answer {
    fn finish_reason(&self) -> &'static str {
        if self.message.get("tool_calls").is_some() {
            "tool_calls"
        } else {
            "stop"
        }
    }

    fn usage(&self) -> Value {
        json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens
        })
    }

    fn envelope(&self, object: &str) -> Value {
        json!({
            "id": self.id,
            "object": object,
            "created": chrono::Utc::now().timestamp(),
            "model": self.model,
            "system_fingerprint": "ghostlab-fake-model-server",
        })
    }

    /// The non-streaming `chat.completion` body.
    pub(crate) fn to_json(&self) -> Value {
        let mut v = self.envelope("chat.completion");
        v["choices"] = json!([{"index": 0, "message": self.message, "finish_reason": self.finish_reason()}]);
        v["usage"] = self.usage();
        v
    }

    /// The whole SSE body of a streamed answer.
    pub(crate) fn to_sse(&self, include_usage: bool) -> String {
        let mut out = String::new();
        let mut chunk = |delta: Value, finish: Option<&str>| {
            let mut c = self.envelope("chat.completion.chunk");
            c["choices"] = json!([{"index": 0, "delta": delta, "finish_reason": finish}]);
            out.push_str(&event(&c.to_string()));
        };
        chunk(json!({"role": "assistant", "content": ""}), None);
        if let Some(text) = self.message.get("content").and_then(Value::as_str) {
            for piece in split_text(text, 3) {
                chunk(json!({"content": piece}), None);
            }
        }
        if let Some(calls) = self.message.get("tool_calls").and_then(Value::as_array) {
            for (i, call) in calls.iter().enumerate() {
                chunk(
                    json!({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                        "function": {"name": call["function"]["name"], "arguments": ""}}]}),
                    None,
                );
                let args = call["function"]["arguments"].as_str().unwrap_or("{}");
                for piece in split_text(args, 2) {
                    chunk(
                        json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
                        None,
                    );
                }
            }
        }
        chunk(json!({}), Some(self.finish_reason()));
        if include_usage {
            let mut u = self.envelope("chat.completion.chunk");
            u["choices"] = json!([]);
            u["usage"] = self.usage();
            out.push_str(&event(&u.to_string()));
        }
        out.push_str(&event("[DONE]"));
        out
    }
}

/// Splits text into at most `parts` pieces on character boundaries (all pieces non-empty).
pub(crate) fn split_text(text: &str, parts: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let size = chars.len().div_ceil(parts.max(1));
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// About four characters per token.
pub(crate) fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// An OpenAI-style error body.
pub(crate) fn error_body(message: &str, kind: &str) -> Value {
    json!({"error": {"message": message, "type": kind, "code": kind}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_reassembles_to_the_same_message() {
        let a = Answer {
            id: "x".into(),
            model: "m".into(),
            message: json!({"role":"assistant","content":"héllo wörld","tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}),
            prompt_tokens: 3,
            completion_tokens: 4,
        };
        let sse = a.to_sse(true);
        assert!(sse.ends_with("data: [DONE]\n\n"));
        let mut text = String::new();
        let mut args = String::new();
        let mut usage_seen = false;
        for line in sse.lines().filter_map(|l| l.strip_prefix("data: ")) {
            if line == "[DONE]" {
                continue;
            }
            let v: Value = serde_json::from_str(line).unwrap();
            if v["usage"].is_object() {
                usage_seen = true;
            }
            if let Some(t) = v.pointer("/choices/0/delta/content").and_then(Value::as_str) {
                text.push_str(t);
            }
            if let Some(t) = v
                .pointer("/choices/0/delta/tool_calls/0/function/arguments")
                .and_then(Value::as_str)
            {
                args.push_str(t);
            }
        }
        assert_eq!(text, "héllo wörld");
        assert_eq!(args, "{\"command\":\"ls\"}");
        assert!(usage_seen);
    }
}
