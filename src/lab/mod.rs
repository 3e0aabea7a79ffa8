//! `ghostlab lab`: the twelve-step wizard as a UI-free state machine plus the effect executors
//! both drivers share.
//!
//! `Lab::handle(Event) -> Vec<Effect>` never performs IO, never reads the clock and never
//! imports ratatui or crossterm; `driver::Executor` performs the effects and answers with events.
//! Every accepted answer is saved to job.yaml at once, with the step recorded in `lab.completed`.

mod accept;
mod answer_check;
pub(crate) mod answer_error;
pub mod apply;
mod case_row;
pub(crate) mod contract_lint;
pub(crate) mod dashboard_progress;
#[cfg(test)]
mod dashboard_progress_tests;
pub mod dashboard_state;
#[cfg(test)]
mod dashboard_state_tests;
pub mod decide_findings;
pub(crate) mod driver;
pub(crate) mod effect_errors;
pub mod executors;
pub(crate) mod findings_error;
pub mod findings_review;
pub(crate) mod focus_transcript;
mod gate_error;
pub mod headless;
mod interrupt;
mod persona_drop;
pub mod policy;
pub(crate) mod preview_resolved;
pub mod propose;
pub(crate) mod propose_error;
mod propose_inputs;
mod propose_model;
mod propose_source;
mod purpose_draft;
pub mod review;
pub(crate) mod review_cost;
mod review_errors;
pub mod role_models;
pub(crate) mod roles_step;
pub(crate) mod run_flags;
pub mod run_marker;
mod run_phase;
pub mod seeds;
pub(crate) mod shared_error;
mod spawned_work;
pub(crate) mod state;
pub mod step;
mod step_flow;
pub mod store;
pub mod stored_run;
pub(crate) mod tool_permissions;
pub mod traits;
pub(crate) mod types;
pub mod usable_models;
pub(crate) mod view_findings;
pub(crate) mod view_schema;

pub use answer_error::AnswerError;
pub use driver::{Executor, LabError};
pub use effect_errors::{BackendError, CatalogError, Crashed, GeneratorError, LabRunError, PublishError};
pub use propose::StepProposer;
pub use propose_error::ProposeError;
pub use seeds::Seeds;
pub use shared_error::Shared;
pub use state::{
    Discovered, Discovery, DiscoveryError, Effect, Event, Lab, Phase, Proposal, RunOutcome, Saved, ServerLint,
};
pub use step::StepId;
pub use traits::{
    ConfiguredModels, GenerateKind, GenerateRequest, Generator, McpDiscovery, ModelCatalog, RunStream, SuiteRunner,
};
