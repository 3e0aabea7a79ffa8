//! Sandboxes that fail closed: one policy model ([`SandboxPolicy`]), one session per runner
//! role ([`Session`]), and three backends — bubblewrap (default on Linux), OpenShell (only when
//! its gateway answers) and local (explicit, unisolated, never chosen automatically).
//!
//! Nothing here ever falls back to a weaker backend, binds the user's checkout writable, or
//! writes an environment value to an argv, a log or a file other than the child's env.

pub(crate) mod beneath;
pub(crate) mod bridge;
pub mod bwrap;
pub(crate) mod bwrap_data;
pub(crate) mod cgroup;
pub(crate) mod denials;
pub mod doctor;
pub(crate) mod error;
pub(crate) mod etc;
pub(crate) mod exec;
pub mod files;
pub(crate) mod hidden_usage;
pub(crate) mod inputs;
pub(crate) mod limits;
pub(crate) mod log;
pub(crate) mod mcp_link;
pub(crate) mod mcp_staging;
pub(crate) mod open;
pub(crate) mod openshell;
mod openshell_policy;
pub mod policy;
mod policy_job;
pub(crate) mod procs;
pub(crate) mod proxy;
pub(crate) mod proxy_http;
pub mod reaper;
pub(crate) mod scope;
pub mod scratch;
pub(crate) mod seccomp;
pub(crate) mod session;
pub(crate) mod session_sweep;
pub mod storage_watch;
pub mod test_resolve;
pub mod watch_exec;
pub(crate) mod watch_filter;
pub(crate) mod watch_memory;
pub mod watch_network;
pub(crate) mod watch_shim;
pub(crate) mod watch_supervisor;

pub use denials::Denial;
pub use error::SandboxError;
pub use exec::ExecOutput;
pub use open::Sandbox;
pub(crate) use open::start_cleanup;
pub use policy::{HostPort, NetworkPolicy, Role, SandboxPolicy};
pub(crate) use scope::Capability;
pub use scope::{Area, Scope};
pub use session::{ExecOptions, Session};
