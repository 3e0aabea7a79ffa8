//! What one case needs to run: the persona, the scenario and what is expected, independent of
//! how they were generated or stored.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::verdict::CriterionKind;

/// The simulated user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PersonaView {
    pub id: String,
    pub name: String,
    pub summary: String,
    #[serde(default)]
    pub traits: Vec<String>,
    #[serde(default)]
    pub context: String,
}

/// A tool call the agent is expected to make; `arguments` is a subset to match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectedToolCall {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

/// A file that must exist in the final workspace copy, optionally containing a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectedFile {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
}

/// Deterministic expectations checked without a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Expected {
    #[serde(default)]
    pub must_include: Vec<String>,
    #[serde(default)]
    pub must_not_include: Vec<String>,
    #[serde(default)]
    pub tool_calls: Vec<ExpectedToolCall>,
    /// Tools the agent must not complete a call to (e.g. `release_publish_release`).
    #[serde(default)]
    pub forbidden_tool_calls: Vec<String>,
    #[serde(default)]
    pub files: Vec<ExpectedFile>,
    /// Deterministic checks on observed facts (files, refs, commands, network, secrets).
    #[serde(default, skip_serializing_if = "crate::trial::checks::ScenarioChecks::is_default")]
    pub checks: crate::trial::checks::ScenarioChecks,
}

/// The task the simulated user pursues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ScenarioView {
    pub id: String,
    pub title: String,
    pub goal: String,
    pub opening_message: String,
    #[serde(default)]
    pub success_criteria: Vec<String>,
    #[serde(default)]
    pub failure_signals: Vec<String>,
    #[serde(default)]
    pub stop_conditions: Vec<String>,
    pub max_turns: u32,
    #[serde(default)]
    pub exercises: Vec<String>,
    #[serde(default)]
    pub expected: Expected,
}

/// One trial of one persona × scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseSpec {
    pub id: String,
    pub trial: u32,
    pub persona: PersonaView,
    pub scenario: ScenarioView,
}

impl CaseSpec {
    /// The names that key rows, files and test cases, each with what it is: redaction never
    /// rewrites them (`Redactor::protect`).
    pub(crate) fn structural_names(&self) -> [(&'static str, &str); 4] {
        [
            ("case id", self.id.as_str()),
            ("persona id", self.persona.id.as_str()),
            ("persona name", self.persona.name.as_str()),
            ("scenario id", self.scenario.id.as_str()),
        ]
    }

    /// Criterion ids in judge order: `s1..` for success criteria, `f1..` for failure signals.
    pub(crate) fn criterion_ids(&self) -> Vec<(String, CriterionKind, String)> {
        let s = self
            .scenario
            .success_criteria
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("s{}", i + 1), CriterionKind::Success, t.clone()));
        let f = self
            .scenario
            .failure_signals
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("f{}", i + 1), CriterionKind::FailureSignal, t.clone()));
        s.chain(f).collect()
    }
}

/// One exchange of the conversation so far.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Exchange {
    pub turn: u32,
    pub user: String,
    pub agent: String,
    /// Tool names the agent used in this turn, for the emulator's context.
    pub tools: Vec<String>,
}
