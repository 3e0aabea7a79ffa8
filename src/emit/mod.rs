//! Emission of the configuration the agent host reads (OpenCode's project config first).

pub mod opencode;

pub use opencode::{EmitOptions, emit_opencode_config, write_opencode_project};
