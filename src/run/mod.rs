//! Running cases: agent runners (mock, process, OpenCode) behind a `CommandFactory` that
//! places them in a sandbox, and the `RunEvent` stream and its log.
//!
//! Runners report what happened; they never decide a verdict.

pub mod agent_binary;
pub mod attempts;
pub mod case_bound;
pub mod case_run;
pub mod codex;
pub mod codex_events;
pub mod conversation;
pub mod dataset_cases;
pub mod downloads;
pub mod emulator;
pub mod environment;
pub mod event_log;
pub mod events_file;
mod host_output;
mod judge_bound;
mod live_secret_search;
pub mod manifest;
pub mod mcp_relay;
pub mod merge;
pub mod observe_files;
pub mod opencode;
pub mod opencode_events;
mod opencode_mode;
pub mod opencode_warm;
pub mod openshell_env;
pub mod peer_faults;
pub mod provider_home;
pub mod refusal_attribution;
pub mod replay_check;
pub mod rescore;
pub mod run_dir;
pub mod run_findings;
pub mod runner;
pub mod runners;
pub mod sandbox_env;
mod serve_forward;
mod session_env;
pub mod setup;
pub mod spawn;
pub mod stored_versions;
pub mod suite;
mod summary_line;
pub mod summary_schema;
mod trial_commit;
mod trial_committer;
mod workspace_keep;
pub use workspace_keep::KeepBy;
pub mod turn_stream;

// The trial vocabulary moved to `crate::trial`; these paths stay for code not yet updated.
pub use crate::trial::{case, events};

pub use event_log::EventLog;
pub use events::{Envelope, RunEvent, StopReason, ToolStatus};
pub use events_file::read_events;
pub use runner::{AgentRunner, RunnerError, ToolCallRecord, TurnOutput};
