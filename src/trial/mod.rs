//! The shared vocabulary of a trial: what a case is (`CaseSpec`), what happened in it
//! (`RunEvent` in an `Envelope`, with `Role`, `ToolStatus`, `StopReason`), how its conversation
//! ended (`ConversationEnd`) and what it was judged (`Verdict`), plus the `EventSink`s the
//! events of a suite fan out to.
//!
//! `run`, `judge`, `report` and `lab` all speak it; it imports nothing of theirs, so none of
//! them needs another's internals to name a trial's parts.

pub mod case;
pub mod checks;
pub(crate) mod command_words;
mod event_lines;
pub mod events;
pub mod sink;
pub(crate) mod stop_conditions;
pub mod usage;
pub mod verdict;

pub use case::{CaseSpec, Exchange, Expected, ExpectedFile, ExpectedToolCall, PersonaView, ScenarioView};
pub use events::{ConversationEnd, Envelope, Role, RunEvent, StopReason, ToolStatus};
pub(crate) use events::{EVENTS_VERSION, ToolCallRef};
pub use sink::Sinks;
pub(crate) use sink::{ChannelSink, EventSink, SuiteEvent};
pub use usage::{RoleUsage, Usage};
pub use verdict::{CriterionKind, Verdict};
