//! The top-level job.yaml document.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::agent::Agent;
use super::review::{Generation, Paths, Review};
use super::sandbox::SandboxSpec;
use super::{limits, schema_rules};

/// The job.yaml format version this build reads and writes.
pub(crate) use super::limits::JOB_VERSION;

/// One agent under test and everything needed to test it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
#[schemars(transform = schema_rules::job)]
pub struct Job {
    /// Format version; this build reads version 1.
    pub(crate) version: u32,
    /// The agent under test.
    pub agent: Agent,
    /// Primary discovery target for MCP-only or skill-only jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// Where the agent, its MCP servers and its code run.
    #[serde(default)]
    pub sandbox: SandboxSpec,
    /// Commands run inside the agent's sandbox before the first turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) setup: Vec<SetupStep>,
    /// Per-runner settings for the agent hosts.
    #[serde(default, skip_serializing_if = "Hosts::is_empty")]
    pub hosts: Hosts,
    /// What the MCP servers expose, per server; refreshed by `ghostlab discover`.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub capabilities: IndexMap<String, Capabilities>,
    /// Which models propose, emulate the user and judge.
    #[serde(default)]
    pub generation: Generation,
    /// The release bar.
    #[serde(default)]
    pub review: Review,
    /// Where generated artifacts live.
    #[serde(default)]
    pub(crate) paths: Paths,
    /// The `ghostlab lab` wizard's progress.
    #[serde(default, skip_serializing_if = "LabProgress::is_empty")]
    pub lab: LabProgress,
}

/// A shorthand target: one MCP server or one skill. Read into the agent shape at load
/// (`spec::target`): the server becomes an `agent.inputs.mcps` entry, the skill an
/// `agent.inputs.skills` folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = schema_rules::target)]
pub struct Target {
    /// Name of the server or skill.
    #[schemars(length(min = 1), regex(pattern = limits::NON_BLANK_PATTERN))]
    pub(crate) id: String,
    /// How the target is reached.
    pub(crate) transport: TargetTransport,
    /// How to start or reach it.
    #[serde(default)]
    pub(crate) connection: Connection,
    /// Startup limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) startup: Option<Startup>,
}

/// How a shorthand target is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TargetTransport {
    Stdio,
    Sse,
    StreamableHttp,
    Skill,
}

/// How a shorthand target is started or reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Connection {
    /// Stdio server argv.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) command: Vec<String>,
    /// Environment for a stdio server; secret values must be `${VAR}` references.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) env: IndexMap<String, String>,
    /// Remote server URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<String>,
    /// HTTP headers; secret values must be `${VAR}` references.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) headers: IndexMap<String, String>,
    /// SKILL.md (or its folder) for `transport: skill`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
}

/// Limits on starting a shorthand target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Startup {
    /// Milliseconds allowed for the server to answer `initialize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::MCP_TIMEOUT_MS.min, max = limits::MCP_TIMEOUT_MS.max))]
    pub(crate) timeout: Option<u64>,
}

/// A command run in the sandbox before the conversation starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetupStep {
    /// Shown in progress and logs.
    pub(crate) name: String,
    /// The command as argv words (no shell unless you call one).
    #[schemars(transform = schema_rules::setup_run)]
    pub(crate) run: Vec<String>,
    /// Seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::SETUP_TIMEOUT_SECS.min, max = limits::SETUP_TIMEOUT_SECS.max))]
    pub(crate) timeout: Option<u64>,
}

/// Runner settings per agent host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Hosts {
    /// Settings of the OpenCode host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) opencode: Option<OpencodeHost>,
    /// Settings of the process host (required with `backend: process`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcessHost>,
    /// Settings of the Codex host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) codex: Option<CodexHost>,
    /// Settings of the mock host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mock: Option<MockHost>,
}

impl Hosts {
    pub(crate) fn is_empty(&self) -> bool {
        self.opencode.is_none() && self.process.is_none() && self.codex.is_none() && self.mock.is_none()
    }
}

/// How the OpenCode CLI is found and run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpencodeHost {
    /// Path of the `opencode` binary (relative to job.yaml or absolute); its package folder is
    /// shown read-only inside the sandbox at the same path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) binary: Option<String>,
    /// `warm`: one `opencode serve` per session + `run --attach` per turn; `cold`: `opencode
    /// run` per turn. Unset: warm where the sandbox can host a server between turns
    /// (bubblewrap, local), cold where it cannot (openshell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mode: Option<OpencodeMode>,
}

/// How OpenCode is started per turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OpencodeMode {
    Cold,
    /// The default where possible: a warm turn took 0.25× a cold one's time
    /// (docs/benchmarks.md).
    #[default]
    Warm,
}

/// Any command as the agent, started fresh for each turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessHost {
    /// The agent's argv.
    pub command: Vec<String>,
    /// How the user's message reaches the command.
    #[serde(default)]
    pub prompt: PromptVia,
}

/// How the user's message reaches a process host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum PromptVia {
    #[default]
    Stdin,
    Argument,
}

/// How the Codex CLI is found and run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct CodexHost {
    /// Path of the `codex` binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) binary: Option<String>,
    /// Extra arguments for every turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) args: Vec<String>,
}

/// Scripted replies, for harness tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct MockHost {
    /// Replies given in order, one per turn; the last repeats.
    #[serde(default)]
    pub(crate) replies: Vec<String>,
}

/// What one MCP server exposes (names only; details live in inventory.json).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {
    /// Tool names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Resource URIs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// Prompt names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<String>,
}

/// Which wizard steps have been accepted; cursor and spinners are derived, not stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct LabProgress {
    /// Ids of the accepted steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub completed: Vec<String>,
    /// The generated files the lab wrote (`profile`, `personas`, `scenarios`, `dataset`), by
    /// path and SHA-256, so the job file alone identifies the lab's inputs.
    #[serde(default, skip_serializing_if = "super::artifact_refs::LabArtifacts::is_empty")]
    pub artifacts: super::artifact_refs::LabArtifacts,
}

impl LabProgress {
    pub(crate) fn is_empty(&self) -> bool {
        self.completed.is_empty() && self.artifacts.is_empty()
    }
}
