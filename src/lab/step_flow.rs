//! Moving through the steps: opening one (its cached proposal, what was accepted, or a new
//! proposal), answers arriving from the proposer and discovery, editing, regenerating and going
//! back. Part of `Lab::handle`; no IO.

use super::apply::apply_answer;
use super::state::{Lab, deciding};
use super::step::StepId;
use super::types::{Discovered, Discovery, DiscoveryError, Effect, Phase, Proposal};

impl Lab {
    /// A server's discovery answered; a discovery the step no longer waits for is dropped.
    pub(super) fn on_discovered(&mut self, server: String, result: Result<Discovered, DiscoveryError>) -> Vec<Effect> {
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
    pub(super) fn on_edit(&mut self) -> Vec<Effect> {
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
    pub(super) fn on_regenerate(&mut self, hint: Option<String>) -> Vec<Effect> {
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
    pub(super) fn on_goto(&mut self, step: StepId) -> Vec<Effect> {
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

    pub(super) fn enter_step(&mut self, step: StepId) -> Vec<Effect> {
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

    pub(super) fn on_proposed(&mut self, step: StepId, proposal: Proposal) -> Vec<Effect> {
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
}
