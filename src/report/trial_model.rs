//! One trial in the report model: who and what ran, its verdict, the transcript as entries
//! (already redacted and truncated), the judge's criteria and the deterministic checks.

use serde::Serialize;

use crate::judge::Verdict;

/// One trial of one case.
#[derive(Debug, Clone, Serialize)]
pub struct TrialReport {
    pub case_id: String,
    pub trial: u32,
    /// Unique per report; anchors are `<anchor>-e<seq>`.
    pub anchor: String,
    pub persona: String,
    pub scenario_id: String,
    pub scenario: String,
    pub goal: String,
    pub verdict: Option<Verdict>,
    pub reasons: Vec<String>,
    pub judge: String,
    pub duration_ms: u64,
    pub entries: Vec<Entry>,
    pub criteria: Vec<CriterionRow>,
    pub checks: Vec<CheckRow>,
    /// What the harness observed, as (fact, value) rows (`observed_rows`).
    pub observed: Vec<(String, String)>,
    pub tokens: u64,
    /// The known part of the cost (`usage` says whether some of it is unknown).
    pub cost_usd: f64,
    /// Tokens and cost per role (`trial::Usage`, the figures of the summary and JUnit).
    pub usage: crate::trial::Usage,
    /// Why some artifacts of this trial could not be read.
    pub problems: Vec<String>,
    /// Where the trial's time went (`None` for runs recorded without timing events).
    pub timing: Option<super::timing::Timing>,
}

impl TrialReport {
    /// The turn an event id like `e7` belongs to, when that event exists.
    pub fn turn_of(&self, event_id: &str) -> Option<u32> {
        let seq: u64 = event_id.strip_prefix('e')?.parse().ok()?;
        self.entries.iter().find(|e| e.seq() == seq).and_then(Entry::turn)
    }

    /// Whether an entry with this event id exists (so a link has a target).
    pub fn has_event(&self, event_id: &str) -> bool {
        let Some(seq) = event_id.strip_prefix('e').and_then(|s| s.parse::<u64>().ok()) else {
            return false;
        };
        self.entries.iter().any(|e| e.seq() == seq)
    }

    pub fn title(&self) -> String {
        format!("{} · trial {}", self.case_id, self.trial)
    }

    /// Persona, scenario, goal and spend in one line.
    pub fn meta_line(&self) -> String {
        format!(
            "Persona {} · scenario {} · goal: {} · {} tokens · {}",
            self.persona,
            self.scenario,
            self.goal,
            self.tokens,
            self.usage.cost_line()
        )
    }
}

/// One line of the transcript.
#[derive(Debug, Clone, Serialize)]
pub enum Entry {
    User {
        seq: u64,
        turn: u32,
        text: String,
        latency_ms: u64,
    },
    Agent {
        seq: u64,
        turn: u32,
        text: String,
        latency_ms: u64,
        tokens: u64,
    },
    Tool(ToolCall),
    /// Sandbox, setup, refusals, denials, breaks, infrastructure errors, stop reason.
    Note {
        seq: u64,
        turn: Option<u32>,
        text: String,
    },
}

/// One tool call of the transcript (texts already redacted and truncated).
#[derive(Debug, Clone, Serialize)]
pub struct ToolCall {
    pub seq: u64,
    pub turn: u32,
    pub tool: String,
    pub status: String,
    pub arguments: String,
    pub result: String,
    pub latency_ms: u64,
}

impl ToolCall {
    /// The same tool with the same arguments in the same turn as `prev`: a retry.
    pub fn repeats(&self, prev: &ToolCall) -> bool {
        self.tool == prev.tool && self.arguments == prev.arguments && self.turn == prev.turn
    }
}

impl Entry {
    pub fn seq(&self) -> u64 {
        match self {
            Entry::User { seq, .. } | Entry::Agent { seq, .. } | Entry::Note { seq, .. } => *seq,
            Entry::Tool(call) => call.seq,
        }
    }

    pub fn turn(&self) -> Option<u32> {
        match self {
            Entry::User { turn, .. } | Entry::Agent { turn, .. } => Some(*turn),
            Entry::Tool(call) => Some(call.turn),
            Entry::Note { turn, .. } => *turn,
        }
    }
}

/// One judge criterion with its answer and cited events.
#[derive(Debug, Clone, Serialize)]
pub struct CriterionRow {
    pub id: String,
    pub kind: String,
    pub text: String,
    pub answer: String,
    pub rationale: String,
    pub evidence: Vec<String>,
}

/// One deterministic check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckRow {
    pub name: String,
    pub outcome: String,
    pub detail: String,
}

/// A trial with every field empty, for tests that fill in only what they look at.
#[cfg(test)]
pub(crate) fn blank_trial() -> TrialReport {
    TrialReport {
        case_id: "c".into(),
        trial: 1,
        anchor: "t1".into(),
        persona: String::new(),
        scenario_id: String::new(),
        scenario: String::new(),
        goal: String::new(),
        verdict: None,
        reasons: vec![],
        judge: String::new(),
        duration_ms: 0,
        entries: vec![],
        criteria: vec![],
        checks: vec![],
        observed: vec![],
        tokens: 0,
        cost_usd: 0.0,
        usage: Default::default(),
        problems: vec![],
        timing: None,
    }
}
