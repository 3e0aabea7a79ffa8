//! One case from start to end: the dataset turned into cases, the conversation between the
//! user emulator and the agent, the bounds on case and judge, injected peer faults, earlier
//! attempts, and the secret search over the final workspace.

pub(super) mod agent_start;
pub(crate) mod attempts;
pub mod case_bound;
pub(crate) mod case_finish;
pub(crate) mod case_prepare;
pub mod case_run;
pub mod conversation;
pub mod dataset_cases;
pub mod emulator;
pub(super) mod judge_bound;
pub(super) mod live_secret_search;
pub(crate) mod peer_faults;
