//! Running cases: agent runners (mock, process, OpenCode, Codex) behind a `CommandFactory` that
//! places them in a sandbox, and the `RunEvent` stream and its log.
//!
//! Runners report what happened; they never decide a verdict. The folders, lowest first:
//! `environment/` (where the agent runs), `agents/` (the agent hosts), `store/` (the run
//! folder on disk), `case/` (one case from start to end), then `suite` and `setup` here, and
//! `results/` (what is read back from stored runs).

pub mod agents;
pub mod case;
pub mod environment;
pub mod results;
pub(crate) mod setup;
pub mod store;
pub mod suite;
