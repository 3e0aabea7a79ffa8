//! Interruptions of the wizard: Esc (stop the work in flight, back out of a question) and
//! Ctrl-C (ask, then quit with everything accepted already saved; never "accept the default").

use super::state::{Lab, deciding};
use super::types::{Discovery, Effect, Event, Phase};

impl Lab {
    pub(super) fn handle_confirm(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::QuitConfirmed => {
                self.confirm_quit = false;
                self.quit = true;
                let mut fx = Vec::new();
                // Accepted answers are already on disk; saving again only makes sure of it.
                if !self.job.lab.completed.is_empty() {
                    fx.push(Effect::SaveJob(Box::new(self.job.clone())));
                }
                if matches!(self.phase, Phase::Proposing { .. }) {
                    fx.push(Effect::CancelWork);
                }
                if let Phase::Running {
                    outcome: None,
                    dashboard,
                    ..
                } = &mut self.phase
                {
                    dashboard.cancelled = true;
                    fx.push(Effect::CancelRun);
                }
                fx.push(Effect::Quit);
                fx
            }
            Event::QuitCancelled | Event::Cancel => {
                self.confirm_quit = false;
                Vec::new()
            }
            // Work keeps reporting while the question is open; nothing a person does counts
            // as an answer except yes or no.
            e @ (Event::Tick
            | Event::Proposed { .. }
            | Event::ProposalFailed { .. }
            | Event::Discovered { .. }
            | Event::RunEvent(_)
            | Event::RunFolder(_)
            | Event::RunPlanned(_)
            | Event::Clock(_)
            | Event::TranscriptLoaded { .. }
            | Event::RunFinished(_)) => {
                self.confirm_quit = false;
                let fx = self.handle(e);
                self.confirm_quit = true;
                fx
            }
            _ => Vec::new(),
        }
    }

    pub(super) fn on_cancel(&mut self) -> Vec<Effect> {
        match &mut self.phase {
            Phase::Proposing { .. } => {
                self.phase = Phase::Failed {
                    error: "cancelled; r retries".to_string(),
                };
                vec![Effect::CancelWork]
            }
            Phase::Deciding { .. } if self.discovery.values().any(|d| *d == Discovery::Pending) => {
                for d in self.discovery.values_mut() {
                    if *d == Discovery::Pending {
                        *d = Discovery::Skipped;
                    }
                }
                vec![Effect::CancelWork]
            }
            Phase::Deciding { confirm, .. } if confirm.is_some() => {
                *confirm = None;
                Vec::new()
            }
            Phase::Editing { proposal, .. } => {
                self.phase = deciding(proposal.clone(), None);
                Vec::new()
            }
            // Esc during a live run asks first: the answer comes as CancelRunConfirmed/Declined.
            Phase::Running {
                outcome: None,
                dashboard,
                ..
            } => {
                dashboard.confirm_cancel = true;
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// The answer to "cancel the run?": yes cancels it (its unfinished rows say so), no goes on.
    pub(super) fn on_cancel_answer(&mut self, answer: Event) -> Vec<Effect> {
        let Phase::Running {
            outcome: None,
            dashboard,
            ..
        } = &mut self.phase
        else {
            return Vec::new();
        };
        if !std::mem::take(&mut dashboard.confirm_cancel) || answer != Event::CancelRunConfirmed {
            return Vec::new();
        }
        dashboard.cancelled = true;
        vec![Effect::CancelRun]
    }
}
