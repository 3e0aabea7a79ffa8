//! Purpose inference and test generation: the agent profile (agent-profile.json), personas,
//! scenarios and the curated dataset, proposed offline from the configuration's own content or
//! by a language model, and validated against their JSON Schemas before use.
//!
//! This module never touches the terminal and never writes a file except through
//! `util::write_json_atomic` under the job's state dir.

pub mod check;
pub(crate) mod context;
pub mod dataset;
pub(crate) mod inventory;
pub(crate) mod llm_proposer;
pub(crate) mod markdown;
pub(crate) mod offline;
pub mod pipeline;
pub mod profile;
pub mod schema;
pub mod store;

pub(crate) use context::ProfileContext;
pub use dataset::{CaseStatus, Dataset, Persona, PersonaSet, ScenarioSet};
pub(crate) use llm_proposer::LlmProposer;
pub use offline::OfflineProposer;
pub use profile::{AgentProfile, Risk, Workflow};
pub use schema::ArtifactKind;

use futures::future::BoxFuture;
use std::path::PathBuf;

use crate::llm::LlmError;

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// An input of the agent's configuration could not be read.
    #[error("{}: {detail}", file.display())]
    Input { file: PathBuf, detail: String },
    /// A stored artifact is missing, unreadable or invalid.
    #[error("{}: {detail}", path.display())]
    Artifact { path: PathBuf, detail: String },
    /// The model answered twice with something that is not a valid artifact.
    #[error("the model gave no valid {artifact} after {attempts} attempts; last problem: {detail}")]
    InvalidAnswer {
        artifact: &'static str,
        attempts: u32,
        detail: String,
    },
    /// A generated artifact failed its own checks (a bug in the proposer, not in the input).
    #[error("the generated {artifact} is invalid: {detail}")]
    Invalid { artifact: &'static str, detail: String },
    /// The model could not be reached; an infrastructure problem.
    #[error("model call failed: {0}")]
    Llm(#[from] LlmError),
}

/// Proposes the profile, personas and scenarios for one agent.
pub trait Proposer: Send + Sync {
    /// A short label recorded with what it produced (`offline`, `llm:openai:gpt-4.1`).
    fn label(&self) -> String;

    /// Infers the agent's purpose profile from its configuration.
    fn propose_profile<'a>(&'a self, ctx: &'a ProfileContext) -> BoxFuture<'a, Result<AgentProfile, GenerateError>>;

    /// Proposes up to `count` personas grounded in the profile.
    fn propose_personas<'a>(
        &'a self,
        profile: &'a AgentProfile,
        count: usize,
    ) -> BoxFuture<'a, Result<PersonaSet, GenerateError>>;

    /// Proposes about `per_persona` scenarios per persona; every risk gets an adversarial or
    /// security scenario even when that exceeds the budget.
    fn propose_scenarios<'a>(
        &'a self,
        profile: &'a AgentProfile,
        personas: &'a PersonaSet,
        per_persona: usize,
    ) -> BoxFuture<'a, Result<ScenarioSet, GenerateError>>;
}
