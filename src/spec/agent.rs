//! The configured agent: identity, the OpenCode runtime block (keys mirror OpenCode 1:1),
//! the workspace; its inputs (MCP servers, skills, assets) are in `agent_inputs`.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::agent_inputs::Inputs;
use super::limits;

/// The agent under test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Agent {
    /// Stable identifier, used in artifact names.
    #[schemars(length(min = 1), regex(pattern = limits::NON_BLANK_PATTERN))]
    pub id: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// The user's own words about the agent's purpose; authoritative for purpose inference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// How the agent runs: backend plus the OpenCode configuration surface.
    #[serde(default)]
    pub runtime: Runtime,
    /// Code the agent operates on; copied into every sandbox session, never bound writable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) workspace: Option<String>,
    /// MCP servers, skills and assets attached to the agent.
    #[serde(default, skip_serializing_if = "Inputs::is_empty")]
    pub inputs: Inputs,
}

/// Which agent host drives the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// The real OpenCode CLI (`opencode run --format json`).
    #[default]
    Opencode,
    /// The Codex CLI, continuing its thread id across turns.
    Codex,
    /// Any command, started fresh for each turn.
    Process,
    /// Deterministic scripted replies (for harness tests).
    Mock,
}

/// The runtime block. Keys after `backend` map 1:1 onto OpenCode's project config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Runtime {
    /// Which agent host drives the agent (`opencode` unless set).
    #[serde(default)]
    pub backend: Backend,
    /// `provider/model` used by the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `provider/model` for small tasks such as titles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) small_model: Option<String>,
    /// Agent selected for every turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// How deep subagents may call further subagents.
    #[schemars(range(min = limits::SUBAGENT_DEPTH.min, max = limits::SUBAGENT_DEPTH.max))]
    pub(crate) subagent_depth: Option<u32>,
    /// Instruction files (relative to job.yaml).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<String>,
    /// OpenCode `skills`: skill folders and URLs.
    #[serde(default, skip_serializing_if = "Skills::is_empty")]
    pub skills: Skills,
    /// OpenCode `agent` map: primary agents and subagents.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub agents: IndexMap<String, AgentDef>,
    /// Tool switches (`webfetch: false`).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) tools: IndexMap<String, bool>,
    /// OpenCode `permission`: `allow`, `ask` or `deny` for everything, or per tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<Permission>,
    /// OpenCode `command` map.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) commands: IndexMap<String, Command>,
    /// OpenCode `provider` map.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) provider: IndexMap<String, Provider>,
    /// OpenCode `plugin` list: an npm package or file URL, or `[name, {options}]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) plugins: Vec<Plugin>,
    /// Other OpenCode settings, passed to OpenCode unchanged.
    #[serde(default, skip_serializing_if = "OpencodeSettings::is_empty")]
    pub(crate) settings: OpencodeSettings,
}

/// One OpenCode plugin: its name, or its name with options. A local plugin file is written
/// `file:<path>`, the path relative to job.yaml (npm's `file:` form) or absolute
/// (`file:///abs/x.ts`); the emitted config names it by an absolute `file://` URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Plugin {
    Name(String),
    WithOptions(String, IndexMap<String, serde_json::Value>),
}

impl Plugin {
    /// The package name or file URL, without options.
    pub(crate) fn spec(&self) -> &str {
        match self {
            Plugin::Name(s) | Plugin::WithOptions(s, _) => s,
        }
    }

    /// The path of a local plugin file (`file:./x.ts` → `./x.ts`, `file:///a/x.ts` →
    /// `/a/x.ts`); `None` for an npm package.
    pub(crate) fn local_file(&self) -> Option<&str> {
        let rest = self.spec().strip_prefix("file:")?;
        Some(rest.strip_prefix("//").unwrap_or(rest))
    }

    /// The same plugin naming `spec` instead (options kept).
    pub(crate) fn with_spec(&self, spec: String) -> Plugin {
        match self {
            Plugin::Name(_) => Plugin::Name(spec),
            Plugin::WithOptions(_, o) => Plugin::WithOptions(spec, o.clone()),
        }
    }
}

/// OpenCode keys that do not describe agents, tools or models but still change how OpenCode
/// behaves (formatting after edits, LSP diagnostics, compaction, …). Values are passed
/// through as written; OpenCode validates them when it starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpencodeSettings {
    /// Shell for the bash tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shell: Option<String>,
    /// OpenCode's log level (`DEBUG`, `INFO`, `WARN`, `ERROR`).
    #[serde(default, rename = "logLevel", skip_serializing_if = "Option::is_none")]
    pub(crate) log_level: Option<String>,
    /// Name OpenCode shows for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) username: Option<String>,
    /// Git snapshots of the workspace after each step (used for undo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) snapshot: Option<bool>,
    /// File watcher settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) watcher: Option<serde_json::Value>,
    /// Only these providers are loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) enabled_providers: Option<Vec<String>>,
    /// These providers are never loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) disabled_providers: Option<Vec<String>>,
    /// Formatters run after every edit: `false`, or per formatter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) formatter: Option<serde_json::Value>,
    /// Language servers whose diagnostics the agent sees: `false`, or per server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) lsp: Option<serde_json::Value>,
    /// When and how the conversation is compacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) compaction: Option<serde_json::Value>,
    /// Limits on tool output kept in context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tool_output: Option<serde_json::Value>,
    /// Attachment handling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) attachment: Option<serde_json::Value>,
    /// Interface layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) layout: Option<serde_json::Value>,
    /// Reference settings, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) references: Option<serde_json::Value>,
    /// Reference settings, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reference: Option<serde_json::Value>,
    /// Enterprise settings, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) enterprise: Option<serde_json::Value>,
    /// Experimental OpenCode settings, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) experimental: Option<serde_json::Value>,
}

impl OpencodeSettings {
    pub(crate) fn is_empty(&self) -> bool {
        self == &OpencodeSettings::default()
    }
}

/// OpenCode `skills`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Skills {
    /// Skill folders, each holding a SKILL.md.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Skill URLs OpenCode fetches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) urls: Vec<String>,
}

impl Skills {
    pub(crate) fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.urls.is_empty()
    }
}

/// One OpenCode agent (`agent.<name>`). Unknown keys fail instead of drifting into `options`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct AgentDef {
    /// When OpenCode should pick this agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// Inline text, `{file:./path}`, or a relative path (`./prompts/release.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// `provider/model` for this agent; the runtime's model otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
    /// The model variant (provider-specific, e.g. a reasoning effort).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) variant: Option<String>,
    /// Sampling temperature, 0..=2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::TEMPERATURE.min, max = limits::TEMPERATURE.max))]
    pub(crate) temperature: Option<f64>,
    /// Nucleus sampling mass, 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::TOP_P.min, max = limits::TOP_P.max))]
    pub(crate) top_p: Option<f64>,
    /// Most agentic steps per turn, 1..=1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::STEPS.min, max = limits::STEPS.max))]
    pub steps: Option<u32>,
    /// `primary` (selectable), `subagent` (called by others) or `all`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mode: Option<AgentMode>,
    /// Tool switches for this agent (`bash: false`).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) tools: IndexMap<String, bool>,
    /// This agent's permissions; override the runtime's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) permission: Option<Permission>,
    /// Removes the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) disable: Option<bool>,
    /// Hides a subagent from the `@` menu.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) hidden: Option<bool>,
    /// Colour in OpenCode's interface (`#RRGGBB`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) color: Option<String>,
    /// Provider-specific options passed through unchanged.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) options: IndexMap<String, serde_json::Value>,
}

/// Where an OpenCode agent can be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AgentMode {
    Primary,
    Subagent,
    All,
}

/// A permission action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Allow,
    Ask,
    Deny,
}

/// OpenCode `permission`: one action for everything, or a rule per tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Permission {
    All(Action),
    PerTool(IndexMap<String, PermissionRule>),
}

/// A per-tool rule: an action, or `{glob pattern: action}` where the last match wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PermissionRule {
    Action(Action),
    Patterns(IndexMap<String, Action>),
}

/// OpenCode `command.<name>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Command {
    /// The prompt sent; `$ARGUMENTS` is replaced by what follows the command.
    pub(crate) template: String,
    /// Shown in OpenCode's command list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// Agent that runs the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    /// `provider/model` for the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
    /// The model variant for the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) variant: Option<String>,
    /// Run as a subagent task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subtask: Option<bool>,
}

/// OpenCode `provider.<id>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Provider {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// The AI SDK package, e.g. `@ai-sdk/openai-compatible`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) npm: Option<String>,
    /// The provider's API endpoint kind or URL, as OpenCode reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) api: Option<String>,
    /// Variables OpenCode reads the key from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) env: Vec<String>,
    /// `baseURL`, `apiKey` (as `${VAR}`), timeouts; passed through.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) options: IndexMap<String, serde_json::Value>,
    /// Models offered, by id; passed through.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) models: IndexMap<String, serde_json::Value>,
    /// Only these model ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) whitelist: Vec<String>,
    /// Never these model ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) blacklist: Vec<String>,
}
