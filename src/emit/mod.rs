//! Emission of the configuration the agent host reads (OpenCode's project config; Codex's
//! config.toml).

pub(crate) mod codex;
pub(crate) mod opencode;

pub(crate) use opencode::{EmitOptions, emit_opencode_config, write_opencode_project};
