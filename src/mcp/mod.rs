//! MCP discovery: a bounded rmcp client (stdio, streamable HTTP and
//! legacy HTTP+SSE), the inventory of what each
//! server exposes, and the contract (risk labels and schema findings) derived from it.
//!
//! This module never prints or draws; it never logs or writes a header or env value, and it
//! never waits on a server without a timeout.

pub mod client;
pub mod contract;
pub mod discover;
pub mod headers;
pub mod inventory;
pub mod launcher;
pub mod sandboxed;
pub mod sse;
pub mod stdio;

pub use client::{ConnectOptions, Endpoint, McpClient, McpError, connect};
pub use discover::{DiscoverOptions, Progress, discover_all, discover_one};
pub use inventory::{INVENTORY_VERSION, Inventory, ServerInventory, ServerStatus};
pub use launcher::{HostLauncher, LaunchSpec, Launcher};
