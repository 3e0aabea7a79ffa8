//! One line per event for people: the headless printer, the transcript pane and the lab's
//! transcript. The JSON form of an event is `events.rs`'s; this is only its rendering.

use super::events::{Envelope, RunEvent};

impl RunEvent {
    /// A one-line human rendering, used by the headless printer and the transcript pane.
    pub(crate) fn one_line(&self) -> String {
        match self {
            RunEvent::CaseStarted {
                persona,
                scenario,
                trial,
                ..
            } => format!("▶ {scenario} as {persona} (trial {trial})"),
            RunEvent::SandboxReady { role, backend, .. } => format!("  sandbox ready for {role:?} ({backend})"),
            RunEvent::SetupStep { name, exit_code, .. } => format!("  setup `{name}` → exit {exit_code}"),
            RunEvent::AgentHost { label, note } if note.is_empty() => format!("  agent host: {label}"),
            RunEvent::AgentHost { label, note } => format!("  agent host: {label} ({note})"),
            RunEvent::UserMessage { turn, text, .. } => format!("  [{turn}] user: {}", first_line(text)),
            RunEvent::AgentMessage { turn, text, .. } => format!("  [{turn}] agent: {}", first_line(text)),
            RunEvent::CommandsSeen { turn, commands, missed } => {
                format!("  [{turn}] {} program(s) started, {missed} not kept", commands.len())
            }
            RunEvent::ToolCall {
                turn,
                tool,
                status,
                latency_ms,
                ..
            } => format!("  [{turn}] tool {tool} {status:?} ({latency_ms} ms)"),
            RunEvent::UserRefusal { turn, about } => format!("  [{turn}] user refused: {}", first_line(about)),
            RunEvent::UserConfirmation { turn, about } => {
                format!("  [{turn}] user confirmed: {}", first_line(about))
            }
            RunEvent::EgressDenied { host, port, .. } => format!("  ✗ egress denied: {host}:{port}"),
            RunEvent::ModelCall {
                role,
                model,
                latency_ms,
                ..
            } => format!("  model call {role:?} {model} ({latency_ms} ms)"),
            RunEvent::EmulatorBreak { kind, .. } => format!("  ! user emulator broke character: {kind}"),
            RunEvent::InfraError { component, reason } => format!("  ! infrastructure error in {component}: {reason}"),
            RunEvent::Stopped { reason, detail } if detail.is_empty() => format!("  ■ stopped: {}", reason.describe()),
            RunEvent::Stopped { reason, detail } => format!("  ■ stopped: {} ({detail})", reason.describe()),
            RunEvent::CaseFinished { verdict, duration_ms } => {
                format!("  = {} in {:.1} s", verdict.as_str(), *duration_ms as f64 / 1000.0)
            }
            RunEvent::TurnTiming {
                turn,
                user_ms,
                agent_ms,
                tools_ms,
                start_ms,
            } => {
                let start = if *start_ms > 0 {
                    format!(", start {start_ms} ms")
                } else {
                    String::new()
                };
                format!("  [{turn}] time: user {user_ms} ms, agent {agent_ms} ms (tools {tools_ms} ms{start})")
            }
            RunEvent::CaseTiming {
                sandbox_ms,
                setup_ms,
                judge_ms,
            } => format!("  time: sandbox {sandbox_ms} ms, setup {setup_ms} ms, judge {judge_ms} ms"),
        }
    }
}

impl Envelope {
    /// `<case> <event>`: one line of the lab's transcript.
    pub fn transcript_line(&self) -> String {
        format!("{} {}", self.case, self.event.one_line().trim_start())
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > 100 {
        format!("{}…", line.chars().take(100).collect::<String>())
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trial::events::StopReason;

    #[test]
    fn a_long_or_many_line_text_shows_its_first_line_cut_at_100_characters() {
        let long = format!("{}\nsecond line", "é".repeat(130));
        let line = RunEvent::UserMessage {
            turn: 2,
            text: long,
            latency_ms: 0,
        }
        .one_line();
        assert_eq!(line, format!("  [2] user: {}…", "é".repeat(100)));
        assert_eq!(first_line("short\nmore"), "short");
        assert_eq!(first_line(&"x".repeat(100)), "x".repeat(100), "exactly 100 is not cut");
        assert_eq!(first_line(""), "");
    }

    #[test]
    fn optional_parts_are_shown_only_when_present() {
        let timing = |start_ms| RunEvent::TurnTiming {
            turn: 1,
            user_ms: 5,
            agent_ms: 900,
            tools_ms: 40,
            start_ms,
        };
        assert_eq!(
            timing(0).one_line(),
            "  [1] time: user 5 ms, agent 900 ms (tools 40 ms)"
        );
        assert_eq!(
            timing(300).one_line(),
            "  [1] time: user 5 ms, agent 900 ms (tools 40 ms, start 300 ms)"
        );
        let stopped = |detail: &str| RunEvent::Stopped {
            reason: StopReason::MaxTurns,
            detail: detail.into(),
        };
        assert_eq!(stopped("").one_line(), "  ■ stopped: the turn limit was reached");
        assert_eq!(
            stopped("8 turns").one_line(),
            "  ■ stopped: the turn limit was reached (8 turns)"
        );
    }

    #[test]
    fn a_transcript_line_names_the_case_without_the_indent() {
        let envelope = Envelope {
            v: crate::trial::EVENTS_VERSION,
            seq: 3,
            ts: chrono::Utc::now(),
            case: "release__p1".into(),
            trial: 1,
            event: RunEvent::EgressDenied {
                host: "registry.npmjs.org".into(),
                port: 443,
                at: chrono::Utc::now(),
            },
        };
        assert_eq!(
            envelope.transcript_line(),
            "release__p1 ✗ egress denied: registry.npmjs.org:443"
        );
    }
}
