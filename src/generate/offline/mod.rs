//! The offline proposer: deterministic, no network, the default. It reads the configuration's
//! own content (description, instructions, skills, agent prompts, MCP tools, permissions,
//! workspace shape) and records where every proposal came from.
//!
//! It must never emit text that cannot be traced to an input.

mod audience;
mod checks;
pub(crate) use checks::sanction_workflow_files;
mod personas;
mod profile;
mod purpose;
mod risks;
mod scenarios;
pub(crate) mod text;
mod tool_phrase;
mod tool_risks;
mod writing;

use futures::future::BoxFuture;

use super::context::ProfileContext;
use super::dataset::{PersonaSet, ScenarioSet};
use super::profile::AgentProfile;
use super::{GenerateError, Proposer};

pub(crate) use profile::infer_profile;

/// Builds proposals from the configuration's own text, without a model.
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineProposer;

impl Proposer for OfflineProposer {
    fn label(&self) -> String {
        "offline".into()
    }

    fn propose_profile<'a>(&'a self, ctx: &'a ProfileContext) -> BoxFuture<'a, Result<AgentProfile, GenerateError>> {
        Box::pin(async move { Ok(profile::infer_profile(ctx)) })
    }

    fn propose_personas<'a>(
        &'a self,
        profile: &'a AgentProfile,
        count: usize,
    ) -> BoxFuture<'a, Result<PersonaSet, GenerateError>> {
        Box::pin(async move { Ok(personas::propose(profile, count)) })
    }

    fn propose_scenarios<'a>(
        &'a self,
        profile: &'a AgentProfile,
        personas: &'a PersonaSet,
        per_persona: usize,
    ) -> BoxFuture<'a, Result<ScenarioSet, GenerateError>> {
        Box::pin(async move { Ok(scenarios::propose(profile, personas, per_persona)) })
    }
}
