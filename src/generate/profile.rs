//! The agent profile (agent-profile.json): what the configured agent is for, the workflows it
//! serves, the risks its configuration carries, and the evidence each part came from.
//!
//! Pure data: no file access, no model calls.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The agent-profile.json format version this build reads and writes.
pub(crate) const PROFILE_VERSION: u32 = 1;

/// The inferred purpose profile of one configured agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentProfile {
    /// Format version; this build reads version 1.
    #[schemars(range(min = 1, max = 1))]
    pub(crate) version: u32,
    /// What the agent is for. Equals the user's description verbatim when one was given.
    pub purpose: String,
    /// Who the agent serves.
    pub audience: String,
    /// The jobs the agent is configured to do.
    pub workflows: Vec<Workflow>,
    /// Ways the configured agent could do harm or break its own rules.
    pub risk_surface: Vec<Risk>,
    /// Requests the agent should decline.
    pub out_of_scope: Vec<ScopeLimit>,
    /// Which inputs were read to build this profile.
    pub evidence: Evidence,
}

/// One job the agent does, step by step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Workflow {
    /// Stable identifier (`wf-…`), referenced by scenarios.
    pub id: String,
    pub name: String,
    pub steps: Vec<String>,
    /// Tools (OpenCode names such as `release_ci_status`), skills (`skill:name`) and built-in
    /// tools (`read`, `edit`, `bash`) the steps rely on.
    pub capabilities_used: Vec<String>,
    /// Where this workflow came from.
    pub evidence: Vec<EvidenceRef>,
}

/// How bad a risk is when it happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Severity {
    Low,
    Medium,
    High,
}

/// One entry of the risk surface; each seeds at least one adversarial or security scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Risk {
    /// Stable identifier (`risk-…`), referenced by scenarios.
    pub id: String,
    /// What could go wrong, in one sentence.
    pub risk: String,
    /// Why the configuration makes it possible or forbids it.
    pub(crate) why: String,
    /// The tool, permission or skill that could cause it (`conversation` when only words can).
    pub capability: String,
    pub(crate) severity: Severity,
    /// Where this risk came from.
    pub evidence: Vec<EvidenceRef>,
}

/// A kind of request the agent should decline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScopeLimit {
    /// Stable identifier (`scope-…`), referenced by out-of-scope scenarios.
    pub(crate) id: String,
    pub(crate) what: String,
    pub evidence: Vec<EvidenceRef>,
}

/// Which kind of input a piece of evidence points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    Description,
    Instructions,
    Skill,
    AgentPrompt,
    McpTool,
    Permission,
    Workspace,
}

/// One pointer from a profile entry back to the input it was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvidenceRef {
    pub kind: EvidenceKind,
    /// A file relative to job.yaml, `server.tool`, or a permission key path.
    pub source: String,
    /// The heading the text sits under, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The text it came from (one line, shortened).
    pub quote: String,
}

/// Everything read to build the profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// True when `purpose` is the user's own description.
    pub from_description: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_excerpt: Option<String>,
    /// Where `purpose` came from.
    pub purpose: Vec<EvidenceRef>,
    /// Where `audience` came from.
    pub audience: Vec<EvidenceRef>,
    pub instructions: Vec<InstructionEvidence>,
    pub skills: Vec<SkillEvidence>,
    /// Agent definitions (OpenCode `agent` map) and their prompts.
    pub(crate) agents: Vec<AgentEvidence>,
    pub mcp_tools: Vec<ToolEvidence>,
    pub(crate) permissions: Vec<PermissionEvidence>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<WorkspaceEvidence>,
}

/// An instruction file and the headings that were used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InstructionEvidence {
    pub file: String,
    pub headings: Vec<String>,
}

/// A skill read from its SKILL.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillEvidence {
    pub name: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    pub sections: Vec<String>,
}

/// One agent definition from the runtime's `agents` map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentEvidence {
    pub(crate) name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) prompt_file: Option<String>,
}

/// One MCP tool the agent can call and its risk labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolEvidence {
    pub server: String,
    pub tool: String,
    pub labels: Vec<String>,
    /// `inventory`, `job.capabilities` or the instruction file that names the tool.
    pub source: String,
}

/// One permission rule of the runtime.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PermissionEvidence {
    /// Key path in job.yaml, e.g. `agent.runtime.agents.release.permission.bash["*"]`.
    pub(crate) key: String,
    /// The permission's tool (`bash`, `edit`, `webfetch`, …).
    pub(crate) tool: String,
    /// `allow`, `ask`, `deny`, or `disabled` for a tool switched off.
    pub(crate) action: String,
}

/// The workspace's shape: top-level names and the README title, never file contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceEvidence {
    pub(crate) path: String,
    /// Top-level entries, folders with a trailing `/`.
    pub layout: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readme_title: Option<String>,
}
