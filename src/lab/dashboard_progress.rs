//! The dashboard's progress figures: how many trials the run will have (only approved cases
//! run), elapsed time and ETA from event times with a live clock between events, and what an
//! unfinished row is (running, cancelled, or left unfinished by a run that stopped).
//!
//! The clock is handed in ([`DashboardState::clock`]) so this stays a pure function of what it
//! was told; once the run ends the clock is dropped and only event times count, which is what
//! `ghostlab view` computes from the stored events.

use chrono::{DateTime, Utc};

use super::dashboard_state::{CaseRow, DashboardState};
use crate::generate::{CaseStatus, Dataset};

/// How far the live figure runs behind the wall clock. An event is stamped before it reaches
/// the screen; a clock reading taken in between must not show more than that event's time
/// will, or the figure would step back when the run ends and only event times count.
const CLOCK_LAG_MS: i64 = 250;

impl DashboardState {
    /// The wall clock while the run is live: elapsed time and ETA move between events. A reading
    /// earlier than one already seen (the system clock set back) is ignored, and so is every
    /// reading once nothing is left to count ([`Self::clock_done`]).
    pub(crate) fn clock(&mut self, now: DateTime<Utc>) {
        if !self.clock_done() {
            self.now = Some(self.now.map_or(now, |seen| seen.max(now)));
        }
    }

    /// The run ended (finished, failed or cancelled): from now on only event times count.
    pub(crate) fn stop_clock(&mut self) {
        self.now = None;
        self.confirm_cancel = false;
    }

    /// Milliseconds from the first event to the latest one: what `ghostlab view` shows from the
    /// stored events. While the run is live the clock moves it between events (a little behind
    /// the wall clock, [`CLOCK_LAG_MS`]), but only until every planned trial finished or the
    /// run was cancelled: what is left (report, wind-down) adds no event time, so a clock still
    /// running then would have to step back at the end. So a finished run's figure never
    /// decreases and ends on the event-time figure. Before the first event it is 0: time
    /// counts from the first trial's start, as in `view`.
    pub fn elapsed_ms(&self) -> u64 {
        let Some(first) = self.first_ts else {
            return 0;
        };
        let span = self.last_ts.map_or(0, |last| (last - first).num_milliseconds());
        let clock = self
            .now
            .map_or(0, |now| (now - first).num_milliseconds() - CLOCK_LAG_MS);
        span.max(clock).max(0) as u64
    }

    /// Nothing the clock could count is left: every planned trial finished, or the run was
    /// cancelled (no event marks the cancel, so a cancelled run ends on its last event's time).
    fn clock_done(&self) -> bool {
        self.cancelled || (self.planned.is_some() && self.done() >= self.total())
    }

    /// Remaining time at the pace of the trials finished so far; `None` before the first one
    /// finishes, when the total is unknown, or once every planned trial finished.
    pub fn eta_ms(&self) -> Option<u64> {
        let (done, total) = (self.done() as u64, self.planned? as u64);
        let left = total.checked_sub(done).filter(|&l| l > 0)?;
        (done > 0).then(|| self.elapsed_ms() / done * left)
    }

    /// The trials the header counts to: the planned ones, or the rows seen when more arrived.
    pub(crate) fn total(&self) -> usize {
        self.planned
            .unwrap_or(self.rows.len())
            .max(self.rows.len())
            .max(self.done())
    }

    /// What the case table says of a row: its verdict, else `running` while the run is live,
    /// `cancelled` after the person cancelled it, `unfinished` for a run that stopped.
    pub(crate) fn row_status(&self, r: &CaseRow, live: bool) -> &'static str {
        match r.verdict {
            Some(v) => v.as_str(),
            None if live && !self.cancelled => "running",
            None if self.cancelled => "cancelled",
            None => "unfinished",
        }
    }

    /// A row's scenario as people know it: its title when known, else its id (else the case).
    pub(crate) fn title<'a>(&'a self, r: &'a CaseRow) -> &'a str {
        let id = if r.scenario.is_empty() { &r.case } else { &r.scenario };
        self.titles.get(id).map(String::as_str).unwrap_or(id)
    }
}

/// Trials a run of the accepted scenarios will have (one each): the scenarios of the artifact
/// (a `ScenarioSet` `{scenarios: [...]}` or a bare list) that the curation does not keep out.
/// As at the run's start (`publish_accepted`), a case curated rejected or needs-edit stays out
/// and one never curated runs.
pub(crate) fn planned_trials(scenarios: Option<&serde_json::Value>, curation: Option<&Dataset>) -> Option<usize> {
    let v = scenarios?;
    let list = v.get("scenarios").unwrap_or(v).as_array()?;
    let kept_out = |id: &str| {
        curation.is_some_and(|d| {
            d.cases
                .iter()
                .any(|c| c.id == id && matches!(c.status, CaseStatus::Rejected | CaseStatus::NeedsEdit))
        })
    };
    Some(
        list.iter()
            .filter(|s| !kept_out(s.get("id").and_then(|i| i.as_str()).unwrap_or_default()))
            .count(),
    )
}

/// Scenario id → title, from the scenarios artifact (a `ScenarioSet` or a bare list).
pub(crate) fn scenario_titles(scenarios: Option<&serde_json::Value>) -> std::collections::HashMap<String, String> {
    let list = scenarios
        .and_then(|v| v.get("scenarios").unwrap_or(v).as_array())
        .cloned()
        .unwrap_or_default();
    list.iter()
        .filter_map(|s| {
            Some((
                s.get("id")?.as_str()?.to_string(),
                s.get("title")?.as_str()?.to_string(),
            ))
        })
        .filter(|(_, t)| !t.trim().is_empty())
        .collect()
}
