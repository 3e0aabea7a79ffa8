//! MCP discovery: a bounded rmcp client (stdio, streamable HTTP and
//! legacy HTTP+SSE), the inventory of what each
//! server exposes, and the contract (risk labels and schema findings) derived from it.
//!
//! This module never prints or draws; it never logs or writes a header or env value, and it
//! never waits on a server without a timeout.

pub(crate) mod client;
pub mod contract;
pub(crate) mod discover;
pub(crate) mod headers;
pub mod inventory;
pub mod launcher;
pub(crate) mod sandboxed;
pub(crate) mod sse;
pub(crate) mod stdio;

pub use client::{ConnectOptions, Endpoint, McpError, connect};
pub(crate) use discover::{DiscoverOptions, discover_one};
pub use inventory::{Inventory, ServerInventory, ServerStatus};
pub(crate) use launcher::Launcher;
pub use launcher::{HostLauncher, LaunchSpec};
