//! Command-line surface: clap types, one file per subcommand, exit codes.
//!
//! Exit codes: 0 success, 1 the agent under test failed a gate (or a lint found findings at the
//! `--fail-on` level), 2 the command could not run (usage, bad input, broken peer).

mod action_args;
mod auth;
mod compare;
mod completions;
mod dataset;
mod discover;
mod doctor;
mod emit;
mod error;
mod exit;
mod findings;
mod generate;
mod init;
mod inspect;
mod job_arg;
mod lab;
mod lint;
mod merge;
mod model_server;
mod models;
pub(crate) mod out;
pub use out::exit_quietly_when_output_is_gone;
mod profile;
mod replay;
mod report;
mod rescore;
mod sandbox;
mod schema;
mod test;
mod validate;
mod view;

pub(crate) use error::CliError;
pub use error::ErrorKind;
pub use exit::{EXIT_CODES, Exit};

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Does the agent I configured behave correctly?
#[derive(Debug, Parser)]
#[command(name = "ghostlab", version, about, long_about = None, propagate_version = true,
    after_help = exit::exit_status_help())]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check a job.yaml and every file it references; prints OK or every error.
    Validate(validate::Args),
    /// Write the OpenCode project config (opencode.json) for the job's agent.
    Emit(emit::Args),
    /// Write a job.yaml from an OpenCode project, an agent.yaml, an MCP servers file, a target or a skill.
    Init(init::Args),
    /// Print or refresh the JSON Schema of job.yaml or of a generated artifact.
    Schema(schema::Args),
    /// Run the approved cases against the agent in its sandbox, judge them and apply the gates.
    Test(test::Args),
    /// Compare two runs: per-case changes and whether the pass-rate change is beyond noise.
    Compare(compare::Args),
    /// Combine the shards of a partitioned run into one run, report and gate verdict.
    Merge(merge::Args),
    /// Re-judge a stored run without re-running the agent (same transcripts, current judge and gates).
    Rescore(rescore::Args),
    /// Print shell completions.
    Completions(completions::CompletionArgs),
    /// Print the man page, or write one per command.
    Man(completions::ManArgs),
    /// Infer the agent's purpose profile from its configuration (agent-profile.json).
    Profile(profile::Args),
    /// Generate personas, scenarios and a dataset of pending cases from the profile.
    Generate(generate::Args),
    /// Review the dataset: list, approve, reject or edit cases.
    Dataset(dataset::Args),
    /// Store, inspect or remove a model provider's API key in the OS keyring (key read from stdin).
    Auth(auth::Args),
    /// List the models an OpenAI-compatible endpoint serves.
    Models(models::Args),
    /// Serve a cassette as a local OpenAI-compatible endpoint (for the agent under test).
    ModelServer(model_server::Args),
    /// Run a command or a shell in the job's sandbox exactly as the agent gets it.
    Sandbox(sandbox::Args),
    /// Show which sandbox backends work on this machine and why not.
    Doctor(doctor::Args),
    /// Internal: the loopback bridge to the egress proxy, run inside the sandbox.
    #[command(name = "__egress-bridge", hide = true)]
    EgressBridge(sandbox::BridgeArgs),
    /// Internal: puts a sandboxed command under the network watch, run inside the sandbox.
    #[command(name = "__network-watch", hide = true)]
    NetworkWatch(sandbox::WatchArgs),
    /// Internal: cleans up this process's sandboxes once it is gone (even by SIGKILL).
    #[command(name = "__sandbox-reaper", hide = true)]
    SandboxReaper(sandbox::ReaperArgs),
    /// Internal: the agent's end of the MCP relay, run inside the sandbox.
    #[command(name = "__mcp-connect", hide = true)]
    McpConnect(sandbox::McpConnectArgs),
    /// Talk to one MCP server directly: list its tools, resources and prompts, or call a tool.
    /// Runs on the HOST, UNSANDBOXED: the server gets your user's rights and environment.
    Inspect(inspect::Args),
    /// Discover every MCP server of the job; write inventory.json and contract.json and refresh capabilities.
    Discover(discover::Args),
    /// Check an inventory.json offline: risk labels and schema findings (text, JSON or SARIF).
    Lint(lint::Args),
    /// Accept or waive contract findings with a reason (stored beside the job, honoured by gates).
    Findings(findings::Args),
    /// Render the rollout report (Markdown, HTML, PDF) of a run.
    Report(report::Args),
    /// Browse a stored run: dashboard, transcripts, verdicts and gates (read-only; --json for scripts).
    View(view::Args),
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
        Command::Test(a) => test::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Rescore(a) => rescore::run(a),
        Command::Completions(a) => completions::completions(a, <Cli as clap::CommandFactory>::command()),
        Command::Man(a) => completions::man(a, <Cli as clap::CommandFactory>::command()),
        Command::Profile(a) => profile::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Dataset(a) => dataset::run(a),
        Command::Auth(a) => auth::run(a),
        Command::Models(a) => models::run(a),
        Command::ModelServer(a) => model_server::run(a),
        Command::Sandbox(a) => sandbox::run(a),
        Command::Doctor(a) => doctor::run(a),
        Command::EgressBridge(a) => sandbox::run_bridge(a),
        Command::NetworkWatch(a) => sandbox::run_network_watch(a),
        Command::McpConnect(a) => sandbox::run_mcp_connect(a),
        Command::SandboxReaper(a) => sandbox::run_reaper(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Discover(a) => discover::run(a),
        Command::Lint(a) => lint::run(a),
        Command::Findings(a) => findings::run(a),
        Command::Report(a) => report::run(a),
        Command::View(a) => view::run(a),
        Command::Lab(a) => lab::run(a),
    };
    let exit = match result {
        Ok(exit) => exit,
        Err(e) => {
            eprint!("{e}");
            if !e.to_string().ends_with('\n') {
                eprintln!();
            }
            Exit::from(&e)
        }
    };
    exit.into()
}
