//! The agent hosts: the `AgentRunner` contract and its runners (mock, process, OpenCode
//! one-shot and warm, Codex), how each finds its binary, and how a turn's output is streamed
//! and parsed into events.

pub(crate) mod agent_binary;
pub(crate) mod codex;
pub(crate) mod codex_events;
pub(super) mod host_output;
pub(crate) mod opencode;
pub(crate) mod opencode_events;
pub(super) mod opencode_mode;
pub(crate) mod opencode_serve;
pub(crate) mod opencode_warm;
pub(crate) mod refusal_attribution;
pub mod runner;
pub mod runners;
pub(crate) mod turn_stream;
