//! The run phase of the wizard (Step 12 after Enter): the suite's events, its folder and size,
//! the dashboard's moves and clock, a trial's transcript read back, and the run's end.
//! Part of `Lab::handle`; like the rest of the state machine it performs no IO.

use super::dashboard_state::{DashboardState, Screen, TranscriptError};
use super::effect_errors::LabRunError;
use super::shared_error::Shared;
use super::state::Lab;
use super::step::StepId;
use super::types::{Effect, Event, Phase, RunOutcome};

impl Lab {
    /// One event of the run phase; events of other phases are not passed here.
    pub(super) fn on_run_event(&mut self, event: Event) -> Vec<Effect> {
        if let Event::RunFinished(result) = event {
            return self.on_run_finished(result);
        }
        if matches!(event, Event::CancelRunConfirmed | Event::CancelRunDeclined) {
            return self.on_cancel_answer(event);
        }
        let Phase::Running { dashboard, outcome, .. } = &mut self.phase else {
            return Vec::new();
        };
        match event {
            Event::RunEvent(envelope) => dashboard.push(*envelope),
            Event::Dashboard(nav) => {
                dashboard.navigate(nav);
                return transcript_wanted(dashboard);
            }
            Event::RunFolder(dir) => dashboard.run_dir = Some(dir),
            Event::RunPlanned(n) => dashboard.planned = Some(n),
            // The clock stops with the run: a finished run's elapsed time stays put.
            Event::Clock(now) if outcome.is_none() => dashboard.clock(now),
            Event::TranscriptLoaded { key, events } => dashboard.fill_transcript(&key, events),
            _ => {}
        }
        Vec::new()
    }

    /// The suite ended: its results (or why not) on the results screen; a finished run
    /// completes Step 12 and loads the contract's findings to decide on.
    fn on_run_finished(&mut self, result: Result<Box<crate::app::RunResults>, Shared<LabRunError>>) -> Vec<Effect> {
        let finished = result.is_ok();
        if let Phase::Running { outcome, dashboard, .. } = &mut self.phase {
            dashboard.stop_clock();
            *outcome = Some(match result {
                Ok(results) => {
                    dashboard.screen = Screen::Results;
                    RunOutcome::Report(results)
                }
                Err(e) => RunOutcome::Failed(e),
            });
        }
        let last = StepId::Preview.id();
        let mut fx = Vec::new();
        if finished && !self.job.lab.completed.iter().any(|c| c == last) {
            self.job.lab.completed.push(last.to_string());
            fx.push(Effect::SaveJob(Box::new(self.job.clone())));
        }
        if finished {
            fx.push(Effect::LoadFindings);
        }
        fx
    }
}

/// Asks for the selected trial's earlier events when its transcript needs them; without a
/// run folder (not announced yet) the dashboard shows what it has, and says so.
fn transcript_wanted(dashboard: &mut DashboardState) -> Vec<Effect> {
    let Some(key) = dashboard.wants_transcript() else {
        return Vec::new();
    };
    match dashboard.run_dir.clone() {
        Some(run_dir) => vec![Effect::LoadTranscript { run_dir, key }],
        None => {
            dashboard.fill_transcript(&key, Err(TranscriptError::NoRunFolder));
            Vec::new()
        }
    }
}
