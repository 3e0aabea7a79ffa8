//! Scripted agent mode: cassette rules that match an agent's chat requests by content, not by
//! bytes, and answer with text or tool calls.
//!
//! Agent CLIs put volatile text (dates, paths, session ids) into every request, so the
//! model-server matches them with rules: `last_user_contains`, `system_contains`,
//! `has_tool_result`, `model` and `nth`. The first rule whose conditions hold wins. A rule
//! without `has_tool_result` only answers a request that does *not* end in tool results (a
//! fresh user turn or a title request); with it, only one whose trailing tool results include
//! that tool name or call id (`"*"` = any). Nothing here invents an answer: no match, no reply.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One rule: conditions and the answer to give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptRule {
    /// For logs and error messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) when: When,
    pub reply: Reply,
}

/// Conditions; every one given must hold.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct When {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) last_user_contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) system_contains: Option<String>,
    /// Tool name or call id among the trailing tool results; `"*"` for any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) has_tool_result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
    /// Answer only the k-th request (1-based) that satisfies the other conditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) nth: Option<u32>,
}

/// The scripted answer: text, tool calls, or both.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

/// One tool call the scripted model makes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// Defaults to `call_<rule>_<n>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// A JSON object (sent as its JSON text) or a string sent as is.
    #[serde(default)]
    pub arguments: Value,
}

/// The parts of a chat-completions request the rules look at.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestView {
    pub model: String,
    pub system: String,
    pub last_user: String,
    /// `(call id, tool name)` of the tool results at the end of the conversation.
    pub trailing_tool_results: Vec<(String, String)>,
    pub tools_offered: Vec<String>,
    pub stream: bool,
    pub include_usage: bool,
}

/// Text of a message `content`: a string or an array of `{type:"text", text}` parts.
pub fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Reads the rule-relevant parts of an OpenAI chat-completions request.
pub(crate) fn view(request: &Value) -> RequestView {
    let empty = Vec::new();
    let messages = request.get("messages").and_then(Value::as_array).unwrap_or(&empty);
    let role = |m: &Value| m.get("role").and_then(Value::as_str).unwrap_or("").to_string();
    let system = messages
        .iter()
        .filter(|m| matches!(role(m).as_str(), "system" | "developer"))
        .map(|m| content_text(m.get("content")))
        .collect::<Vec<_>>()
        .join("\n");
    let last_user = messages
        .iter()
        .rev()
        .find(|m| role(m) == "user")
        .map(|m| content_text(m.get("content")))
        .unwrap_or_default();
    let name_of = |id: &str| -> String {
        for m in messages.iter().filter(|m| role(m) == "assistant") {
            for c in m.get("tool_calls").and_then(Value::as_array).unwrap_or(&empty) {
                if c.get("id").and_then(Value::as_str) == Some(id) {
                    return c
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                }
            }
        }
        String::new()
    };
    let mut trailing = Vec::new();
    for m in messages.iter().rev() {
        if role(m) != "tool" {
            break;
        }
        let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("").to_string();
        let name = name_of(&id);
        trailing.push((id, name));
    }
    trailing.reverse();
    let tools_offered = request
        .get("tools")
        .and_then(Value::as_array)
        .unwrap_or(&empty)
        .iter()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str).map(str::to_string))
        .collect();
    RequestView {
        model: request.get("model").and_then(Value::as_str).unwrap_or("").to_string(),
        system,
        last_user,
        trailing_tool_results: trailing,
        tools_offered,
        stream: request.get("stream").and_then(Value::as_bool).unwrap_or(false),
        include_usage: request
            .pointer("/stream_options/include_usage")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

/// One line naming what was asked, for the unmatched-request error and the server log.
pub fn describe(v: &RequestView) -> String {
    let short = |s: &str, n: usize| super::openai_http::excerpt(&s.replace('\n', " "), n);
    let results: Vec<String> = v
        .trailing_tool_results
        .iter()
        .map(|(id, name)| format!("{name}#{id}"))
        .collect();
    format!(
        "model `{}`, last user message: \"{}\", system starts: \"{}\", trailing tool results: [{}], {} tool(s) offered",
        v.model,
        short(&v.last_user, 160),
        short(&v.system, 80),
        results.join(", "),
        v.tools_offered.len()
    )
}

fn holds(w: &When, v: &RequestView) -> bool {
    let contains = |hay: &str, needle: &Option<String>| needle.as_ref().is_none_or(|n| hay.contains(n.as_str()));
    let tool_ok = match w.has_tool_result.as_deref() {
        None => v.trailing_tool_results.is_empty(),
        Some("*") => !v.trailing_tool_results.is_empty(),
        Some(x) => v.trailing_tool_results.iter().any(|(id, name)| id == x || name == x),
    };
    tool_ok
        && contains(&v.last_user, &w.last_user_contains)
        && contains(&v.system, &w.system_contains)
        && w.model.as_ref().is_none_or(|m| *m == v.model)
}

/// Per-server rule state: how often each rule's conditions have held (for `nth`).
#[derive(Debug, Default)]
pub struct ScriptState {
    counts: Vec<u32>,
    served: u64,
}

impl ScriptState {
    /// Picks the first rule whose conditions hold (and whose `nth` is due); counts every holder.
    pub fn pick(&mut self, rules: &[ScriptRule], v: &RequestView) -> Option<usize> {
        self.counts.resize(rules.len(), 0);
        let mut chosen = None;
        for (i, rule) in rules.iter().enumerate() {
            if !holds(&rule.when, v) {
                continue;
            }
            self.counts[i] += 1;
            let due = rule.when.nth.is_none_or(|k| k == self.counts[i]);
            if due && chosen.is_none() {
                chosen = Some(i);
            }
        }
        if chosen.is_some() {
            self.served += 1;
        }
        chosen
    }

    /// How many requests were answered by a rule so far (names default tool-call ids).
    pub fn served(&self) -> u64 {
        self.served
    }
}

/// The assistant message for a reply, in chat-completions form (`tool_calls` with JSON-text
/// arguments); `serial` makes default call ids unique.
pub(crate) fn assistant_message(reply: &Reply, rule: usize, serial: u64) -> Value {
    let calls: Vec<Value> = reply
        .tool_calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let arguments = match &c.arguments {
                Value::String(s) => s.clone(),
                Value::Null => "{}".to_string(),
                other => other.to_string(),
            };
            json!({
                "id": c.id.clone().unwrap_or_else(|| format!("call_{rule}_{serial}_{i}")),
                "type": "function",
                "function": {"name": c.name, "arguments": arguments}
            })
        })
        .collect();
    let mut msg = json!({"role": "assistant", "content": reply.text.clone()});
    if !calls.is_empty() {
        msg["tool_calls"] = Value::Array(calls);
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Vec<ScriptRule> {
        serde_json::from_value(json!([
            {"when": {"system_contains": "title generator"}, "reply": {"text": "A title"}},
            {"when": {"last_user_contains": "list", "has_tool_result": "bash"}, "reply": {"text": "done"}},
            {"when": {"last_user_contains": "list"}, "reply": {"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]}},
            {"when": {"last_user_contains": "again", "nth": 2}, "reply": {"text": "second"}},
            {"when": {"last_user_contains": "again"}, "reply": {"text": "other"}}
        ]))
        .unwrap()
    }

    #[test]
    fn picks_by_content_tool_results_and_nth() {
        let r = rules();
        let mut st = ScriptState::default();
        let fresh = json!({"model":"m","messages":[{"role":"system","content":"You are helpful"},{"role":"user","content":[{"type":"text","text":"please list files"}]}]});
        assert_eq!(st.pick(&r, &view(&fresh)), Some(2));
        let cont = json!({"model":"m","messages":[{"role":"user","content":"please list files"},
            {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},
            {"role":"tool","tool_call_id":"c1","content":"a b"}]});
        let v = view(&cont);
        assert_eq!(v.trailing_tool_results, vec![("c1".to_string(), "bash".to_string())]);
        assert_eq!(st.pick(&r, &v), Some(1));
        let title = json!({"messages":[{"role":"system","content":"You are a title generator."},{"role":"user","content":"list files"}]});
        assert_eq!(st.pick(&r, &view(&title)), Some(0));
        let again = json!({"messages":[{"role":"user","content":"again"}]});
        assert_eq!(st.pick(&r, &view(&again)), Some(4));
        assert_eq!(st.pick(&r, &view(&again)), Some(3));
        assert_eq!(
            st.pick(&r, &view(&json!({"messages":[{"role":"user","content":"zzz"}]}))),
            None
        );
    }

    #[test]
    fn tool_call_message_has_json_text_arguments() {
        let reply = &rules()[2].reply;
        let m = assistant_message(reply, 2, 7);
        assert_eq!(m["tool_calls"][0]["function"]["arguments"], "{\"command\":\"ls\"}");
        assert_eq!(m["tool_calls"][0]["id"], "call_2_7_0");
        assert!(m["content"].is_null());
    }
}
