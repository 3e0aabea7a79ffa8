//! The typed model of job.yaml: loading with path-precise errors, semantic checks, atomic
//! saving, the generated JSON Schema, and MCP servers files.
//!
//! This module never talks to a network, a sandbox or the terminal.

pub mod agent;
pub mod artifact_refresh;
pub mod artifact_refs;
pub mod bounded;
mod check;
mod check_file_refs;
mod check_sandbox;
mod control_chars;
pub mod diagnostics;
mod document;
pub mod file_refs;
pub mod instructions;
pub mod job;
pub mod jsonc;
mod jsonc_duplicates;
pub mod key_position;
pub mod limits;
pub mod load;
pub mod mcp_dialects;
pub mod mcp_file;
mod mcp_inputs;
mod non_finite;
pub use non_finite::find_non_finite;
pub mod path_policy;
pub mod relative_path;
pub mod resolved;
pub mod review;
mod rules;
pub use rules::{Broken, gate_rules, network_rules};
pub mod sandbox;
pub mod sandbox_download;
pub mod save;
pub mod schema;
pub(crate) mod schema_errors;
mod schema_rules;
pub mod target;
pub mod yaml_guard;
mod yaml_scanner;

pub use agent::{Action, Agent, AgentDef, Backend, Inputs, McpInput, Permission, PermissionRule, Runtime};
pub use check::{check_job as resolve_job, resolve_mcps};
pub use diagnostics::{Diagnostic, SpecError};
pub use job::{JOB_VERSION, Job};
pub use load::{load_job, parse_job_text};
pub use resolved::{LoadedJob, McpTransport, ResolvedMcp};
pub use review::{Gates, Generation, ModelProvider, ModelRole, RoleCredentials};
pub use sandbox::{NetworkMode, RootFilesystem, SandboxBackend, SandboxSpec};
pub use save::{job_to_yaml, save_job};
