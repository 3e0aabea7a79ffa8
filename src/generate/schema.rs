//! JSON Schemas of the generated artifacts, produced from the Rust types, and validation of
//! any JSON value against them. The checked-in copies live in schemas/; a test fails when they
//! are stale.
//!
//! Nothing here reads or writes files.

use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::LazyLock;

use super::dataset::{Dataset, PersonaSet, ScenarioSet};
use super::profile::AgentProfile;

/// The generated artifact formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArtifactKind {
    AgentProfile,
    Persona,
    Scenario,
    Dataset,
}

impl ArtifactKind {
    /// Every artifact kind, in pipeline order.
    pub const ALL: [ArtifactKind; 4] = [
        ArtifactKind::AgentProfile,
        ArtifactKind::Persona,
        ArtifactKind::Scenario,
        ArtifactKind::Dataset,
    ];

    /// The kebab-case name used in schema file names and messages.
    pub fn name(self) -> &'static str {
        match self {
            ArtifactKind::AgentProfile => "agent-profile",
            ArtifactKind::Persona => "persona",
            ArtifactKind::Scenario => "scenario",
            ArtifactKind::Dataset => "dataset",
        }
    }

    /// The artifact's file name under the job's state dir.
    pub fn artifact_file(self) -> &'static str {
        match self {
            ArtifactKind::AgentProfile => "agent-profile.json",
            ArtifactKind::Persona => "personas.json",
            ArtifactKind::Scenario => "scenarios.json",
            ArtifactKind::Dataset => "dataset.json",
        }
    }

    /// The schema's file name in schemas/.
    pub fn schema_file(self) -> String {
        format!("{}.schema.json", self.name())
    }

    fn title(self) -> &'static str {
        match self {
            ArtifactKind::AgentProfile => "Ghostlab agent-profile.json",
            ArtifactKind::Persona => "Ghostlab personas.json",
            ArtifactKind::Scenario => "Ghostlab scenarios.json",
            ArtifactKind::Dataset => "Ghostlab dataset.json",
        }
    }
}

fn generate<T: schemars::JsonSchema>(title: &str) -> Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).expect("schema serializes");
    if let Some(obj) = value.as_object_mut() {
        obj.insert("title".into(), Value::String(title.into()));
    }
    value
}

struct Compiled {
    schema: Value,
    validator: jsonschema::Validator,
}

fn compiled(kind: ArtifactKind) -> &'static Compiled {
    fn build(kind: ArtifactKind) -> Compiled {
        let schema = match kind {
            ArtifactKind::AgentProfile => generate::<AgentProfile>(kind.title()),
            ArtifactKind::Persona => generate::<PersonaSet>(kind.title()),
            ArtifactKind::Scenario => generate::<ScenarioSet>(kind.title()),
            ArtifactKind::Dataset => generate::<Dataset>(kind.title()),
        };
        let validator = jsonschema::validator_for(&schema).expect("generated schema compiles");
        Compiled { schema, validator }
    }
    static PROFILE: LazyLock<Compiled> = LazyLock::new(|| build(ArtifactKind::AgentProfile));
    static PERSONA: LazyLock<Compiled> = LazyLock::new(|| build(ArtifactKind::Persona));
    static SCENARIO: LazyLock<Compiled> = LazyLock::new(|| build(ArtifactKind::Scenario));
    static DATASET: LazyLock<Compiled> = LazyLock::new(|| build(ArtifactKind::Dataset));
    match kind {
        ArtifactKind::AgentProfile => &PROFILE,
        ArtifactKind::Persona => &PERSONA,
        ArtifactKind::Scenario => &SCENARIO,
        ArtifactKind::Dataset => &DATASET,
    }
}

/// The artifact's JSON Schema.
pub(crate) fn artifact_schema(kind: ArtifactKind) -> &'static Value {
    &compiled(kind).schema
}

/// The schema as the text stored in schemas/<kind>.schema.json.
pub fn artifact_schema_text(kind: ArtifactKind) -> String {
    let mut text = serde_json::to_string_pretty(artifact_schema(kind)).expect("schema serializes");
    text.push('\n');
    text
}

/// Every violation of the artifact's schema, as `at <json pointer>: <message>` lines.
pub fn schema_violations(kind: ArtifactKind, value: &Value) -> Vec<String> {
    compiled(kind)
        .validator
        .iter_errors(value)
        .map(|e| {
            let at = e.instance_path().to_string();
            let at = if at.is_empty() { "/".to_string() } else { at };
            format!("at {at}: {e}")
        })
        .collect()
}

/// Validates `value` against the artifact's schema and converts it to its Rust type.
pub(crate) fn parse_artifact<T: DeserializeOwned>(kind: ArtifactKind, value: Value) -> Result<T, Vec<String>> {
    let violations = schema_violations(kind, &value);
    if !violations.is_empty() {
        return Err(violations);
    }
    serde_json::from_value(value).map_err(|e| vec![format!("does not match the {} format: {e}", kind.name())])
}

/// Serializes a typed artifact and checks it against its schema (a failure is a bug here).
pub(crate) fn checked_value<T: serde::Serialize>(kind: ArtifactKind, artifact: &T) -> Result<Value, Vec<String>> {
    let value = serde_json::to_value(artifact).map_err(|e| vec![e.to_string()])?;
    let violations = schema_violations(kind, &value);
    if violations.is_empty() {
        Ok(value)
    } else {
        Err(violations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_compiles_and_rejects_unknown_keys() {
        for kind in ArtifactKind::ALL {
            let bad = serde_json::json!({"version": 1, "surprise": true});
            let errors = schema_violations(kind, &bad);
            assert!(!errors.is_empty(), "{} accepted junk", kind.name());
        }
    }

    #[test]
    fn dataset_round_trips() {
        let v = serde_json::json!({"version": 1, "cases": [
            {"id": "c1", "persona": "p", "scenario": "c1", "status": "pending"}]});
        let d: Dataset = parse_artifact(ArtifactKind::Dataset, v).unwrap();
        assert_eq!(d.cases.len(), 1);
        let bad = serde_json::json!({"version": 1, "cases": [
            {"id": "c1", "persona": "p", "scenario": "c1", "status": "maybe"}]});
        let errors = parse_artifact::<Dataset>(ArtifactKind::Dataset, bad).unwrap_err();
        assert!(errors[0].contains("/cases/0/status"), "{errors:?}");
    }
}
