//! The generation pipeline behind `ghostlab profile`, `ghostlab generate` and
//! `ghostlab dataset edit`: gather → propose → check → validate → write.
//!
//! Nothing is written unless every artifact of the step passed its schema and cross checks.

use serde_json::Value;
use std::path::{Path, PathBuf};

use super::check::{check_dataset, check_personas, check_profile, check_scenarios};
use super::context::ProfileContext;
use super::dataset::{CaseStatus, Dataset, PersonaSet, Scenario, ScenarioKind, ScenarioSet};
use super::profile::AgentProfile;
use super::schema::{ArtifactKind, parse_artifact};
use super::store::{read_artifact, read_artifact_opt, write_artifact};
use super::{GenerateError, Proposer};
use crate::spec::LoadedJob;

/// Personas proposed when neither the command line nor job.yaml says.
pub(crate) const DEFAULT_PERSONAS: usize = 3;
/// Scenarios per persona when neither the command line nor job.yaml says.
pub(crate) const DEFAULT_SCENARIOS_PER_PERSONA: usize = 6;

fn invalid(artifact: ArtifactKind, problems: Vec<String>) -> Result<(), GenerateError> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(GenerateError::Invalid {
            artifact: artifact.name(),
            detail: problems.join("; "),
        })
    }
}

/// Infers the profile (without writing it) and checks it.
pub async fn infer_profile(loaded: &LoadedJob, proposer: &dyn Proposer) -> Result<AgentProfile, GenerateError> {
    let ctx = ProfileContext::gather(loaded, &loaded.state_dir())?;
    let profile = proposer.propose_profile(&ctx).await?;
    let mut problems = check_profile(&profile);
    if let Some(d) = &ctx.description
        && (&profile.purpose != d || !profile.evidence.from_description)
    {
        problems.push("the purpose must be the user's description, unchanged".into());
    }
    invalid(ArtifactKind::AgentProfile, problems)?;
    Ok(profile)
}

/// Infers the profile and writes agent-profile.json.
pub(crate) async fn write_profile(
    loaded: &LoadedJob,
    proposer: &dyn Proposer,
) -> Result<(AgentProfile, PathBuf), GenerateError> {
    let profile = infer_profile(loaded, proposer).await?;
    let path = write_artifact(&loaded.state_dir(), ArtifactKind::AgentProfile, &profile)?;
    Ok((profile, path))
}

/// What `generate` produced.
#[derive(Debug, Clone)]
pub struct GenerateOutcome {
    pub profile: AgentProfile,
    /// True when an existing agent-profile.json was used.
    pub(crate) profile_reused: bool,
    pub personas: PersonaSet,
    pub(crate) scenarios: ScenarioSet,
    pub(crate) dataset: Dataset,
    /// Cases whose curation status was kept because their scenario did not change.
    pub(crate) kept_statuses: usize,
    pub(crate) paths: Vec<PathBuf>,
}

/// Profile (if missing), personas, scenarios and a dataset with every new case pending.
pub async fn generate(
    loaded: &LoadedJob,
    proposer: &dyn Proposer,
    personas: usize,
    per_persona: usize,
) -> Result<GenerateOutcome, GenerateError> {
    let state = loaded.state_dir();
    let mut paths = Vec::new();
    let (profile, profile_reused) = match read_artifact_opt::<AgentProfile>(&state, ArtifactKind::AgentProfile)? {
        Some(p) => (p, true),
        None => {
            let (p, path) = write_profile(loaded, proposer).await?;
            paths.push(path);
            (p, false)
        }
    };
    let persona_set = proposer.propose_personas(&profile, personas).await?;
    invalid(ArtifactKind::Persona, check_personas(&persona_set))?;
    let mut scenarios = proposer.propose_scenarios(&profile, &persona_set, per_persona).await?;
    // Model or offline, a workflow scenario sanctions the files its workflow names.
    super::offline::sanction_workflow_files(&profile, &mut scenarios);
    if scenarios.scenarios.is_empty() {
        return Err(GenerateError::Invalid {
            artifact: "scenario",
            detail: "the profile has no workflows, risks or scope limits to test; describe the agent \
                     (agent.description) or give it instructions, a skill or an MCP server"
                .into(),
        });
    }
    invalid(
        ArtifactKind::Scenario,
        check_scenarios(&profile, &persona_set, &scenarios),
    )?;
    let mut dataset = Dataset::from_scenarios(&scenarios);
    let kept_statuses = carry_over(&state, &scenarios, &mut dataset);
    invalid(ArtifactKind::Dataset, check_dataset(&dataset, &scenarios))?;
    // Validate everything before writing anything, so a failure leaves the old files intact.
    for (kind, value) in [
        (ArtifactKind::Persona, serde_json::to_value(&persona_set)),
        (ArtifactKind::Scenario, serde_json::to_value(&scenarios)),
        (ArtifactKind::Dataset, serde_json::to_value(&dataset)),
    ] {
        let value = value.map_err(|e| GenerateError::Invalid {
            artifact: kind.name(),
            detail: e.to_string(),
        })?;
        invalid(kind, super::schema::schema_violations(kind, &value))?;
    }
    paths.push(write_artifact(&state, ArtifactKind::Persona, &persona_set)?);
    paths.push(write_artifact(&state, ArtifactKind::Scenario, &scenarios)?);
    paths.push(write_artifact(&state, ArtifactKind::Dataset, &dataset)?);
    Ok(GenerateOutcome {
        profile,
        profile_reused,
        personas: persona_set,
        scenarios,
        dataset,
        kept_statuses,
        paths,
    })
}

/// Keeps the status and note of cases whose scenario is byte-for-byte the same as before.
fn carry_over(state: &Path, scenarios: &ScenarioSet, dataset: &mut Dataset) -> usize {
    let old_scenarios = read_artifact_opt::<ScenarioSet>(state, ArtifactKind::Scenario)
        .ok()
        .flatten();
    let old_dataset = read_artifact_opt::<Dataset>(state, ArtifactKind::Dataset)
        .ok()
        .flatten();
    let (Some(old_s), Some(old_d)) = (old_scenarios, old_dataset) else {
        return 0;
    };
    let mut kept = 0;
    for case in &mut dataset.cases {
        let new = scenarios.scenarios.iter().find(|s| s.id == case.scenario);
        let old = old_s.scenarios.iter().find(|s| s.id == case.scenario);
        let old_case = old_d.cases.iter().find(|c| c.id == case.id);
        if let (Some(n), Some(o), Some(c)) = (new, old, old_case)
            && n == o
            && c.status != CaseStatus::Pending
        {
            case.status = c.status;
            case.note = c.note.clone();
            kept += 1;
        }
    }
    kept
}

/// Counts of scenarios per kind, in a fixed order.
pub(crate) fn kind_counts(scenarios: &ScenarioSet) -> Vec<(&'static str, usize)> {
    let count = |k: ScenarioKind| scenarios.scenarios.iter().filter(|s| s.kind == k).count();
    vec![
        ("workflow", count(ScenarioKind::Workflow)),
        ("adversarial", count(ScenarioKind::Adversarial)),
        ("security", count(ScenarioKind::Security)),
        ("out_of_scope", count(ScenarioKind::OutOfScope)),
    ]
}

/// Replaces the scenario of `case_id` with `edited`, validates the whole set against its schema
/// and the profile, writes scenarios.json and returns the case to pending review.
pub(crate) fn replace_scenario(state: &Path, case_id: &str, edited: Value) -> Result<Scenario, GenerateError> {
    let profile: AgentProfile = read_artifact(state, ArtifactKind::AgentProfile)?;
    let personas: PersonaSet = read_artifact(state, ArtifactKind::Persona)?;
    let mut scenarios: ScenarioSet = read_artifact(state, ArtifactKind::Scenario)?;
    let mut dataset: Dataset = read_artifact(state, ArtifactKind::Dataset)?;
    let case = dataset
        .cases
        .iter_mut()
        .find(|c| c.id == case_id)
        .ok_or_else(|| unknown_case(state, case_id))?;
    let slot = scenarios
        .scenarios
        .iter_mut()
        .find(|s| s.id == case.scenario)
        .ok_or_else(|| unknown_case(state, case_id))?;
    let mut set_value = serde_json::json!({"version": scenarios.version, "scenarios": [edited]});
    let edited: ScenarioSet =
        parse_artifact(ArtifactKind::Scenario, set_value.take()).map_err(|p| GenerateError::Invalid {
            artifact: "scenario",
            detail: p.join("; "),
        })?;
    let edited = edited.scenarios.into_iter().next().expect("one scenario was given");
    if edited.id != slot.id {
        return Err(GenerateError::Invalid {
            artifact: "scenario",
            detail: format!("the id must stay `{}` (found `{}`)", slot.id, edited.id),
        });
    }
    *slot = edited.clone();
    case.persona = edited.persona.clone();
    case.status = CaseStatus::Pending;
    invalid(ArtifactKind::Scenario, check_scenarios(&profile, &personas, &scenarios))?;
    invalid(ArtifactKind::Dataset, check_dataset(&dataset, &scenarios))?;
    write_artifact(state, ArtifactKind::Scenario, &scenarios)?;
    write_artifact(state, ArtifactKind::Dataset, &dataset)?;
    Ok(edited)
}

/// The error for a case id that is not in dataset.json.
pub(crate) fn unknown_case(state: &Path, case_id: &str) -> GenerateError {
    GenerateError::Artifact {
        path: state.join(ArtifactKind::Dataset.artifact_file()),
        detail: format!("no case `{case_id}`; `ghostlab dataset list` shows the ids"),
    }
}
