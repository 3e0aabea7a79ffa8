//! Ghostlab: does the agent I configured behave correctly?
//!
//! The library holds all logic; `main.rs` and `cli/` only parse arguments and print.
//! No module outside `cli` and `tui` touches the terminal.

pub mod app;
pub mod cli;
pub mod emit;
pub mod generate;
pub mod import;
pub mod judge;
pub mod lab;
pub mod llm;
pub mod mcp;
pub mod providers;
pub mod redact;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod spec;
pub mod trial;
pub mod tui;
pub mod util;
