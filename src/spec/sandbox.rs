//! The isolation boundary declared in job.yaml. Rendered by each backend in `crate::sandbox`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{limits, schema_rules};

/// Paths inside the sandbox are absolute (and, after `..` is resolved, under /sandbox: a
/// rule only `validate` checks).
const ABSOLUTE_PATTERN: &str = "^/";

/// Where the agent, its MCP servers and its code run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = schema_rules::sandbox)]
pub struct SandboxSpec {
    /// The isolation backend; `bubblewrap` unless set.
    #[serde(default)]
    pub backend: SandboxBackend,
    /// How much of the host's filesystem exists inside (bubblewrap): `isolated` (the default)
    /// shows only the system runtime and what the job declares; `read_only` shows the whole
    /// host read-only.
    #[serde(default, skip_serializing_if = "RootFilesystem::is_isolated")]
    pub(crate) root_filesystem: RootFilesystem,
    /// OpenShell `--from`: a community image name, an image reference or a Dockerfile path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) image: Option<String>,
    /// Where the workspace copy is mounted and commands start.
    #[serde(default = "default_workdir")]
    #[schemars(regex(pattern = ABSOLUTE_PATTERN))]
    pub(crate) workdir: String,
    /// Network access; `disabled` unless set.
    #[serde(default)]
    pub network: NetworkMode,
    /// `host:port` pairs reachable with `network: allowlist`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(regex(pattern = limits::HOST_PORT_PATTERN)))]
    pub allow: Vec<String>,
    /// OpenShell policy file for `network: policy` (relative to job.yaml).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) policy: Option<String>,
    /// OpenShell provider names attached at creation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) providers: Vec<String>,
    /// Host variables copied into the sandbox; nothing else is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(regex(pattern = limits::VAR_NAME_PATTERN)))]
    pub(crate) env_allowlist: Vec<String>,
    /// Extra files staged into the sandbox.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) uploads: Vec<Upload>,
    /// Paths brought back after each case into the trial's `downloads/` folder: relative to
    /// `workdir`, or absolute under /sandbox. The same on every backend (OpenShell fetches them
    /// with `sandbox download`; bubblewrap and local copy them from the session's folders).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) download: Vec<String>,
    /// Keep the sandbox after the run for debugging.
    #[serde(default)]
    pub(crate) keep: bool,
    /// CPU cores (OpenShell) and the CPU-time budget multiplier (bubblewrap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::SANDBOX_CPU.min, max = limits::SANDBOX_CPU.max))]
    pub(crate) cpu: Option<u32>,
    /// Memory limit, e.g. `2GiB` or `512MiB`; 64MiB..=1TiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = limits::SIZE_PATTERN))]
    pub memory: Option<String>,
    /// Wall-clock limit for one command, e.g. `10m`, `90s`; 1s..=24h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = limits::DURATION_PATTERN))]
    pub(crate) timeout: Option<String>,
    /// Maximum number of processes in the sandboxed tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = limits::SANDBOX_PROCESSES.min, max = limits::SANDBOX_PROCESSES.max))]
    pub(crate) processes: Option<u32>,
    /// Largest file the sandbox may write, e.g. `1GiB`; 1KiB..=1TiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = limits::SIZE_PATTERN))]
    pub(crate) file_size: Option<String>,
    /// Credentials placed in the sandbox, only when listed.
    #[serde(default, skip_serializing_if = "Credentials::is_empty")]
    pub(crate) credentials: Credentials,
}

fn default_workdir() -> String {
    "/sandbox/workspace".to_string()
}

impl Default for SandboxSpec {
    fn default() -> Self {
        SandboxSpec {
            backend: SandboxBackend::default(),
            root_filesystem: RootFilesystem::default(),
            image: None,
            workdir: default_workdir(),
            network: NetworkMode::default(),
            allow: Vec::new(),
            policy: None,
            providers: Vec::new(),
            env_allowlist: Vec::new(),
            uploads: Vec::new(),
            download: Vec::new(),
            keep: false,
            cpu: None,
            memory: None,
            timeout: None,
            processes: None,
            file_size: None,
            credentials: Credentials::default(),
        }
    }
}

/// The isolation backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum SandboxBackend {
    /// Linux namespaces + seccomp through `bwrap`. The default.
    #[default]
    Bubblewrap,
    /// NVIDIA OpenShell through its gateway.
    Openshell,
    /// No isolation. Explicit only; never chosen as a fallback.
    Local,
}

/// How much of the host's filesystem a bubblewrap sandbox shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum RootFilesystem {
    /// Only /usr (and the /bin, /lib*, /sbin links), a generated minimal /etc, the agent
    /// host's and MCP servers' runtimes, staged inputs, the workspace copy and private
    /// HOME and /tmp. The default.
    #[default]
    Isolated,
    /// Every top-level host folder read-only (homes, /tmp and /run masked): for toolchains
    /// the isolated view lacks. The agent can then read any world-readable host file.
    ReadOnly,
}

impl RootFilesystem {
    pub(crate) fn is_isolated(&self) -> bool {
        *self == RootFilesystem::Isolated
    }

    /// `isolated` or `read_only`, as written in job.yaml.
    pub fn as_str(self) -> &'static str {
        match self {
            RootFilesystem::Isolated => "isolated",
            RootFilesystem::ReadOnly => "read_only",
        }
    }
}

/// Network access from inside the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum NetworkMode {
    /// No network at all.
    #[default]
    Disabled,
    /// Only the `allow` list, through Ghostlab's enforcing egress proxy.
    Allowlist,
    /// An OpenShell policy file.
    Policy,
}

/// A file or folder staged into the sandbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Upload {
    /// Host path, relative to job.yaml.
    pub(crate) src: String,
    /// Path inside the sandbox; defaults to `<workdir>/../uploads/<name>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = ABSOLUTE_PATTERN))]
    pub(crate) dest: Option<String>,
}

/// The explicit credential opt-in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Credentials {
    /// Upload OpenCode's auth file into the sandbox's data dir.
    #[serde(default)]
    pub(crate) opencode_auth: bool,
    /// Variables whose values are placed in the agent's environment (never in files or argv).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(regex(pattern = limits::VAR_NAME_PATTERN)))]
    pub(crate) env: Vec<String>,
}

impl Credentials {
    pub(crate) fn is_empty(&self) -> bool {
        !self.opencode_auth && self.env.is_empty()
    }
}
