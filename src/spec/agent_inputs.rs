//! The inputs attached to the agent: MCP servers (a reference into an MCP servers file, or
//! inline), skill folders and assets.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{limits, schema_rules};

/// Inputs attached to the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Inputs {
    /// MCP servers the agent may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcps: Vec<McpInput>,
    /// Skill folders (each with SKILL.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<String>,
    /// Files staged into the sandbox beside the workspace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) assets: Vec<String>,
}

impl Inputs {
    pub(crate) fn is_empty(&self) -> bool {
        self.mcps.is_empty() && self.skills.is_empty() && self.assets.is_empty()
    }
}

/// One MCP server: a reference into a standard MCP servers file, or defined inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
#[schemars(transform = schema_rules::mcp_input)]
pub struct McpInput {
    /// A Claude Desktop / Cursor / VS Code / OpenCode MCP servers file (relative to job.yaml).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) config_ref: Option<String>,
    /// The server's name inside `config_ref`, or the name of an inline server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Inline stdio server: argv.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) command: Vec<String>,
    /// Working folder of an inline stdio server (relative to job.yaml).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cwd: Option<String>,
    /// Environment for a stdio server; secret values must be `${VAR}` references.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) environment: IndexMap<String, String>,
    /// Inline remote server (streamable HTTP or SSE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<String>,
    /// Inline remote server protocol; `streamable-http` unless set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) transport: Option<RemoteTransport>,
    /// HTTP headers; secret values must be `${VAR}` references.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) headers: IndexMap<String, String>,
    /// `false` keeps the server configured but off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Startup and request timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::MCP_TIMEOUT_MS.min, max = limits::MCP_TIMEOUT_MS.max))]
    pub(crate) timeout: Option<u64>,
}

/// Protocol of a remote MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RemoteTransport {
    StreamableHttp,
    Sse,
}
