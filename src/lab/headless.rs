//! The headless driver (`ghostlab lab --yes`): the same state machine and executor as the TUI,
//! with auto-accept as the decision-maker.
//!
//! It never prints; progress lines go to the caller's callback (the CLI sends them to stderr).

use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::mpsc::unbounded_channel;

use super::driver::{Executor, LabError};
use super::effect_errors::LabRunError;
use super::propose::StepProposer;
use super::shared_error::Shared;
use super::state::{Discovery, Event, Lab, Phase, RunOutcome};
use super::step::StepId;
use super::traits::{McpDiscovery, SuiteRunner};
use crate::app::RunResults;
use crate::spec::SandboxBackend;

/// Why a headless wizard stopped early.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    #[error("step {n} ({title}) failed: {error}", n = .step.number(), title = .step.title())]
    Step { step: StepId, error: String },
    #[error("step {n} ({title}) needs a person to confirm: {warning}", n = .step.number(), title = .step.title())]
    NeedsConfirmation { step: StepId, warning: String },
    #[error("the run failed: {0}")]
    Run(#[source] Shared<LabRunError>),
    #[error(transparent)]
    Lab(#[from] LabError),
    #[error("the wizard stopped before it finished")]
    Stopped,
}

/// How far `--yes` got.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadlessOutcome {
    /// What the run states: gates, verdicts, report files.
    pub results: RunResults,
}

/// Drives `lab` to the end, accepting each proposal. Progress lines go to `progress`.
pub async fn run_headless(
    mut lab: Lab,
    proposer: StepProposer,
    discovery: Arc<dyn McpDiscovery>,
    runner: Arc<dyn SuiteRunner>,
    progress: &mut (dyn FnMut(String) + Send),
) -> Result<HeadlessOutcome, HeadlessError> {
    let (tx, mut rx) = unbounded_channel();
    let local_confirmed = proposer.seeds.sandbox == Some(SandboxBackend::Local);
    let mut exec = Executor::new(proposer, discovery, runner, tx);
    let mut queue = VecDeque::from([Event::Start]);
    let mut announced: Option<StepId> = None;
    loop {
        let event = match queue.pop_front() {
            Some(e) => e,
            None => rx.recv().await.ok_or(HeadlessError::Stopped)?,
        };
        let accepting = event == Event::Accept;
        if let Event::RunEvent(envelope) = &event {
            progress(format!("        {}", envelope.transcript_line()));
        }
        for effect in lab.handle(event) {
            if exec.perform(effect)? {
                return Err(HeadlessError::Stopped);
            }
        }
        let step = lab.step;
        if announced != Some(step) && !matches!(lab.phase, Phase::Running { .. }) {
            progress(format!(
                "[{:>2}/{}] {}…",
                step.number(),
                StepId::ALL.len(),
                step.title()
            ));
            announced = Some(step);
        }
        match &lab.phase {
            Phase::Deciding {
                notice,
                confirm,
                proposal,
            } => {
                if let Some(n) = notice
                    && accepting
                {
                    let error = match flag_for(step) {
                        Some(flag) => format!("{n} (pass {flag})"),
                        None => n.clone(),
                    };
                    return Err(HeadlessError::Step { step, error });
                }
                if step == StepId::Mcps && lab.discovery.values().any(|d| *d == Discovery::Pending) {
                    continue; // wait for every server, so the result does not depend on timing
                }
                if let Some(warning) = confirm {
                    if !(step == StepId::Sandbox && local_confirmed) {
                        return Err(HeadlessError::NeedsConfirmation {
                            step,
                            warning: warning.clone(),
                        });
                    }
                    progress(format!("        warning: {warning} (confirmed by --sandbox local)"));
                }
                if step == StepId::Mcps {
                    for (server, d) in &lab.discovery {
                        progress(format!("        {server}: {}", describe(d)));
                    }
                }
                let first = if step == StepId::Source {
                    proposal.notes.first().map(String::as_str).unwrap_or("")
                } else {
                    proposal.text.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
                };
                progress(format!("        accepted: {}", clip(first)));
                queue.push_back(Event::Accept);
            }
            Phase::Editing { .. } => queue.push_back(Event::EditCancelled),
            Phase::Failed { error } => {
                return Err(HeadlessError::Step {
                    step,
                    error: error.clone(),
                });
            }
            Phase::Running { outcome, .. } => match outcome {
                Some(RunOutcome::Report(r)) => return Ok(HeadlessOutcome { results: (**r).clone() }),
                Some(RunOutcome::Failed(e)) => return Err(HeadlessError::Run(e.clone())),
                None => {}
            },
            Phase::Proposing { .. } => {}
        }
    }
}

/// The flag that answers a step without a terminal.
fn flag_for(step: StepId) -> Option<&'static str> {
    match step {
        StepId::Source => Some("--from"),
        StepId::Purpose => Some("--description"),
        StepId::Model => Some("--model"),
        StepId::Mcps => Some("--mcp-config"),
        StepId::Skills => Some("--skill"),
        StepId::Sandbox => Some("--sandbox"),
        StepId::Gates => Some("--gate"),
        _ => None,
    }
}

fn describe(d: &Discovery) -> String {
    match d {
        Discovery::Pending => "discovering".into(),
        Discovery::Found(d) => format!(
            "{} tools, {} resources, {} prompts; {}",
            d.capabilities.tools.len(),
            d.capabilities.resources.len(),
            d.capabilities.prompts.len(),
            super::contract_lint::lint_line(&d.lint)
        ),
        Discovery::Failed(e) => format!("discovery failed: {e}"),
        Discovery::Invalid(e) => format!("not usable: {e}"),
        Discovery::Skipped => "discovery skipped".into(),
    }
}

fn clip(s: &str) -> String {
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s.to_string()
    }
}
