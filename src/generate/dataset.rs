//! Personas, scenarios and the curated dataset (personas.json, scenarios.json, dataset.json).
//!
//! Pure data plus curation operations; no file access, no model calls.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The format version of personas.json, scenarios.json and dataset.json.
pub(crate) const DATASET_VERSION: u32 = 1;

/// personas.json: the simulated users.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PersonaSet {
    #[schemars(range(min = 1, max = 1))]
    pub(crate) version: u32,
    pub personas: Vec<Persona>,
}

/// A durable user identity the emulator plays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Persona {
    /// Stable identifier, referenced by scenarios and cases.
    pub id: String,
    pub name: String,
    pub(crate) summary: String,
    pub(crate) traits: Vec<String>,
    /// What this person knows and wants, in the agent's domain.
    pub(crate) context: String,
    /// Which parts of the profile this persona was derived from.
    pub(crate) why: String,
}

/// scenarios.json: the tasks the emulator pursues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSet {
    #[schemars(range(min = 1, max = 1))]
    pub(crate) version: u32,
    pub scenarios: Vec<Scenario>,
}

/// What a scenario tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioKind {
    /// A job the agent is for, done properly.
    Workflow,
    /// Social pressure to break one of the agent's rules.
    Adversarial,
    /// An attempt to leak secrets, do irreversible damage or leave the sandbox of its role.
    Security,
    /// A request the agent should decline.
    OutOfScope,
}

/// Which profile entry a scenario was generated from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    Workflow,
    Risk,
    OutOfScope,
}

/// Why a scenario exists: the profile entry and one sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Why {
    pub basis: Basis,
    /// The workflow, risk or scope-limit id in agent-profile.json.
    pub id: String,
    pub(crate) reason: String,
}

/// Deterministic expectations checked against the transcript, beside the judge's criteria.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct ExpectedOutcome {
    /// Text the agent's replies must contain.
    pub must_include: Vec<String>,
    /// Text the agent's replies must never contain.
    pub(crate) must_not_include: Vec<String>,
    /// Tools the agent must call (OpenCode names).
    pub expected_tool_calls: Vec<String>,
    /// Tools the agent must not call in this conversation.
    #[serde(default)]
    pub forbidden_tool_calls: Vec<String>,
    /// Deterministic checks on what the harness observes (files, git refs, attempted
    /// commands, network, secrets, empty answers).
    #[serde(default, skip_serializing_if = "crate::trial::checks::ScenarioChecks::is_default")]
    pub checks: crate::trial::checks::ScenarioChecks,
}

/// One task for the user emulator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub id: String,
    pub(crate) title: String,
    /// The persona id.
    pub persona: String,
    pub goal: String,
    pub(crate) opening_message: String,
    pub success_criteria: Vec<String>,
    pub failure_signals: Vec<String>,
    /// When the conversation has shown enough: `tool_called: <tool>` (a `*` suffix matches a
    /// prefix), `file_written: <workspace path>` and `agent_says: <phrase>` are settled from the
    /// turn's events; any other sentence is watched for by the simulated user.
    pub(crate) stop_conditions: Vec<String>,
    #[schemars(range(min = 1, max = 50))]
    pub max_turns: u32,
    /// Tools the conversation drives toward (OpenCode names); a PASS needs a call to at least one
    /// of them that is not also forbidden (`judge::exercises`).
    pub(crate) exercises: Vec<String>,
    pub kind: ScenarioKind,
    pub why: Why,
    pub expected_outcome: ExpectedOutcome,
}

/// dataset.json: one case per scenario with its curation status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dataset {
    #[schemars(range(min = 1, max = 1))]
    pub(crate) version: u32,
    pub cases: Vec<Case>,
}

/// Where a case stands in review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseStatus {
    Pending,
    Approved,
    Rejected,
    #[serde(alias = "needs-edit")]
    NeedsEdit,
}

impl CaseStatus {
    /// The lowercase word used in listings.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            CaseStatus::Pending => "pending",
            CaseStatus::Approved => "approved",
            CaseStatus::Rejected => "rejected",
            CaseStatus::NeedsEdit => "needs_edit",
        }
    }
}

/// One persona × scenario pair to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub id: String,
    pub(crate) persona: String,
    pub scenario: String,
    pub status: CaseStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Dataset {
    /// All cases pending: one per scenario, paired with the scenario's persona.
    pub fn from_scenarios(scenarios: &ScenarioSet) -> Self {
        let cases = scenarios
            .scenarios
            .iter()
            .map(|s| Case {
                id: s.id.clone(),
                persona: s.persona.clone(),
                scenario: s.id.clone(),
                status: CaseStatus::Pending,
                note: None,
            })
            .collect();
        Dataset {
            version: DATASET_VERSION,
            cases,
        }
    }

    /// Sets the status (and note, when given) of the named cases; unknown ids are returned.
    pub fn set_status(&mut self, ids: &[String], status: CaseStatus, note: Option<&str>) -> Vec<String> {
        let mut unknown = Vec::new();
        for id in ids {
            match self.cases.iter_mut().find(|c| &c.id == id) {
                Some(case) => {
                    case.status = status;
                    if let Some(n) = note {
                        case.note = Some(n.to_string());
                    }
                }
                None => unknown.push(id.clone()),
            }
        }
        unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_edit_reads_both_spellings() {
        let a: CaseStatus = serde_json::from_str("\"needs_edit\"").unwrap();
        let b: CaseStatus = serde_json::from_str("\"needs-edit\"").unwrap();
        assert_eq!(a, CaseStatus::NeedsEdit);
        assert_eq!(b, CaseStatus::NeedsEdit);
    }

    #[test]
    fn set_status_reports_unknown_ids() {
        let mut d = Dataset {
            version: DATASET_VERSION,
            cases: vec![Case {
                id: "a".into(),
                persona: "p".into(),
                scenario: "a".into(),
                status: CaseStatus::Pending,
                note: None,
            }],
        };
        let unknown = d.set_status(&["a".into(), "zz".into()], CaseStatus::Approved, Some("ok"));
        assert_eq!(unknown, vec!["zz".to_string()]);
        assert_eq!(d.cases[0].status, CaseStatus::Approved);
        assert_eq!(d.cases[0].note.as_deref(), Some("ok"));
    }
}
