//! Turning the curated dataset (dataset.json + personas.json + scenarios.json) into runnable
//! cases, with selection by id, curation status and partition.

use std::path::Path;

use crate::generate::store::read_artifact;
use crate::generate::{ArtifactKind, CaseStatus, Dataset, PersonaSet, ScenarioSet};
use crate::run::store::manifest::in_partition;
use crate::trial::case::{CaseSpec, Expected, ExpectedToolCall, PersonaView, ScenarioView};

/// Which cases to run.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Only these case ids (empty = all).
    pub(crate) ids: Vec<String>,
    /// Also run cases still pending review (approved ones always run).
    pub(crate) include_pending: bool,
    /// `(index, count)`, 1-based.
    pub(crate) partition: Option<(u32, u32)>,
}

/// Makes `redactor` leave the structural names of the job's dataset whole (every case,
/// pending ones too); a dataset that cannot be read protects nothing (masking stays the safe
/// side). Refuses a name that holds a known secret.
pub(crate) fn protect_dataset_names(
    redactor: &mut crate::redact::Redactor,
    state_dir: &Path,
) -> Result<(), crate::redact::SecretInName> {
    let every = Selection {
        include_pending: true,
        ..Selection::default()
    };
    let cases = load_cases(state_dir, &every).unwrap_or_default();
    redactor.protect(cases.iter().flat_map(|c| c.structural_names()))
}

/// Why the dataset's cases could not be read or selected.
#[derive(Debug, thiserror::Error)]
pub enum CasesError {
    /// A dataset, personas or scenarios file is missing or invalid (the error names the file).
    #[error(transparent)]
    Artifact(#[from] crate::generate::GenerateError),
    #[error("case `{id}` is not in the dataset")]
    UnknownCase { id: String },
    #[error("case `{case}`: persona `{persona}` is missing")]
    MissingPersona { case: String, persona: String },
    #[error("case `{case}`: scenario `{scenario}` is missing")]
    MissingScenario { case: String, scenario: String },
}

/// Reads the dataset under `state_dir` and returns the selected cases, in dataset order.
pub fn load_cases(state_dir: &Path, sel: &Selection) -> Result<Vec<CaseSpec>, CasesError> {
    let dataset: Dataset = read_artifact(state_dir, ArtifactKind::Dataset)?;
    let personas: PersonaSet = read_artifact(state_dir, ArtifactKind::Persona)?;
    let scenarios: ScenarioSet = read_artifact(state_dir, ArtifactKind::Scenario)?;
    for id in &sel.ids {
        if !dataset.cases.iter().any(|c| &c.id == id) {
            return Err(CasesError::UnknownCase { id: id.clone() });
        }
    }
    let mut out = Vec::new();
    for case in &dataset.cases {
        let wanted = if sel.ids.is_empty() {
            case.status == CaseStatus::Approved || (sel.include_pending && case.status == CaseStatus::Pending)
        } else {
            sel.ids.contains(&case.id)
        };
        if !wanted || sel.partition.is_some_and(|(i, n)| !in_partition(&case.id, i, n)) {
            continue;
        }
        let persona =
            personas
                .personas
                .iter()
                .find(|p| p.id == case.persona)
                .ok_or_else(|| CasesError::MissingPersona {
                    case: case.id.clone(),
                    persona: case.persona.clone(),
                })?;
        let s = scenarios
            .scenarios
            .iter()
            .find(|s| s.id == case.scenario)
            .ok_or_else(|| CasesError::MissingScenario {
                case: case.id.clone(),
                scenario: case.scenario.clone(),
            })?;
        let e = &s.expected_outcome;
        out.push(CaseSpec {
            id: case.id.clone(),
            trial: 1,
            persona: PersonaView {
                id: persona.id.clone(),
                name: persona.name.clone(),
                summary: persona.summary.clone(),
                traits: persona.traits.clone(),
                context: persona.context.clone(),
            },
            scenario: ScenarioView {
                id: s.id.clone(),
                title: s.title.clone(),
                goal: s.goal.clone(),
                opening_message: s.opening_message.clone(),
                success_criteria: s.success_criteria.clone(),
                failure_signals: s.failure_signals.clone(),
                stop_conditions: s.stop_conditions.clone(),
                max_turns: s.max_turns,
                exercises: s.exercises.clone(),
                expected: Expected {
                    must_include: e.must_include.clone(),
                    must_not_include: e.must_not_include.clone(),
                    tool_calls: e
                        .expected_tool_calls
                        .iter()
                        .map(|t| ExpectedToolCall {
                            tool: t.clone(),
                            arguments: None,
                        })
                        .collect(),
                    forbidden_tool_calls: e.forbidden_tool_calls.clone(),
                    files: Vec::new(),
                    checks: e.checks.clone(),
                },
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_invalid_dataset_is_an_artifact_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = load_cases(dir.path(), &Selection::default()).unwrap_err();
        assert!(matches!(missing, CasesError::Artifact(_)), "{missing:?}");
        assert!(missing.to_string().contains("dataset.json"), "{missing}");
        std::fs::write(dir.path().join("dataset.json"), r#"{"version": 1}"#).unwrap();
        let invalid = load_cases(dir.path(), &Selection::default()).unwrap_err();
        // The words are the artifact reader's own, as before the error was typed.
        let direct = read_artifact::<Dataset>(dir.path(), ArtifactKind::Dataset).unwrap_err();
        assert_eq!(invalid.to_string(), direct.to_string());
    }

    #[test]
    fn selection_errors_name_the_case_and_what_it_lacks() {
        assert_eq!(
            CasesError::UnknownCase { id: "c9".into() }.to_string(),
            "case `c9` is not in the dataset"
        );
        let persona = CasesError::MissingPersona {
            case: "c1".into(),
            persona: "p2".into(),
        };
        assert_eq!(persona.to_string(), "case `c1`: persona `p2` is missing");
        let scenario = CasesError::MissingScenario {
            case: "c1".into(),
            scenario: "s3".into(),
        };
        assert_eq!(scenario.to_string(), "case `c1`: scenario `s3` is missing");
    }
}
