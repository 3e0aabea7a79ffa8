//! Command-line surface: clap types, one file per subcommand, exit codes.
//!
//! Exit codes: 0 success, 1 the agent under test failed a gate (or a lint found findings at the
//! `--fail-on` level), 2 the command could not run (usage, bad input, broken peer).

mod compare;
mod emit;
mod error;
mod init;
mod lab;
mod schema;
mod validate;

pub use error::CliError;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Does the agent I configured behave correctly?
#[derive(Debug, Parser)]
#[command(name = "ghostlab", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a job.yaml and every file it references; prints OK or every error.
    Validate(validate::Args),
    /// Write the OpenCode project config (opencode.json) for the job's agent.
    Emit(emit::Args),
    /// Write a job.yaml from an OpenCode project, an agent.yaml, an MCP servers file, a target or a skill.
    Init(init::Args),
    /// Print or refresh the JSON Schema of job.yaml.
    Schema(schema::Args),
    /// Compare two runs: per-case changes and whether the pass-rate change is beyond noise.
    Compare(compare::Args),
    /// The twelve-step wizard from "here is my agent" to a run; resumable, headless with --yes.
    Lab(lab::Args),
}

/// Parses the process arguments (exits 2 on usage errors, as clap does).
pub fn parse() -> Cli {
    Cli::parse()
}

/// Logs go to stderr at `warn` unless `GHOSTLAB_LOG` says otherwise; never to stdout.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("GHOSTLAB_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Runs one command and maps its outcome to an exit code.
pub fn dispatch(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Validate(a) => validate::run(a),
        Command::Emit(a) => emit::run(a),
        Command::Init(a) => init::run(a),
        Command::Schema(a) => schema::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Lab(a) => lab::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprint!("{e}");
            if !e.to_string().ends_with('\n') {
                eprintln!();
            }
            ExitCode::from(e.code)
        }
    }
}
