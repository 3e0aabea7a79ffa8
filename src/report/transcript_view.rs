//! One transcript entry as every report format prints it: who spoke (or which tool ran), the
//! facts beside it (status, latency, tokens) and what it said. Markdown, HTML and PDF differ
//! only in markup and separators, so what an entry shows is decided here once (#34): a fact
//! added or dropped here changes all three alike.

use super::model::Entry;

/// Who an entry is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Who<'a> {
    User,
    Agent,
    /// A tool call, by the tool's name.
    Tool(&'a str),
    /// Sandbox, setup, refusals, denials, breaks, infrastructure errors, stop reason.
    Note,
}

impl Who<'_> {
    /// `user`, `agent`, `tool`, `note`: the word a heading and a CSS class use.
    pub(crate) fn word(&self) -> &'static str {
        match self {
            Who::User => "user",
            Who::Agent => "agent",
            Who::Tool(_) => "tool",
            Who::Note => "note",
        }
    }
}

/// What an entry says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body<'a> {
    /// A message (user or agent) or a note.
    Text(&'a str),
    /// A tool call: what was sent and what came back.
    Call { arguments: &'a str, result: &'a str },
}

/// One entry, ready to format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryView<'a> {
    /// The event's number in the trial (`e12`), also its anchor.
    pub(crate) seq: u64,
    pub(crate) turn: Option<u32>,
    pub(crate) who: Who<'a>,
    /// Beside the heading, in order: a tool's status, the latency, an agent's tokens.
    pub(crate) facts: Vec<String>,
    pub(crate) body: Body<'a>,
}

impl EntryView<'_> {
    /// `e12 · turn 3 · user`: the heading's fixed part (a note has no turn and no speaker).
    pub(crate) fn lead(&self, who: &str) -> String {
        match (self.who, self.turn) {
            (Who::Note, _) => format!("e{}", self.seq),
            (_, Some(turn)) => format!("e{} · turn {turn} · {who}", self.seq),
            (_, None) => format!("e{} · {who}", self.seq),
        }
    }
}

/// The view of `e`.
pub(crate) fn entry_view(e: &Entry) -> EntryView<'_> {
    match e {
        Entry::User {
            seq,
            turn,
            text,
            latency_ms,
        } => EntryView {
            seq: *seq,
            turn: Some(*turn),
            who: Who::User,
            facts: vec![format!("{latency_ms} ms")],
            body: Body::Text(text),
        },
        Entry::Agent {
            seq,
            turn,
            text,
            latency_ms,
            tokens,
        } => EntryView {
            seq: *seq,
            turn: Some(*turn),
            who: Who::Agent,
            facts: vec![format!("{latency_ms} ms"), format!("{tokens} tokens")],
            body: Body::Text(text),
        },
        Entry::Tool(c) => EntryView {
            seq: c.seq,
            turn: Some(c.turn),
            who: Who::Tool(&c.tool),
            facts: vec![c.status.clone(), format!("{} ms", c.latency_ms)],
            body: Body::Call {
                arguments: &c.arguments,
                result: &c.result,
            },
        },
        Entry::Note { seq, turn, text } => EntryView {
            seq: *seq,
            turn: *turn,
            who: Who::Note,
            facts: Vec::new(),
            body: Body::Text(text),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::ToolCall;

    #[test]
    fn each_kind_of_entry_has_its_speaker_facts_and_body() {
        let user = Entry::User {
            seq: 3,
            turn: 1,
            text: "hi".into(),
            latency_ms: 5,
        };
        let v = entry_view(&user);
        assert_eq!(
            (v.who, v.facts.clone(), v.body),
            (Who::User, vec!["5 ms".to_string()], Body::Text("hi"))
        );
        assert_eq!(v.lead(v.who.word()), "e3 · turn 1 · user");
        let agent = Entry::Agent {
            seq: 4,
            turn: 1,
            text: "ok".into(),
            latency_ms: 900,
            tokens: 350,
        };
        assert_eq!(entry_view(&agent).facts, ["900 ms", "350 tokens"]);
        let tool = Entry::Tool(ToolCall {
            seq: 5,
            turn: 2,
            tool: "release_publish".into(),
            status: "Completed".into(),
            arguments: "{}".into(),
            result: "done".into(),
            latency_ms: 40,
        });
        let v = entry_view(&tool);
        assert_eq!(v.who, Who::Tool("release_publish"));
        assert_eq!(v.facts, ["Completed", "40 ms"]);
        assert_eq!(
            v.body,
            Body::Call {
                arguments: "{}",
                result: "done"
            }
        );
        let note = Entry::Note {
            seq: 9,
            turn: None,
            text: "sandbox ready".into(),
        };
        let v = entry_view(&note);
        assert_eq!((v.lead("note"), v.facts.len()), ("e9".to_string(), 0));
    }

    fn entries() -> Vec<Entry> {
        vec![
            Entry::User {
                seq: 3,
                turn: 1,
                text: "tag <it>".into(),
                latency_ms: 5,
            },
            Entry::Agent {
                seq: 4,
                turn: 1,
                text: "two\nlines".into(),
                latency_ms: 900,
                tokens: 350,
            },
            Entry::Tool(ToolCall {
                seq: 5,
                turn: 2,
                tool: "release_publish".into(),
                status: "DeniedByHost".into(),
                arguments: "{\"ref\": \"main\"}".into(),
                result: "no & never".into(),
                latency_ms: 40,
            }),
            Entry::Note {
                seq: 9,
                turn: None,
                text: "sandbox ready".into(),
            },
        ]
    }

    /// The HTML and Markdown of each kind of entry, exactly as the renderers printed them
    /// before they shared this view.
    #[test]
    fn html_and_markdown_print_each_entry_as_before() {
        let mut html = String::new();
        let mut md = String::new();
        for e in &entries() {
            crate::report::html::entry(&mut html, "t1", &entry_view(e));
            crate::report::markdown::entry(&mut md, &entry_view(e));
        }
        assert_eq!(
            html,
            "<div class=\"turn user\" id=\"t1-e3\"><div class=\"who\">e3 · turn 1 · user · 5 ms</div><div class=\"msg\">tag &lt;it&gt;</div></div>\n\
             <div class=\"turn agent\" id=\"t1-e4\"><div class=\"who\">e4 · turn 1 · agent · 900 ms · 350 tokens</div><div class=\"msg\">two\nlines</div></div>\n\
             <div class=\"turn tool\" id=\"t1-e5\"><div class=\"who\">e5 · turn 2 · tool <code>release_publish</code> · DeniedByHost · 40 ms</div><div class=\"lbl\">arguments</div><pre>{&quot;ref&quot;: &quot;main&quot;}</pre><div class=\"lbl\">result</div><pre>no &amp; never</pre></div>\n\
             <div class=\"turn note\" id=\"t1-e9\">e9 · sandbox ready</div>\n"
        );
        assert_eq!(
            md,
            "**[e3] turn 1 · user** (5 ms)\n\n> tag &lt;it&gt;\n\n\
             **[e4] turn 1 · agent** (900 ms, 350 tokens)\n\n> two\n> lines\n\n\
             **[e5] turn 2 · tool `release_publish`** — DeniedByHost, 40 ms\n\n\
             Arguments:\n\n```json\n{\"ref\": \"main\"}\n```\n\n\
             Result:\n\n```text\nno & never\n```\n\n\
             *[e9] sandbox ready*\n\n"
        );
    }
}
