//! Where a case's agent runs: the `CaseEnvironment` contract, the sandbox and local
//! backends behind it, the `CommandFactory` that starts commands there, and what crosses
//! its boundary (downloads, observed files, the final workspace, MCP relays).

pub mod case_environment;
pub(crate) mod downloads;
pub mod mcp_relay;
pub(crate) mod observe_files;
pub(crate) mod openshell_env;
pub(crate) mod provider_home;
pub(crate) mod sandbox_env;
pub(super) mod serve_forward;
pub(super) mod session_env;
pub mod spawn;
pub mod workspace_keep;
