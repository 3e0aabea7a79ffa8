//! Small helpers shared by every module: atomic file writes and `${VAR}` references.
//!
//! Nothing here knows about jobs, agents or the terminal.

pub(crate) mod agent_files;
pub(crate) mod atomic;
pub(crate) mod blocking;
pub(crate) mod bounded;
pub(crate) mod durable;
pub(crate) mod folder_lock;
pub(crate) mod format_version;
pub(crate) mod fs_sync;
pub mod ids;
pub(crate) mod loopback;
mod path_fsync;
pub mod runtime;
pub(crate) mod secret_ref;
// Test support only: no build of the binary carries it.
#[cfg(any(test, feature = "test-hooks"))]
pub mod skip;
#[cfg(test)]
pub(crate) mod test_fifo;
pub mod tls;
pub(crate) mod token_shape;
pub(crate) mod units;

pub use atomic::write_json_atomic;
pub(crate) use atomic::{copy_atomic, write_atomic};
