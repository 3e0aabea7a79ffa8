//! Emission of the configuration the agent host reads (OpenCode's project config; Codex's
//! config.toml).

pub mod codex;
pub mod opencode;

pub use opencode::{EmitOptions, emit_opencode_config, write_opencode_project};
