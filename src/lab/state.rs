//! The wizard as a state machine: `Lab::handle(Event) -> Vec<Effect>`.
//!
//! It never performs IO and never reads the clock: drivers execute the effects and answer with
//! events. Spinners animate from `tick`, which only `Event::Tick` advances.

use indexmap::IndexMap;
use std::collections::BTreeMap;

use super::apply::apply_answer;
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

    /// A server's discovery answered; a discovery the step no longer waits for is dropped.
    fn on_discovered(&mut self, server: String, result: Result<Discovered, DiscoveryError>) -> Vec<Effect> {
        if let Some(d) = self.discovery.get_mut(&server)
            && *d == Discovery::Pending
        {
            *d = match result {
                Ok(c) => Discovery::Found(c),
                Err(DiscoveryError::Invalid(e)) => Discovery::Invalid(e),
                Err(DiscoveryError::Failed(e)) => Discovery::Failed(e),
            };
        }
        Vec::new()
    }

    /// `e`: edit the proposal's text, when it is editable.
    fn on_edit(&mut self) -> Vec<Effect> {
        if let Phase::Deciding { proposal, .. } = &self.phase
            && proposal.editable
        {
            let proposal = proposal.clone();
            self.phase = Phase::Editing {
                draft: proposal.text.clone(),
                proposal,
                notice: None,
            };
        }
        Vec::new()
    }

    /// Throws the step's proposal away (and its cached copy) and asks again.
    fn on_regenerate(&mut self, hint: Option<String>) -> Vec<Effect> {
        if !matches!(self.phase, Phase::Deciding { .. } | Phase::Failed { .. }) {
            return Vec::new();
        }
        if self.step == StepId::Scenarios {
            self.review.curation = None; // new scenarios start pending
        }
        self.cache.remove(&self.step);
        let mut fx = vec![Effect::DropCachedProposal { step: self.step }];
        fx.extend(self.propose(hint));
        fx
    }

    /// Revisits a completed step (never during a run), stopping the work in flight.
    fn on_goto(&mut self, step: StepId) -> Vec<Effect> {
        let allowed = self.is_completed(step) && !matches!(self.phase, Phase::Running { .. });
        if !allowed || step == self.step {
            return Vec::new();
        }
        let in_flight =
            matches!(self.phase, Phase::Proposing { .. }) || self.discovery.values().any(|d| *d == Discovery::Pending);
        self.step = step;
        let mut fx = if in_flight {
            vec![Effect::CancelWork]
        } else {
            Vec::new()
        };
        fx.extend(self.enter_step(step));
        fx
    }

    fn enter_step(&mut self, step: StepId) -> Vec<Effect> {
        self.discovery.clear();
        self.review.editing = None;
        self.review.regenerating = None;
        if let Some(p) = self.cache.get(&step).cloned() {
            self.phase = deciding(p.clone(), None);
            return self.after_proposal(step, &p);
        }
        // Revisiting an accepted generated step shows what was accepted instead of paying again.
        if self.is_completed(step)
            && let Some(value) = self.artifacts.get(&step)
        {
            let p = Proposal::new(
                super::apply::to_answer_yaml(value),
                vec!["Accepted earlier; r generates a new proposal.".into()],
            );
            self.cache.insert(step, p.clone());
            self.phase = deciding(p, None);
            return Vec::new();
        }
        self.propose(None)
    }

    pub(super) fn propose(&mut self, hint: Option<String>) -> Vec<Effect> {
        self.phase = Phase::Proposing { tick: 0 };
        self.discovery.clear();
        vec![Effect::Propose {
            step: self.step,
            hint,
            job: Box::new(self.job.clone()),
            artifacts: self.artifacts.clone(),
        }]
    }

    fn on_proposed(&mut self, step: StepId, proposal: Proposal) -> Vec<Effect> {
        if step != self.step || !matches!(self.phase, Phase::Proposing { .. }) {
            return Vec::new(); // a late answer for a step the person already left
        }
        self.cache.insert(step, proposal.clone());
        self.phase = deciding(proposal.clone(), None);
        let mut fx = Vec::new();
        // Only model-generated proposals cost money; the others are recomputed on resume so
        // they pick up new flags and edited files.
        if step.artifact_file().is_some() {
            fx.push(Effect::CacheProposal {
                step,
                proposal: proposal.clone(),
            });
        }
        fx.extend(self.after_proposal(step, &proposal));
        fx
    }

    /// The MCPs step discovers every enabled server of its proposal.
    fn after_proposal(&mut self, step: StepId, proposal: &Proposal) -> Vec<Effect> {
        if step != StepId::Mcps {
            return Vec::new();
        }
        let mut candidate = self.job.clone();
        if apply_answer(step, &proposal.text, &mut candidate, &self.artifacts).is_err() {
            return Vec::new();
        }
        let mut fx = Vec::new();
        for m in &candidate.agent.inputs.mcps {
            let Some(name) = m.server.clone() else { continue };
            if m.enabled == Some(false) {
                continue;
            }
            self.discovery.insert(name.clone(), Discovery::Pending);
            fx.push(Effect::Discover {
                server: name,
                job: Box::new(candidate.clone()),
            });
        }
        fx
    }

    fn on_accept(&mut self) -> Vec<Effect> {
        let Phase::Deciding { proposal, confirm, .. } = &self.phase else {
            return Vec::new();
        };
        let (proposal, confirmed) = (proposal.clone(), confirm.is_some());
        self.commit(proposal, confirmed)
    }

    fn on_edit_submitted(&mut self, text: String) -> Vec<Effect> {
        let Phase::Editing { proposal, .. } = &self.phase else {
            return Vec::new();
        };
        let mut edited = proposal.clone();
        edited.text = text.clone();
        let mut candidate = self.job.clone();
        if let Err(e) = apply_answer(self.step, &text, &mut candidate, &self.artifacts) {
            self.phase = Phase::Editing {
                proposal: proposal.clone(),
                draft: text,
                notice: Some(e.to_string()),
            };
            return Vec::new();
        }
        self.cache.insert(self.step, edited.clone());
        self.phase = deciding(edited.clone(), None);
        self.commit(edited, false)
    }

    /// Applies an answer; on success saves the job and moves on.
    fn commit(&mut self, proposal: Proposal, confirmed: bool) -> Vec<Effect> {
        let step = self.step;
        if let Some(notice) = self.review_blocks_accept() {
            self.phase = deciding(proposal, Some(notice));
            return Vec::new();
        }
        if step == StepId::Mcps
            && let Some((server, why)) = self.discovery.iter().find_map(|(s, d)| match d {
                Discovery::Invalid(why) => Some((s.clone(), why.clone())),
                _ => None,
            })
        {
            self.phase = deciding(
                proposal,
                Some(format!(
                    "server `{server}` cannot be used: {why}. Edit the answer (e) to name a server of the file, \
                     or fix the file, then accept again"
                )),
            );
            return Vec::new();
        }
        if step == StepId::Mcps {
            let pending = self.discovery.values().filter(|d| **d == Discovery::Pending).count();
            if pending > 0 {
                self.phase = deciding(
                    proposal,
                    Some(format!(
                        "discovery still running for {pending} server(s); Esc skips them"
                    )),
                );
                return Vec::new();
            }
        }
        let mut candidate = self.job.clone();
        let applied = match apply_answer(step, &proposal.text, &mut candidate, &self.artifacts) {
            Ok(a) => a,
            Err(e) => {
                self.phase = deciding(proposal, Some(e.to_string()));
                return Vec::new();
            }
        };
        if let Some(warning) = applied.warning
            && !confirmed
        {
            self.phase = Phase::Deciding {
                proposal,
                notice: None,
                confirm: Some(warning),
            };
            return Vec::new();
        }
        if step == StepId::Mcps {
            for (server, d) in &self.discovery {
                if let Discovery::Found(c) = d {
                    candidate.capabilities.insert(server.clone(), c.capabilities.clone());
                }
            }
        }
        // The last step (the run) is done when its run finished, not when it started.
        if !candidate.lab.completed.iter().any(|c| c == step.id()) && step.next().is_some() {
            candidate.lab.completed.push(step.id().to_string());
        }
        self.job = candidate;
        let mut fx = Vec::new();
        if let Some(value) = applied.artifact {
            self.artifacts.insert(step, value.clone());
            fx.push(Effect::SaveArtifact { step, value });
        }
        if step == StepId::Scenarios {
            fx.extend(self.approve_pending(&proposal.text));
        }
        fx.push(Effect::SaveJob(Box::new(self.job.clone())));
        self.cache.remove(&step);
        fx.push(Effect::DropCachedProposal { step });
        match step.next() {
            Some(next) => {
                self.step = next;
                fx.extend(self.enter_step(next));
            }
            None => {
                let scenarios = self.artifacts.get(&StepId::Scenarios);
                let planned = super::dashboard_progress::planned_trials(scenarios, self.review.curation.as_ref());
                let mut dashboard = super::dashboard_state::DashboardState::new(planned);
                dashboard.titles = super::dashboard_progress::scenario_titles(scenarios);
                self.phase = Phase::Running {
                    dashboard,
                    tick: 0,
                    outcome: None,
                };
                fx.push(Effect::RunSuite);
            }
        }
        fx
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
