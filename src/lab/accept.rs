//! Accepting a step's answer: the checks that can hold it back (curation, MCP discovery, a
//! warning to confirm), then the job saved with the step completed and the next step opened; the
//! last step starts the run. Part of `Lab::handle`; no IO.

use super::apply::apply_answer;
use super::state::{Lab, deciding};
use super::step::StepId;
use super::types::{Discovery, Effect, Phase, Proposal};

impl Lab {
    pub(super) fn on_accept(&mut self) -> Vec<Effect> {
        let Phase::Deciding { proposal, confirm, .. } = &self.phase else {
            return Vec::new();
        };
        let (proposal, confirmed) = (proposal.clone(), confirm.is_some());
        self.commit(proposal, confirmed)
    }

    pub(super) fn on_edit_submitted(&mut self, text: String) -> Vec<Effect> {
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

    /// Why the current step's answer cannot be accepted yet: scenarios nobody would run, or an
    /// MCP server that is wrong or still being discovered.
    fn accept_blocked(&self) -> Option<String> {
        if let Some(notice) = self.review_blocks_accept() {
            return Some(notice);
        }
        if self.step != StepId::Mcps {
            return None;
        }
        if let Some((server, why)) = self.discovery.iter().find_map(|(s, d)| match d {
            Discovery::Invalid(why) => Some((s, why)),
            _ => None,
        }) {
            return Some(format!(
                "server `{server}` cannot be used: {why}. Edit the answer (e) to name a server of the file, \
                 or fix the file, then accept again"
            ));
        }
        let pending = self.discovery.values().filter(|d| **d == Discovery::Pending).count();
        (pending > 0).then(|| format!("discovery still running for {pending} server(s); Esc skips them"))
    }

    /// Applies an answer; on success saves the job and moves on.
    fn commit(&mut self, proposal: Proposal, confirmed: bool) -> Vec<Effect> {
        let step = self.step;
        if let Some(notice) = self.accept_blocked() {
            self.phase = deciding(proposal, Some(notice));
            return Vec::new();
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
            None => fx.push(self.start_run()),
        }
        fx
    }

    /// The last step accepted: the dashboard opens, sized by the scenarios to run.
    fn start_run(&mut self) -> Effect {
        let scenarios = self.artifacts.get(&StepId::Scenarios);
        let planned = super::dashboard_progress::planned_trials(scenarios, self.review.curation.as_ref());
        let mut dashboard = super::dashboard_state::DashboardState::new(planned);
        dashboard.titles = super::dashboard_progress::scenario_titles(scenarios);
        self.phase = Phase::Running {
            dashboard,
            tick: 0,
            outcome: None,
        };
        Effect::RunSuite
    }
}
