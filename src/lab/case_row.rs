//! One row of the run dashboard's case table: a fixed-size summary of one trial (who, which
//! scenario, how far, its verdict and counters) folded from its events. Its transcript is never
//! kept here (`focus_transcript` holds the focused trial's).

use chrono::{DateTime, Utc};

use super::focus_transcript::shown;
use crate::trial::Verdict;
use crate::trial::{Envelope, RunEvent, ToolStatus};

/// One trial in the case table: a summary, never its transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRow {
    pub(crate) case: String,
    /// 1-based; 0 while unknown (an old log before its `case_started`).
    pub(crate) trial: u32,
    pub(crate) persona: String,
    pub scenario: String,
    pub(crate) turn: u32,
    pub(crate) max_turns: u32,
    /// `None` while it runs.
    pub verdict: Option<Verdict>,
    pub(crate) duration_ms: Option<u64>,
    pub(crate) started: Option<DateTime<Utc>>,
    pub(crate) last: Option<DateTime<Utc>>,
    /// Its `case_started` arrived.
    pub(crate) announced: bool,
    /// Transcript events so far (model calls not counted).
    pub(crate) events: u32,
    pub(crate) tool_calls: u32,
    /// Denied tool calls and egress, emulator breaks, infrastructure errors.
    pub(crate) flags: u32,
}

impl CaseRow {
    pub(super) fn new(case: &str, trial: u32, ts: DateTime<Utc>) -> Self {
        CaseRow {
            case: case.to_string(),
            trial,
            persona: String::new(),
            scenario: String::new(),
            turn: 0,
            max_turns: 0,
            verdict: None,
            duration_ms: None,
            started: Some(ts),
            last: None,
            announced: false,
            events: 0,
            tool_calls: 0,
            flags: 0,
        }
    }

    /// Milliseconds from its first to its last event (or its stated duration once finished).
    pub(crate) fn duration(&self) -> Option<u64> {
        self.duration_ms.or_else(|| match (self.started, self.last) {
            (Some(a), Some(b)) => Some((b - a).num_milliseconds().max(0) as u64),
            _ => None,
        })
    }

    /// Folds one of its events into the summary.
    pub(super) fn fold(&mut self, env: &Envelope) {
        self.last = Some(env.ts);
        match &env.event {
            RunEvent::CaseStarted {
                persona,
                scenario,
                trial,
                max_turns,
            } => {
                (self.persona, self.scenario) = (persona.clone(), scenario.clone());
                self.max_turns = *max_turns;
                if self.trial == 0 {
                    self.trial = *trial;
                }
                self.announced = true;
            }
            RunEvent::ToolCall { turn, status, .. } => {
                self.turn = self.turn.max(*turn);
                self.tool_calls += 1;
                self.flags += u32::from(*status == ToolStatus::DeniedByHost);
            }
            RunEvent::EmulatorBreak { turn, .. } => {
                self.turn = self.turn.max(*turn);
                self.flags += 1;
            }
            RunEvent::UserMessage { turn, .. }
            | RunEvent::AgentMessage { turn, .. }
            | RunEvent::UserRefusal { turn, .. } => self.turn = self.turn.max(*turn),
            RunEvent::EgressDenied { .. } | RunEvent::InfraError { .. } => self.flags += 1,
            RunEvent::CaseFinished { verdict, duration_ms } => {
                self.verdict = Some(*verdict);
                self.duration_ms = Some(*duration_ms);
            }
            _ => {}
        }
        self.events += u32::from(shown(&env.event));
    }
}
