//! Proposals for each step: what the wizard suggests before the person decides.
//!
//! This reads files (imports, previews) and calls the executor traits; it never draws and never
//! writes. Flags given on the command line (`Seeds`) shape the proposals of both drivers alike.
//!
//! This file dispatches by step and holds the generated steps and the preview; the other steps'
//! proposals are `impl StepProposer` blocks beside it: `propose_source` (Steps 1–2),
//! `propose_model` (Step 3), `propose_inputs` (Steps 4–5).

use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

use super::apply::to_answer_yaml;
use super::policy;
use super::propose_error::ProposeError;
use super::seeds::Seeds;
use super::state::{Artifacts, Proposal};
use super::step::StepId;
use super::traits::{GenerateKind, GenerateRequest, Generator, ModelCatalog};
use crate::redact::Redactor;
use crate::spec::{Job, job_to_yaml};
use crate::util::secret_ref::referenced_vars;

/// Produces the proposal of each wizard step; one per driver, shared by every step. (Not
/// `generate::Proposer`: that one drafts profiles, personas and scenarios, reached here
/// through the `Generator`.)
#[derive(Clone)]
pub struct StepProposer {
    /// Where job.yaml is (or will be) written.
    pub job_file: PathBuf,
    pub seeds: Seeds,
    pub models: Arc<dyn ModelCatalog>,
    pub generator: Arc<dyn Generator>,
}

impl StepProposer {
    /// The folder job.yaml is in: where the job's relative paths resolve.
    pub(super) fn job_dir(&self) -> PathBuf {
        crate::spec::load::job_dir(&self.job_file)
    }

    /// Proposes an answer for `step` given the job so far.
    pub async fn propose(
        &self,
        step: StepId,
        hint: Option<String>,
        job: Job,
        artifacts: Artifacts,
        cancel: CancellationToken,
    ) -> Result<Proposal, ProposeError> {
        let generated = matches!(step, StepId::Profile | StepId::Personas | StepId::Scenarios);
        let unused_hint = hint.is_some() && !generated;
        let mut proposal = match step {
            StepId::Source => self.source(),
            StepId::Purpose => match super::purpose_draft::model_draft(
                &self.seeds,
                &self.job_file,
                self.generator.as_ref(),
                &job,
                cancel.clone(),
            )
            .await
            {
                Some(drafted) => drafted,
                None => Ok(self.purpose(&job)),
            },
            StepId::Model => self.model(job).await,
            StepId::Mcps => self.mcps(&job),
            StepId::Skills => Ok(self.skills(&job)),
            StepId::Permissions => Ok(policy::permissions(&job, self.contract(&job).as_ref())),
            StepId::Sandbox => {
                // Offered only where `doctor`'s own probe finds a gateway that answers.
                let gateway = crate::sandbox::doctor::probe_openshell().await;
                Ok(policy::sandbox(&job, self.seeds.sandbox, &gateway))
            }
            StepId::Profile | StepId::Personas | StepId::Scenarios => {
                self.generated(step, hint, job, artifacts, cancel).await
            }
            StepId::Gates => Ok(policy::gates(&job, &self.seeds.gates)?),
            StepId::Preview => Ok(self.preview(&job)),
        }?;
        if unused_hint {
            // Say so rather than pretend the hint steered a proposal computed from files.
            proposal
                .notes
                .push("The hint was not used: this step is computed from your files and flags, not by a model.".into());
        }
        Ok(proposal)
    }

    /// The OpenCode config file the lab imported (`--from`), when it was one.
    fn imported_config(&self) -> Option<PathBuf> {
        let from = self.seeds.from.as_ref()?;
        let file = if from.is_dir() {
            ["opencode.jsonc", "opencode.json"]
                .iter()
                .map(|n| from.join(n))
                .find(|p| p.is_file())?
        } else {
            from.clone()
        };
        let json = file.extension().is_some_and(|e| e == "json" || e == "jsonc");
        json.then_some(file)
    }

    /// The contract Step 4 linted, when there is a readable one (the tools' risk labels).
    fn contract(&self, job: &Job) -> Option<crate::mcp::contract::Contract> {
        let state = crate::spec::relative_path::resolve_against(&self.job_dir(), &job.paths.state_dir);
        let text = crate::util::bounded::read_bounded_string(
            &state.join("contract.json"),
            crate::util::bounded::FileKind::State,
        )
        .ok()?;
        serde_json::from_str(&text).ok()
    }

    async fn generated(
        &self,
        step: StepId,
        hint: Option<String>,
        job: Job,
        artifacts: Artifacts,
        cancel: CancellationToken,
    ) -> Result<Proposal, ProposeError> {
        let kind = match step {
            StepId::Profile => GenerateKind::Profile,
            StepId::Personas => GenerateKind::Personas,
            _ => GenerateKind::Scenarios,
        };
        let request = GenerateRequest {
            kind,
            job,
            job_dir: self.job_dir(),
            profile: artifacts.get(&StepId::Profile).cloned(),
            personas: artifacts.get(&StepId::Personas).cloned(),
            hint: hint.clone(),
        };
        let offline = request.job.generation.proposer.provider == crate::spec::ModelProvider::Offline;
        let value = self.generator.generate(request, cancel).await?;
        let mut notes = vec![
            match step {
                StepId::Profile => "Inferred purpose, workflows and risk surface, with evidence. Edit anything wrong.",
                StepId::Personas => "Who will talk to the agent. Edit to add, change or drop personas.",
                _ => "Per persona: each scenario with success criteria and failure signals.",
            }
            .to_string(),
        ];
        match hint {
            // The offline proposer is a template: it cannot read a hint, so do not claim it did.
            Some(_) if offline => notes.push(
                "The hint was not used: the proposer is `offline` (templates); pick a proposer model in step 3.".into(),
            ),
            Some(h) => notes.push(format!("Regenerated with hint: {h}")),
            None => {}
        }
        Ok(Proposal::new(to_answer_yaml(&value), notes))
    }

    fn preview(&self, job: &Job) -> Proposal {
        let yaml = job_to_yaml(job);
        let mut redactor = Redactor::new();
        let mut names = referenced_vars(&yaml);
        names.extend(job.sandbox.credentials.env.iter().cloned());
        redactor.add_env_vars(names.iter().map(String::as_str));
        let mut text = redactor.redact(&yaml).into_owned();
        let mut notes = vec![
            format!(
                "Saved at {}. Secrets stay ${{VAR}} references; values are masked.",
                self.job_file.display()
            ),
            "Enter starts the run; its transcript streams below.".into(),
        ];
        // What the run really uses: the saved job resolved, and the config the agent gets.
        match crate::spec::load_job(&self.job_file) {
            Ok(loaded) => {
                let resolved = super::preview_resolved::resolve(&loaded, self.imported_config().as_deref());
                text.push_str("\n# ── opencode.json as the agent gets it (paths as on the host) ──\n");
                text.push_str(&redactor.redact(&resolved.opencode_json));
                text.push('\n');
                notes.extend(resolved.notes);
            }
            Err(e) => notes.push(format!("The saved job cannot be resolved yet: {e}")),
        }
        Proposal {
            text,
            notes,
            editable: false,
        }
    }
}
