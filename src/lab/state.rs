//! The wizard as a state machine: `Lab::handle(Event) -> Vec<Effect>`.
//!
//! It never performs IO and never reads the clock: drivers execute the effects and answer with
//! events. Spinners animate from `tick`, which only `Event::Tick` advances.
//!
//! This file holds the state and routes each event; the handlers are `impl Lab` blocks beside
//! it: `step_flow` (opening steps, proposals, edits), `accept` (accepting an answer), `review`
//! (items of a set), `run_phase` (the run) and `interrupt` (Ctrl-C).

use indexmap::IndexMap;
use std::collections::BTreeMap;

use super::review_errors::RegenerateError;
use super::step::StepId;
pub use super::types::{
    Artifacts, Discovered, Discovery, DiscoveryError, Effect, Event, Phase, Proposal, Review, RunOutcome, Saved,
    ServerLint,
};
use crate::spec::Job;

/// The whole wizard state.
#[derive(Debug, Clone, PartialEq)]
pub struct Lab {
    /// The job as accepted so far.
    pub job: Job,
    pub step: StepId,
    pub phase: Phase,
    /// Generated, not yet accepted proposals.
    pub(crate) cache: BTreeMap<StepId, Proposal>,
    pub artifacts: Artifacts,
    /// Per-server discovery of the MCPs step.
    pub discovery: IndexMap<String, Discovery>,
    /// Ctrl-C was pressed; the next answer decides.
    pub confirm_quit: bool,
    /// The driver should stop.
    pub quit: bool,
    /// Item-level review of personas and scenarios (`review.rs`).
    pub review: Review,
    /// Decisions on contract findings from the results screen (`findings_review.rs`).
    pub findings: super::findings_review::FindingsReview,
}

impl Lab {
    /// A new wizard at step 1 with an empty job.
    pub fn new() -> Self {
        Lab::resume(Job::default(), Saved::default())
    }

    /// Reopens at the first step not in `job.lab.completed`, keeping everything before it.
    pub fn resume(job: Job, saved: Saved) -> Self {
        let step = StepId::ALL
            .into_iter()
            .find(|s| !job.lab.completed.iter().any(|c| c == s.id()))
            .unwrap_or(StepId::Preview);
        Lab {
            job,
            step,
            phase: Phase::Proposing { tick: 0 },
            cache: saved.proposals,
            artifacts: saved.artifacts,
            discovery: IndexMap::new(),
            confirm_quit: false,
            quit: false,
            review: Review {
                curation: saved.curation,
                ..Review::default()
            },
            findings: Default::default(),
        }
    }

    /// Whether `step`'s proposal in flight is a regenerate-one request.
    fn regenerating_item(&self, step: StepId) -> bool {
        step == self.step && self.review.regenerating.is_some() && matches!(self.phase, Phase::Proposing { .. })
    }

    /// Whether a step's answer has been accepted.
    pub fn is_completed(&self, step: StepId) -> bool {
        self.job.lab.completed.iter().any(|c| c == step.id())
    }

    /// Feeds one event; returns the work the driver must do.
    pub fn handle(&mut self, event: Event) -> Vec<Effect> {
        let mut fx = self.handle_event(event);
        fx.extend(self.sync_curation());
        fx
    }

    fn handle_event(&mut self, event: Event) -> Vec<Effect> {
        if self.quit {
            return Vec::new();
        }
        if self.confirm_quit {
            return self.handle_confirm(event);
        }
        match event {
            Event::Start => self.enter_step(self.step),
            Event::Tick => {
                if let Phase::Proposing { tick } | Phase::Running { tick, .. } = &mut self.phase {
                    *tick += 1;
                }
                Vec::new()
            }
            Event::Proposed { step, proposal } if self.regenerating_item(step) => {
                self.on_item_regenerated(Ok(proposal))
            }
            Event::ProposalFailed { step, error } if self.regenerating_item(step) => {
                self.on_item_regenerated(Err(error.into()))
            }
            Event::Review(review) => self.on_review(review),
            Event::Findings(ev) => self
                .findings
                .handle(ev)
                .map(|r| Effect::DecideFinding {
                    finding: r.finding,
                    verdict: r.verdict,
                    reason: r.reason,
                })
                .into_iter()
                .collect(),
            Event::Proposed { step, proposal } => self.on_proposed(step, proposal),
            Event::ProposalFailed { step, error } => {
                if step == self.step && matches!(self.phase, Phase::Proposing { .. }) {
                    self.phase = Phase::Failed {
                        error: error.to_string(),
                    };
                }
                Vec::new()
            }
            Event::Discovered { server, result } => self.on_discovered(server, result),
            Event::Accept => self.on_accept(),
            Event::Edit => self.on_edit(),
            Event::EditSubmitted(text) => match self.review.editing.take() {
                Some(item) => self.on_item_submitted(item, text),
                None => self.on_edit_submitted(text),
            },
            Event::EditCancelled => {
                self.review.editing = None;
                if let Phase::Editing { proposal, .. } = &self.phase {
                    self.phase = deciding(proposal.clone(), None);
                }
                Vec::new()
            }
            Event::Regenerate { hint } => self.on_regenerate(hint),
            Event::Retry => match self.phase {
                Phase::Failed { .. } => self.propose(None),
                _ => Vec::new(),
            },
            Event::Cancel if self.regenerating_item(self.step) => {
                self.on_item_regenerated(Err(RegenerateError::Cancelled));
                vec![Effect::CancelWork]
            }
            Event::Cancel => self.on_cancel(),
            Event::Goto(step) => self.on_goto(step),
            Event::Interrupt => {
                self.confirm_quit = true;
                Vec::new()
            }
            Event::QuitConfirmed | Event::QuitCancelled => Vec::new(),
            Event::RunEvent(_)
            | Event::Dashboard(_)
            | Event::RunFolder(_)
            | Event::RunPlanned(_)
            | Event::Clock(_)
            | Event::CancelRunConfirmed
            | Event::CancelRunDeclined
            | Event::TranscriptLoaded { .. }
            | Event::RunFinished(_) => self.on_run_event(event),
        }
    }
}

impl Default for Lab {
    fn default() -> Self {
        Lab::new()
    }
}

pub(super) fn deciding(proposal: Proposal, notice: Option<String>) -> Phase {
    Phase::Deciding {
        proposal,
        notice,
        confirm: None,
    }
}
