//! Step 2's draft from the proposer model: when the person has not described the agent and a
//! proposer model is set (`--proposer-model` or the job's `generation.proposer`), the model
//! infers the purpose from the instructions, skills, permissions and tools, and the notes show
//! the evidence it rests on. Without a proposer model the offline draft is used (propose.rs).
//! A failing model fails the step with the reason (`r` retries); it never silently falls back.

use std::path::Path;
use tokio_util::sync::CancellationToken;

use super::propose_error::ProposeError;
use super::seeds::Seeds;
use super::state::Proposal;
use super::traits::{GenerateKind, GenerateRequest, Generator};
use crate::generate::AgentProfile;
use crate::spec::{Job, ModelProvider};

/// `None` when this step is not the model's to draft (the person's words exist, or no model).
pub(crate) async fn model_draft(
    seeds: &Seeds,
    job_file: &Path,
    generator: &dyn Generator,
    job: &Job,
    cancel: CancellationToken,
) -> Option<Result<Proposal, ProposeError>> {
    if seeds.description.is_some() || job.agent.description.is_some() {
        return None;
    }
    let mut job = job.clone();
    if let Some(choice) = &seeds.roles.proposer {
        match super::role_models::role_from_choice(choice) {
            Ok(role) => job.generation.proposer = role,
            Err(e) => return Some(Err(ProposeError::ProposerChoice(e))),
        }
    }
    if job.generation.proposer.provider == ModelProvider::Offline {
        return None;
    }
    let who = super::roles_step::choice_of(&job.generation.proposer);
    let request = GenerateRequest {
        kind: GenerateKind::Profile,
        job,
        job_dir: crate::spec::load::job_dir(job_file),
        profile: None,
        personas: None,
        hint: None,
    };
    let drafted = async {
        let value = generator
            .generate(request, cancel)
            .await
            .map_err(|source| ProposeError::PurposeDraft {
                who: who.clone(),
                source,
            })?;
        let profile: AgentProfile = serde_json::from_value(value).map_err(ProposeError::DraftedProfile)?;
        let mut notes = vec![format!(
            "Drafted by the proposer model {who} from the instructions, skills, permissions and tools; \
             edit it into your own words."
        )];
        for ev in profile.evidence.purpose.iter().take(4) {
            let section = ev.section.as_deref().map(|s| format!(" § {s}")).unwrap_or_default();
            notes.push(format!("Evidence: {}{section}: “{}”", ev.source, ev.quote));
        }
        Ok(Proposal::new(profile.purpose.trim().to_string(), notes))
    };
    Some(drafted.await)
}
