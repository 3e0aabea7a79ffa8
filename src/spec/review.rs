//! Quality bar (`review.gates`), model roles (`generation`) and dataset locations.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{limits, schema_rules};

/// The release bar the run must clear.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// Gates applied after judging.
    #[serde(default)]
    pub gates: Gates,
}

/// Gates applied after judging. Rates are fractions in 0..=1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Gates {
    /// PASS verdicts over all cases (INCONCLUSIVE and INFRA_ERROR count as not passing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::FRACTION.min, max = limits::FRACTION.max))]
    pub min_pass_rate: Option<f64>,
    /// Every trial of a case must pass (`k` trials) for at least `min_rate` of cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_k: Option<PassK>,
    /// Most INCONCLUSIVE verdicts, as a fraction of cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::FRACTION.min, max = limits::FRACTION.max))]
    pub max_inconclusive_rate: Option<f64>,
    /// Most INFRA_ERROR verdicts, as a fraction of cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::FRACTION.min, max = limits::FRACTION.max))]
    pub max_infra_error_rate: Option<f64>,
    /// Fail on a high-severity MCP contract finding (needs `ghostlab lint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_high_security_findings: Option<bool>,
    /// Fail on an MCP tool schema error (needs `ghostlab lint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_tool_schema_errors: Option<bool>,
    /// Fail when the agent tried to reach a host outside the allowlist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_denied_egress: Option<bool>,
}

/// pass^k: every one of `k` trials of a case passes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PassK {
    /// Trials per case.
    #[schemars(range(min = limits::PASS_K.min, max = limits::PASS_K.max))]
    pub(crate) k: u32,
    /// Fraction of cases whose every trial passed.
    #[schemars(range(min = limits::FRACTION.min, max = limits::FRACTION.max))]
    pub(crate) min_rate: f64,
}

/// Which model proposes (profile, personas, scenarios), emulates the user, and judges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Generation {
    /// Proposes the profile, personas and scenarios.
    #[serde(default)]
    pub proposer: ModelRole,
    /// Plays the user.
    #[serde(default)]
    pub emulator: ModelRole,
    /// Judges transcripts against the criteria.
    #[serde(default)]
    pub judge: ModelRole,
    /// How many personas to propose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::GENERATED_COUNT.min, max = limits::GENERATED_COUNT.max))]
    pub(crate) personas: Option<u32>,
    /// How many scenarios to propose per persona.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::GENERATED_COUNT.min, max = limits::GENERATED_COUNT.max))]
    pub(crate) scenarios_per_persona: Option<u32>,
    /// `opencode_auth`: when no other key is found, the roles may use the user's OpenCode login
    /// for their provider (read on the host, never copied). Off unless set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) credentials: Option<RoleCredentials>,
}

/// Extra places the roles' keys may come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RoleCredentials {
    /// `$XDG_DATA_HOME/opencode/auth.json` on the host.
    OpencodeAuth,
}

/// One model role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
#[schemars(transform = schema_rules::model_role)]
pub struct ModelRole {
    /// Where the role's model runs; `offline` unless set.
    #[serde(default)]
    pub provider: ModelProvider,
    /// Model id at the provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Endpoint, e.g. `http://127.0.0.1:11434/v1` (OpenAI-compatible) or Anthropic's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// `${VAR}` reference; otherwise the keyring entry for the provider is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = limits::SECRET_REF_PATTERN))]
    pub api_key: Option<String>,
    /// Extra HTTP headers; secret values must be `${VAR}` references.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub headers: IndexMap<String, String>,
    /// Cassette file for `replay` (and written by `record`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cassette: Option<String>,
    /// Sampling temperature, 0..=2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::TEMPERATURE.min, max = limits::TEMPERATURE.max))]
    pub temperature: Option<f64>,
}

/// Where a role's model runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum ModelProvider {
    /// Deterministic, no network; cannot judge semantic criteria (gives INCONCLUSIVE).
    #[default]
    Offline,
    /// Any OpenAI-compatible endpoint.
    Openai,
    /// Anthropic's Messages API (`base_url` default `https://api.anthropic.com/v1`).
    Anthropic,
    /// Recorded exchanges from a cassette.
    Replay,
    /// A real provider whose exchanges are written to the cassette.
    Record,
}

/// Where generated artifacts live (relative to job.yaml).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Paths {
    /// Discovery, profile, dataset and runs. Inside the job folder (or an `outside_job` folder),
    /// never a system folder; empty or Ghostlab's own (marked by `.ghostlab-state`).
    #[serde(default = "default_state_dir")]
    pub(crate) state_dir: String,
    /// Absolute folders outside the job's folder that inputs (instructions, skills, assets,
    /// workspace, MCP servers files, …) may come from. Anything else must be inside the job
    /// folder. System folders (`/`, `/etc`, `/proc`, …) cannot be listed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) outside_job: Vec<String>,
}

fn default_state_dir() -> String {
    ".ghostlab".to_string()
}

impl Default for Paths {
    fn default() -> Self {
        Paths {
            state_dir: default_state_dir(),
            outside_job: Vec::new(),
        }
    }
}
