//! Running cases: the `RunEvent` stream and its log (runners, emulator and the turn loop join
//! here as they land).

pub mod event_log;
pub mod events;

pub use event_log::{EventLog, read_events};
pub use events::{Envelope, RunEvent, StopReason, ToolStatus};
