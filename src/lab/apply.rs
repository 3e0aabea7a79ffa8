//! Turning a step's answer text into changes to the job. Pure: the same text always makes the
//! same job, which is why the headless and the interactive wizard end with the same job.yaml.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

use super::answer_check::{AnswerKey, parse_answer};
use super::answer_error::AnswerError;
use super::step::StepId;
use super::types::Artifacts;
use crate::spec::review::Gates;
use crate::spec::sandbox::Credentials;
use crate::spec::{
    Job, McpInput, NetworkMode, Permission, PermissionRule, SandboxBackend, gate_rules, network_rules, parse_job_text,
};

/// What accepting an answer produced besides the job change.
#[derive(Debug, Default)]
pub struct Applied {
    /// A warning the person must confirm with a second accept.
    pub(crate) warning: Option<String>,
    /// The accepted generated artifact (profile, personas, scenarios).
    pub(crate) artifact: Option<Value>,
}

/// The editable part of the sandbox: what step 7 asks about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SandboxAnswer {
    pub(crate) backend: SandboxBackend,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) image: Option<String>,
    pub(crate) network: NetworkMode,
    #[serde(default)]
    pub(crate) allow: Vec<String>,
    #[serde(default)]
    pub(crate) credentials: Credentials,
}

/// The editable part of step 5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SkillsAnswer {
    #[serde(default)]
    pub(crate) instructions: Vec<String>,
    #[serde(default)]
    pub(crate) skills: Vec<String>,
    #[serde(default)]
    pub(crate) assets: Vec<String>,
}

/// Applies `text` as the answer of `step` to `job`, or says what is wrong with it.
pub fn apply_answer(step: StepId, text: &str, job: &mut Job, artifacts: &Artifacts) -> Result<Applied, AnswerError> {
    let mut out = Applied::default();
    match step {
        StepId::Source => {
            let mut parsed = parse_job_text(Path::new("job.yaml"), text)?;
            // A new source replaces every later answer, so none of them counts as accepted.
            parsed.lab = Default::default();
            *job = parsed;
        }
        StepId::Purpose => {
            let words = text.trim();
            if words.is_empty() {
                return Err(AnswerError::EmptyPurpose);
            }
            job.agent.description = Some(words.to_string());
        }
        StepId::Model => apply_model(text, job)?,
        StepId::Mcps => apply_mcps(text, job)?,
        StepId::Skills => {
            let a: SkillsAnswer = parse_yaml(text, "instructions and skills")?;
            job.agent.runtime.instructions = a.instructions;
            job.agent.runtime.skills.paths = a.skills;
            job.agent.inputs.assets = a.assets;
        }
        StepId::Permissions => {
            let key = AnswerKey {
                keys: &["agent", "runtime", "permission"],
                merge: false,
            };
            let rules: IndexMap<String, PermissionRule> = parse_answer(text, "the permission map", key, job)?;
            job.agent.runtime.permission = Some(Permission::PerTool(rules));
        }
        StepId::Sandbox => out.warning = apply_sandbox(text, job)?,
        StepId::Profile | StepId::Personas | StepId::Scenarios => {
            let value: Value = parse_yaml(text, step.title())?;
            if value.is_null() {
                return Err(AnswerError::EmptyArtifact {
                    what: step.title().to_lowercase(),
                });
            }
            if step == StepId::Scenarios && !artifacts.contains_key(&StepId::Personas) {
                return Err(AnswerError::PersonasFirst);
            }
            out.artifact = Some(value);
        }
        StepId::Gates => {
            let key = AnswerKey {
                keys: &["review", "gates"],
                merge: false,
            };
            let gates: Gates = parse_answer(text, "the gates answer", key, job)?;
            if let Some(b) = gate_rules(&gates).into_iter().next() {
                return Err(AnswerError::Rule(b));
            }
            job.review.gates = gates;
        }
        StepId::Preview => {}
    }
    Ok(out)
}

/// Step 3: the role lines, then the agent's `provider/model`.
fn apply_model(text: &str, job: &mut Job) -> Result<(), AnswerError> {
    let rest = super::roles_step::apply(text, job)?;
    let model = rest.trim();
    if model.is_empty() {
        return Err(AnswerError::NoModel);
    }
    let ok = model
        .split_once('/')
        .is_some_and(|(p, m)| !p.is_empty() && !m.is_empty());
    if !ok || model.contains(char::is_whitespace) {
        return Err(AnswerError::NotProviderModel {
            model: model.to_string(),
        });
    }
    job.agent.runtime.model = Some(model.to_string());
    // The credential the person has for it becomes the Sandbox step's opt-in.
    let _ = super::usable_models::opt_in_for_model(job, model);
    Ok(())
}

/// Step 4: the server list; every server named, each name once.
fn apply_mcps(text: &str, job: &mut Job) -> Result<(), AnswerError> {
    let key = AnswerKey {
        keys: &["agent", "inputs", "mcps"],
        merge: false,
    };
    let mcps: Vec<McpInput> = parse_answer(text, "the MCP server list", key, job)?;
    for (i, m) in mcps.iter().enumerate() {
        let Some(name) = &m.server else {
            return Err(AnswerError::UnnamedServer { index: i + 1 });
        };
        // Discovery checks each server alone; a name used twice is the list's fault.
        if mcps[..i].iter().any(|o| o.server.as_ref() == Some(name)) {
            return Err(AnswerError::DuplicateServer { name: name.clone() });
        }
    }
    job.agent.inputs.mcps = mcps;
    Ok(())
}

/// Step 7: the sandbox; `local` comes back as a warning to confirm.
fn apply_sandbox(text: &str, job: &mut Job) -> Result<Option<String>, AnswerError> {
    let key = AnswerKey {
        keys: &["sandbox"],
        merge: true,
    };
    let a: SandboxAnswer = parse_answer(text, "the sandbox answer", key, job)?;
    if let Some(b) = network_rules(a.network, &a.allow, job.sandbox.policy.is_some())
        .into_iter()
        .next()
    {
        return Err(AnswerError::Rule(b));
    }
    let warning = (a.backend == SandboxBackend::Local).then(|| {
        "backend `local` has no isolation: the agent runs as you, with your files and network. \
         Accept again to confirm."
            .to_string()
    });
    let s = &mut job.sandbox;
    s.backend = a.backend;
    s.image = a.image;
    s.network = a.network;
    s.allow = a.allow;
    s.credentials = a.credentials;
    Ok(warning)
}

fn parse_yaml<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, AnswerError> {
    crate::spec::yaml_guard::parse_guarded(text).map_err(|e| AnswerError::Unusable {
        what: what.to_string(),
        problems: super::answer_check::plain(&e.to_string()),
    })
}

/// Serializes a value as answer text (YAML without a document marker).
pub fn to_answer_yaml<T: Serialize>(value: &T) -> String {
    yaml_serde::to_string(value).unwrap_or_default()
}
