//! The typed model of job.yaml: loading with path-precise errors, semantic checks, atomic
//! saving, the generated JSON Schema, and MCP servers files.
//!
//! This module never talks to a network, a sandbox or the terminal.

pub(crate) mod agent;
pub(crate) mod agent_inputs;
pub(crate) mod artifact_refresh;
pub(crate) mod artifact_refs;
pub(crate) mod bounded;
mod check;
mod check_file_refs;
mod check_sandbox;
mod control_chars;
pub(crate) mod diagnostics;
mod document;
pub(crate) mod file_refs;
pub(crate) mod instructions;
pub mod job;
pub(crate) mod jsonc;
mod jsonc_duplicates;
pub(crate) mod key_position;
pub(crate) mod limits;
pub mod load;
pub(crate) mod mcp_dialects;
mod mcp_entry;
pub mod mcp_file;
mod mcp_inputs;
mod mcp_literals;
mod non_finite;
pub(crate) use non_finite::find_non_finite;
pub(crate) mod path_policy;
pub(crate) mod relative_path;
pub mod resolved;
pub(crate) mod review;
mod rules;
pub(crate) use rules::{Broken, gate_rules, network_rules};
pub(crate) mod sandbox;
pub(crate) mod sandbox_download;
pub(crate) mod save;
pub mod schema;
pub(crate) mod schema_errors;
mod schema_rules;
pub(crate) mod target;
pub(crate) mod yaml_guard;
mod yaml_scanner;

pub use agent::{Action, Backend, Permission, PermissionRule};
pub(crate) use agent::{Agent, Runtime};
pub use agent_inputs::McpInput;
pub(crate) use check::check_job as resolve_job;
pub(crate) use diagnostics::{Diagnostic, SpecError};
pub(crate) use job::JOB_VERSION;
pub use job::Job;
pub use load::load_job;
pub(crate) use load::parse_job_text;
pub(crate) use mcp_inputs::resolve_mcps;
pub use resolved::{LoadedJob, McpTransport, ResolvedMcp};
pub use review::{Gates, ModelProvider, ModelRole};
pub(crate) use review::{Generation, RoleCredentials};
pub(crate) use sandbox::SandboxSpec;
pub use sandbox::{NetworkMode, RootFilesystem, SandboxBackend};
pub(crate) use save::job_to_yaml;
pub use save::save_job;
