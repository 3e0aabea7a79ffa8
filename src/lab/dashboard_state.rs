//! The run dashboard's state, built only from typed `RunEvent`s: one row per trial, the verdict
//! counts, tokens and cost so far, which trial is selected, and the filter `ghostlab view`
//! applies. No terminal, no clock, no files: elapsed time comes from the events' own timestamps,
//! and a selected trial's earlier events are handed in by the caller ([`DashboardState::fill_transcript`]).
//!
//! Memory rule: a row is a fixed summary (status, persona, scenario, turn, verdict, duration,
//! counters); only the focused trial keeps transcript events ([`FocusTranscript`], a ring). The
//! state grows with the number of trials by a row each, never with the number of turns.

use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::path::PathBuf;

pub use super::case_row::CaseRow;
use super::focus_transcript::shown;
pub use super::focus_transcript::{Coverage, FocusTranscript, TRANSCRIPT_RING, TranscriptError};
use crate::trial::{Envelope, RunEvent, Verdict};

/// Which trial a row is: its case and trial number.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TrialKey {
    pub(crate) case: String,
    pub(crate) trial: u32,
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
    /// Select this row (a click); ignored when the filter hides it.
    Select(usize),
    /// Scroll the transcript `by` lines (positive: back in time), within `0..=max` (the pane
    /// says how far it can go, so scrolling stops at either end).
    ScrollTranscript {
        by: i32,
        max: u16,
    },
    /// Scroll the results screen `by` rows within `0..=max`.
    ScrollResults {
        by: i32,
        max: u16,
    },
    /// Enter: show this turn in full, or collapse it when it is the one shown in full.
    ToggleTurn(Option<u32>),
}

/// `at + by`, kept within `0..=max`.
pub(crate) fn scrolled(at: u16, by: i32, max: u16) -> u16 {
    (i64::from(at) + i64::from(by)).clamp(0, i64::from(max)) as u16
}

/// Everything the dashboard draws.
#[derive(Debug, Clone, PartialEq)]
pub struct DashboardState {
    pub rows: Vec<CaseRow>,
    /// Case id → its rows (one per trial, and per attempt of a re-run trial), oldest first.
    by_case: HashMap<String, Vec<usize>>,
    /// Trials the run will have, when known.
    pub(crate) planned: Option<usize>,
    /// The highest trial number seen: above 1, the table tells trials apart.
    pub(crate) max_trial: u32,
    pub selection: Selection,
    /// The transcript of the selected trial, the only one kept in memory.
    pub focus: Box<FocusTranscript>,
    /// The run folder, once known: where a selected trial's earlier events are read from.
    pub(crate) run_dir: Option<PathBuf>,
    pub screen: Screen,
    pub(crate) filter: Filter,
    /// Rows whose stored transcript mentions `filter.text`, sorted (transcripts are not in
    /// memory, so whoever reads the run folder computes this when the text changes).
    pub(crate) text_hits: Vec<usize>,
    pub tokens: u64,
    pub(crate) cost_usd: f64,
    /// Some model call had no known price: the cost is a lower bound.
    pub(crate) cost_unknown: bool,
    /// The earliest and the latest event time seen (events of parallel trials, or of trials
    /// read back one folder after another, do not arrive in time order).
    pub(crate) first_ts: Option<DateTime<Utc>>,
    pub(crate) last_ts: Option<DateTime<Utc>>,
    /// The wall clock while the run is live ([`DashboardState::clock`]), so elapsed time moves
    /// between events; `None` once it ended, when only event times count.
    pub(crate) now: Option<DateTime<Utc>>,
    /// Esc was pressed during the live run: the screen asks before cancelling.
    pub(crate) confirm_cancel: bool,
    /// The person cancelled the run: unfinished rows are cancelled, not running.
    pub cancelled: bool,
    /// Scenario id → its title, for the case table (the events name scenarios by id).
    pub(crate) titles: HashMap<String, String>,
    /// Rows scrolled on the results screen.
    pub(crate) results_scroll: u16,
    /// Lines scrolled up from the transcript's end (0: the newest line at the bottom).
    pub(crate) transcript_scroll: u16,
    /// The transcript turn whose tool calls are shown in full (Enter toggles).
    pub(crate) expanded_turn: Option<u32>,
}

impl DashboardState {
    pub fn new(planned: Option<usize>) -> Self {
        DashboardState {
            rows: Vec::new(),
            by_case: HashMap::new(),
            planned,
            max_trial: 0,
            selection: Selection::Follow,
            focus: Box::default(),
            run_dir: None,
            screen: Screen::Dashboard,
            filter: Filter::default(),
            text_hits: Vec::new(),
            tokens: 0,
            cost_usd: 0.0,
            cost_unknown: false,
            first_ts: None,
            last_ts: None,
            now: None,
            confirm_cancel: false,
            cancelled: false,
            titles: HashMap::new(),
            results_scroll: 0,
            transcript_scroll: 0,
            expanded_turn: None,
        }
    }

    /// Folds one event in.
    pub fn push(&mut self, env: Envelope) {
        self.first_ts = Some(self.first_ts.map_or(env.ts, |t| t.min(env.ts)));
        self.last_ts = Some(self.last_ts.map_or(env.ts, |t| t.max(env.ts)));
        let row = self.row_for(&env);
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
        // Focus first: a followed trial that starts now is kept whole from this event on.
        self.refocus();
        let r = &mut self.rows[row];
        r.fold(&env);
        self.max_trial = self.max_trial.max(r.trial);
        if self.focus.row == Some(row) && shown(&env.event) {
            self.focus.push(env);
        }
    }

    /// The row an event belongs to: its trial's open row, or a new one.
    fn row_for(&mut self, env: &Envelope) -> usize {
        let rows = &self.rows;
        // Envelopes without a trial number (old logs) go to the case's newest open row.
        let same_trial = |i: usize| env.trial == 0 || rows[i].trial == 0 || rows[i].trial == env.trial;
        let open = self.by_case.get(&env.case).and_then(|v| {
            v.iter()
                .rev()
                .copied()
                .find(|&i| same_trial(i) && rows[i].verdict.is_none())
        });
        match (&env.event, open) {
            // Sandbox and setup events come before `CaseStarted`: it fills in their row.
            (RunEvent::CaseStarted { .. }, Some(i)) if !rows[i].announced => i,
            (_, Some(i)) if !matches!(env.event, RunEvent::CaseStarted { .. }) => i,
            _ => {
                self.rows.push(CaseRow::new(&env.case, env.trial, env.ts));
                let i = self.rows.len() - 1;
                self.by_case.entry(env.case.clone()).or_default().push(i);
                i
            }
        }
    }

    /// Keeps the focused transcript on the selected row.
    fn refocus(&mut self) {
        if let Some(i) = self.selected() {
            self.focus.refocus(i, self.rows[i].events as usize);
        }
    }

    /// The trial whose earlier events the focused transcript waits for, if any.
    pub(crate) fn wants_transcript(&self) -> Option<TrialKey> {
        let i = self.focus.row.filter(|_| self.focus.wants_earlier())?;
        let r = &self.rows[i];
        Some(TrialKey {
            case: r.case.clone(),
            trial: r.trial,
        })
    }

    /// Hands in the stored events of `key` (read from its events.jsonl), or why they could
    /// not be read. Ignored when the focus has moved on since they were asked for.
    pub(crate) fn fill_transcript(&mut self, key: &TrialKey, stored: Result<Vec<Envelope>, TranscriptError>) {
        if self.wants_transcript().as_ref() == Some(key) {
            self.focus.fill(stored);
        }
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

    /// True when row `i` passes the filter (`needle`: its text, lowercased).
    fn passes(&self, i: usize, needle: &str) -> bool {
        let (r, f) = (&self.rows[i], &self.filter);
        f.verdict.is_none_or(|v| r.verdict == Some(v))
            && f.persona
                .as_ref()
                .is_none_or(|p| r.persona.to_lowercase() == p.to_lowercase())
            && (needle.is_empty()
                || [&r.case, &r.persona, &r.scenario, self.title(r)]
                    .iter()
                    .any(|s| s.to_lowercase().contains(needle))
                || self.text_hits.binary_search(&i).is_ok())
    }

    /// Row indexes passing the filter, in start order.
    pub fn visible(&self) -> Vec<usize> {
        let needle = self.filter.text.to_lowercase();
        (0..self.rows.len()).filter(|&i| self.passes(i, &needle)).collect()
    }

    /// The selected row: the pinned one, else the newest visible one.
    pub fn selected(&self) -> Option<usize> {
        match self.selection {
            Selection::Pinned(i) if i < self.rows.len() => Some(i),
            _ => {
                let needle = self.filter.text.to_lowercase();
                (0..self.rows.len()).rev().find(|&i| self.passes(i, &needle))
            }
        }
    }

    /// How the dashboard names a row's trial: `case`, or `case #2` once a case has several.
    pub(crate) fn trial_label(&self, r: &CaseRow) -> String {
        if self.max_trial > 1 {
            format!("{} #{}", r.case, r.trial)
        } else {
            r.case.clone()
        }
    }

    /// Applies a person's move.
    pub fn navigate(&mut self, nav: Nav) {
        let before = self.selected();
        match nav {
            Nav::Select(i) => {
                if self.visible().contains(&i) {
                    self.selection = Selection::Pinned(i);
                }
            }
            Nav::ScrollTranscript { by, max } => self.transcript_scroll = scrolled(self.transcript_scroll, by, max),
            Nav::ScrollResults { by, max } => self.results_scroll = scrolled(self.results_scroll, by, max),
            Nav::ToggleTurn(turn) => {
                self.expanded_turn = if self.expanded_turn == turn { None } else { turn };
            }
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
            Nav::Pin => {
                self.selection = match (self.selection, self.selected()) {
                    (Selection::Follow, Some(i)) => Selection::Pinned(i),
                    _ => Selection::Follow,
                }
            }
            Nav::ShowResults => self.screen = Screen::Results,
            Nav::ShowDashboard => self.screen = Screen::Dashboard,
            Nav::Follow => {
                self.selection = Selection::Follow;
                self.transcript_scroll = 0;
            }
            Nav::SetFilter(f) => {
                self.filter = f;
                if let Selection::Pinned(i) = self.selection
                    && !self.visible().contains(&i)
                {
                    self.selection = Selection::Follow;
                }
            }
        }
        // Another trial: its transcript starts at its end, nothing expanded.
        if self.selected() != before {
            self.transcript_scroll = 0;
            self.expanded_turn = None;
        }
        self.refocus();
    }
}
