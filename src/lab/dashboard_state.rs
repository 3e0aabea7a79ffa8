//! The run dashboard's state, built only from typed `RunEvent`s: one row per trial, the verdict
//! counts, tokens and cost so far, which case is selected, and the filter `ghostlab view` applies.
//! No terminal, no clock: elapsed time comes from the events' own timestamps.
//!
//! Memory rule: a row keeps at most [`TRANSCRIPT_RING`] events of its transcript (the newest;
//! older ones are counted in `dropped` and stay in the trial's events.jsonl), so the state grows
//! with the number of trials, never with the number of turns.

use chrono::{DateTime, Utc};
use std::collections::{HashMap, VecDeque};

use crate::trial::{Envelope, RunEvent, Verdict};

/// Events kept per trial for its transcript.
pub const TRANSCRIPT_RING: usize = 200;

/// One trial in the case table.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRow {
    pub case: String,
    pub trial: u32,
    pub persona: String,
    pub scenario: String,
    pub turn: u32,
    pub max_turns: u32,
    /// `None` while it runs.
    pub verdict: Option<Verdict>,
    pub duration_ms: Option<u64>,
    pub started: Option<DateTime<Utc>>,
    pub last: Option<DateTime<Utc>>,
    /// The newest events, at most [`TRANSCRIPT_RING`].
    pub transcript: VecDeque<Envelope>,
    /// Events that fell out of the ring.
    pub dropped: usize,
}

impl CaseRow {
    /// Milliseconds from its first to its last event (or its stated duration once finished).
    pub fn duration(&self) -> Option<u64> {
        self.duration_ms.or_else(|| match (self.started, self.last) {
            (Some(a), Some(b)) => Some((b - a).num_milliseconds().max(0) as u64),
            _ => None,
        })
    }
}

/// Which case the transcript shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// The newest started trial, moving as trials start.
    Follow,
    /// This row (an index into the rows), whatever else starts.
    Pinned(usize),
}

/// Which screen of the run is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Screen {
    #[default]
    Dashboard,
    Results,
}

/// What `ghostlab view` narrows the case table to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub verdict: Option<Verdict>,
    pub persona: Option<String>,
    /// Matched, case-insensitively, against case, persona, scenario and transcript text.
    pub text: String,
}

/// A person's move on the dashboard.
#[derive(Debug, Clone, PartialEq)]
pub enum Nav {
    Up,
    Down,
    /// `f`: follow the newest trial.
    Follow,
    /// `p`: stay on the selected trial (again: follow).
    Pin,
    ShowResults,
    ShowDashboard,
    SetFilter(Filter),
}

/// Everything the dashboard draws.
#[derive(Debug, Clone, PartialEq)]
pub struct DashboardState {
    pub rows: Vec<CaseRow>,
    /// Case id → the row of its newest trial (events carry the case id only).
    by_case: HashMap<String, usize>,
    /// Trials the run will have, when known.
    pub planned: Option<usize>,
    pub selection: Selection,
    pub screen: Screen,
    pub filter: Filter,
    pub tokens: u64,
    pub cost_usd: f64,
    /// Some model call had no known price: the cost is a lower bound.
    pub cost_unknown: bool,
    pub first_ts: Option<DateTime<Utc>>,
    pub last_ts: Option<DateTime<Utc>>,
    /// Rows scrolled on the results screen.
    pub results_scroll: u16,
}

impl DashboardState {
    pub fn new(planned: Option<usize>) -> Self {
        DashboardState {
            rows: Vec::new(),
            by_case: HashMap::new(),
            planned,
            selection: Selection::Follow,
            screen: Screen::Dashboard,
            filter: Filter::default(),
            tokens: 0,
            cost_usd: 0.0,
            cost_unknown: false,
            first_ts: None,
            last_ts: None,
            results_scroll: 0,
        }
    }

    /// Folds one event in.
    pub fn push(&mut self, env: Envelope) {
        self.first_ts.get_or_insert(env.ts);
        self.last_ts = Some(env.ts);
        let row = match (&env.event, self.by_case.get(&env.case)) {
            (
                RunEvent::CaseStarted {
                    persona,
                    scenario,
                    trial,
                    max_turns,
                },
                _,
            ) => match self.by_case.get(&env.case) {
                // Sandbox and setup events come before `CaseStarted`: fill in their row.
                Some(&i) if self.rows[i].trial == 0 && self.rows[i].verdict.is_none() => {
                    let r = &mut self.rows[i];
                    (r.persona, r.scenario) = (persona.clone(), scenario.clone());
                    (r.trial, r.max_turns) = (*trial, *max_turns);
                    i
                }
                _ => self.start_row(&env, persona, scenario, *trial, *max_turns),
            },
            (_, Some(&i)) if self.rows[i].verdict.is_none() => i,
            // The first event of a trial (its case not announced yet, or its last trial over).
            _ => self.start_row(&env, "", "", 0, 0),
        };
        match &env.event {
            RunEvent::AgentMessage { tokens, cost_usd, .. } => {
                self.tokens += tokens;
                self.cost_usd += cost_usd;
            }
            RunEvent::ModelCall {
                prompt_tokens,
                completion_tokens,
                cost_usd,
                cost_unknown,
                ..
            } => {
                self.tokens += prompt_tokens + completion_tokens;
                self.cost_usd += cost_usd;
                self.cost_unknown |= cost_unknown;
            }
            _ => {}
        }
        let r = &mut self.rows[row];
        r.last = Some(env.ts);
        match &env.event {
            RunEvent::UserMessage { turn, .. }
            | RunEvent::AgentMessage { turn, .. }
            | RunEvent::ToolCall { turn, .. }
            | RunEvent::UserRefusal { turn, .. }
            | RunEvent::EmulatorBreak { turn, .. } => r.turn = r.turn.max(*turn),
            RunEvent::CaseFinished { verdict, duration_ms } => {
                r.verdict = Some(*verdict);
                r.duration_ms = Some(*duration_ms);
            }
            _ => {}
        }
        if !matches!(env.event, RunEvent::ModelCall { .. }) {
            if r.transcript.len() == TRANSCRIPT_RING {
                r.transcript.pop_front();
                r.dropped += 1;
            }
            r.transcript.push_back(env);
        }
    }

    fn start_row(&mut self, env: &Envelope, persona: &str, scenario: &str, trial: u32, max_turns: u32) -> usize {
        self.rows.push(CaseRow {
            case: env.case.clone(),
            trial,
            persona: persona.to_string(),
            scenario: scenario.to_string(),
            turn: 0,
            max_turns,
            verdict: None,
            duration_ms: None,
            started: Some(env.ts),
            last: None,
            transcript: VecDeque::new(),
            dropped: 0,
        });
        self.by_case.insert(env.case.clone(), self.rows.len() - 1);
        self.rows.len() - 1
    }

    /// Trials finished so far.
    pub fn done(&self) -> usize {
        self.rows.iter().filter(|r| r.verdict.is_some()).count()
    }

    /// PASS, FAIL, INCONCLUSIVE, INFRA_ERROR counts so far.
    pub fn counts(&self) -> [(Verdict, usize); 4] {
        [Verdict::Pass, Verdict::Fail, Verdict::Inconclusive, Verdict::InfraError]
            .map(|v| (v, self.rows.iter().filter(|r| r.verdict == Some(v)).count()))
    }

    /// Milliseconds between the first and the newest event.
    pub fn elapsed_ms(&self) -> u64 {
        match (self.first_ts, self.last_ts) {
            (Some(a), Some(b)) => (b - a).num_milliseconds().max(0) as u64,
            _ => 0,
        }
    }

    /// Remaining time at the pace so far; `None` before the first trial finishes or when the
    /// total is unknown.
    pub fn eta_ms(&self) -> Option<u64> {
        let (done, total) = (self.done() as u64, self.planned? as u64);
        (done > 0).then(|| self.elapsed_ms() / done * total.saturating_sub(done))
    }

    /// Row indexes passing the filter, in start order.
    pub fn visible(&self) -> Vec<usize> {
        let f = &self.filter;
        let needle = f.text.to_lowercase();
        (0..self.rows.len())
            .filter(|&i| {
                let r = &self.rows[i];
                f.verdict.is_none_or(|v| r.verdict == Some(v))
                    && f.persona.as_ref().is_none_or(|p| &r.persona == p)
                    && (needle.is_empty() || row_mentions(r, &needle))
            })
            .collect()
    }

    /// The selected row: the pinned one, else the newest visible one.
    pub fn selected(&self) -> Option<usize> {
        match self.selection {
            Selection::Pinned(i) if i < self.rows.len() => Some(i),
            _ => self.visible().last().copied(),
        }
    }

    /// Applies a person's move.
    pub fn navigate(&mut self, nav: Nav) {
        match nav {
            Nav::Up if self.screen == Screen::Results => self.results_scroll = self.results_scroll.saturating_sub(1),
            Nav::Down if self.screen == Screen::Results => self.results_scroll = self.results_scroll.saturating_add(1),
            Nav::Up | Nav::Down => {
                let visible = self.visible();
                let Some(last) = visible.len().checked_sub(1) else {
                    return;
                };
                let at = self
                    .selected()
                    .and_then(|s| visible.iter().position(|&i| i == s))
                    .unwrap_or(last);
                let to = if nav == Nav::Up {
                    at.saturating_sub(1)
                } else {
                    (at + 1).min(last)
                };
                self.selection = Selection::Pinned(visible[to]);
            }
            Nav::Follow => self.selection = Selection::Follow,
            Nav::Pin => {
                self.selection = match (self.selection, self.selected()) {
                    (Selection::Follow, Some(i)) => Selection::Pinned(i),
                    _ => Selection::Follow,
                }
            }
            Nav::ShowResults => self.screen = Screen::Results,
            Nav::ShowDashboard => self.screen = Screen::Dashboard,
            Nav::SetFilter(f) => {
                self.filter = f;
                if let Selection::Pinned(i) = self.selection
                    && !self.visible().contains(&i)
                {
                    self.selection = Selection::Follow;
                }
            }
        }
    }
}

/// Trials a run of the accepted scenarios will have (one each): the length of the scenarios
/// artifact, a `ScenarioSet` (`{scenarios: [...]}`) or a bare list.
pub fn planned_trials(scenarios: Option<&serde_json::Value>) -> Option<usize> {
    let v = scenarios?;
    v.get("scenarios").unwrap_or(v).as_array().map(Vec::len)
}

fn row_mentions(r: &CaseRow, needle: &str) -> bool {
    [&r.case, &r.persona, &r.scenario]
        .iter()
        .any(|s| s.to_lowercase().contains(needle))
        || r.transcript
            .iter()
            .any(|e| e.event.one_line().to_lowercase().contains(needle))
}
