//! Small helpers shared by every module: atomic file writes and `${VAR}` references.
//!
//! Nothing here knows about jobs, agents or the terminal.

pub mod agent_files;
pub mod atomic;
pub mod blocking;
pub mod bounded;
pub mod durable;
pub mod folder_lock;
pub mod format_version;
pub mod fs_sync;
pub mod ids;
pub mod loopback;
pub mod runtime;
pub mod secret_ref;
pub mod skip;
#[cfg(test)]
pub mod test_fifo;
pub mod tls;
pub mod token_shape;
pub mod units;

pub use atomic::{copy_atomic, write_atomic, write_json_atomic};
