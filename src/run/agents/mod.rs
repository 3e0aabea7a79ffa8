//! The agent hosts: the `AgentRunner` contract and its runners (mock, process, OpenCode
//! one-shot and warm, Codex), how each finds its binary, and how a turn's output is streamed
//! and parsed into events.

pub mod agent_binary;
pub mod codex;
pub mod codex_events;
pub(super) mod host_output;
pub mod opencode;
pub mod opencode_events;
pub(super) mod opencode_mode;
pub mod opencode_warm;
pub mod refusal_attribution;
pub mod runner;
pub mod runners;
pub mod turn_stream;
