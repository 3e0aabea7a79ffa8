//! `ghostlab findings list|accept|waive --job J`: people's decisions on the MCP contract's
//! findings, stored beside the job (`<job>.decisions.json`) and honoured by the gates until the
//! finding's evidence changes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::CliError;
use crate::mcp::contract::decide::{DecideError, decide, describe, job_findings, verdict_word, who};
use crate::mcp::contract::decisions::Verdict;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Show every finding of the job's contract with its id and standing.
    List(ListArgs),
    /// Accept findings: they are right, and the risk is taken knowingly.
    Accept(DecideArgs),
    /// Waive findings: they do not apply here.
    Waive(DecideArgs),
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[arg(long, default_value = "job.yaml")]
    pub job: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct DecideArgs {
    #[arg(long, default_value = "job.yaml")]
    pub job: PathBuf,
    /// Finding ids (see `findings list`), e.g. `GL020:release/publish_release@1a2b3c`.
    #[arg(required = true)]
    pub findings: Vec<String>,
    /// Why: stored with the decision and shown in the report.
    #[arg(long)]
    pub reason: String,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.action {
        Action::List(a) => list(&a.job),
        Action::Accept(a) => decide_cli(a, Verdict::Accepted),
        Action::Waive(a) => decide_cli(a, Verdict::Waived),
    }
}

fn list(job: &Path) -> Result<ExitCode, CliError> {
    let state = crate::spec::load_job(job)?.state_dir();
    let found = job_findings(job, &state).map_err(usage)?;
    let rows = found.rows();
    for row in &rows {
        super::out::say!(
            "{}  {:?}  {}  [{}]",
            row.id,
            row.finding.severity,
            row.finding.message,
            describe(&row.standing)
        );
    }
    super::out::say!("{} finding(s)", rows.len());
    Ok(ExitCode::SUCCESS)
}

fn decide_cli(args: DecideArgs, verdict: Verdict) -> Result<ExitCode, CliError> {
    let state = crate::spec::load_job(&args.job)?.state_dir();
    let path = decide(&args.job, &state, &args.findings, verdict, &args.reason, &who()).map_err(usage)?;
    super::out::say!(
        "{} finding(s) {} in {}",
        args.findings.len(),
        verdict_word(verdict),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn usage(e: DecideError) -> CliError {
    match e {
        DecideError::EmptyReason => CliError::usage("--reason must say why (it is shown in the report)"),
        other => CliError::usage(other.to_string()),
    }
}
