//! The wizard's command-line answers (`ghostlab lab --from … --model …`). A leaf: the step
//! proposer and the purpose draft both read them.

use crate::spec::SandboxBackend;
use std::path::PathBuf;

/// Command-line answers that replace a step's own suggestion.
#[derive(Debug, Clone, Default)]
pub struct Seeds {
    pub from: Option<PathBuf>,
    pub description: Option<String>,
    pub model: Option<String>,
    pub mcp_config: Option<PathBuf>,
    pub skills: Vec<PathBuf>,
    pub sandbox: Option<SandboxBackend>,
    /// `key=value` gate settings.
    pub gates: Vec<(String, String)>,
    /// Models for Ghostlab's own roles (step 3).
    pub roles: super::roles_step::RoleSeeds,
    /// `generation.personas` and `generation.scenarios_per_persona` for the imported job
    /// (step 1): a first run can be kept small.
    pub personas: Option<u32>,
    pub scenarios_per_persona: Option<u32>,
    /// The run serves the agent's model from a cassette (`--agent-cassette`): step 3 takes any
    /// `provider/model`, since no credential for it is needed.
    pub model_from_cassette: bool,
}
