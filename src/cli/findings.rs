//! `ghostlab findings list|accept|waive --job J [--run RUN]`: people's decisions on the MCP
//! contract's findings and on a run's verdict findings (`judge::verdict_findings`), stored beside
//! the job (`<job>.decisions.json`) and honoured by the gates until the finding's evidence changes.

use std::path::{Path, PathBuf};

use super::{CliError, Exit};
use crate::judge::verdict_findings::{VerdictFinding, standing};
use crate::mcp::contract::decide::{DecideError, KnownFinding, decide_with, describe, job_findings, verdict_word, who};
use crate::mcp::contract::decisions::{Verdict, decisions_path, load};

pub(crate) type Args = super::action_args::ActionArgs<Action>;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Action {
    /// Show every finding of the job's contract with its id and standing.
    List(ListArgs),
    /// Accept findings: they are right, and the risk is taken knowingly.
    Accept(DecideArgs),
    /// Waive findings: they do not apply here.
    Waive(DecideArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// The run whose verdict findings to list: a folder or a run id; the newest by default.
    #[arg(long)]
    pub(crate) run: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct DecideArgs {
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// The run whose verdict findings the ids may name: a folder or a run id; the newest by default.
    #[arg(long)]
    pub(crate) run: Option<PathBuf>,
    /// Finding ids (see `findings list`), e.g. `GL020:release/publish_release@1a2b3c` or
    /// `workspace-added:p1-s2`.
    #[arg(required = true)]
    pub(crate) findings: Vec<String>,
    /// Why: stored with the decision and shown in the report.
    #[arg(long)]
    pub(crate) reason: String,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    match args.action {
        Action::List(a) => list(&a),
        Action::Accept(a) => decide_cli(a, Verdict::Accepted),
        Action::Waive(a) => decide_cli(a, Verdict::Waived),
    }
}

/// The verdict findings of the run `given` (or the newest) of the job; none when it has no run.
fn verdict_findings(given: Option<&Path>, state: &Path) -> Result<Vec<VerdictFinding>, CliError> {
    match crate::lab::stored_run::pick_run(given, state) {
        Some(dir) => Ok(crate::run::results::run_findings::run_findings(&dir)),
        None => match given {
            Some(r) => Err(CliError::usage(format!(
                "{}: no such run folder or run id",
                r.display()
            ))),
            None => Ok(Vec::new()),
        },
    }
}

fn list(args: &ListArgs) -> Result<Exit, CliError> {
    let state = crate::spec::load_job(&args.job)?.state_dir();
    let verdict_findings = verdict_findings(args.run.as_deref(), &state)?;
    let rows = match job_findings(&args.job, &state) {
        Ok(found) => found.rows(),
        // Without a contract the run's findings can still be listed and decided on.
        Err(e @ DecideError::NoContract { .. }) if !verdict_findings.is_empty() => {
            super::out::say!("contract: {e}");
            Vec::new()
        }
        Err(e) => return Err(usage(e)),
    };
    for row in &rows {
        super::out::say!(
            "{}  {:?}  {}  [{}]",
            row.id,
            row.finding.severity,
            row.finding.message,
            describe(&row.standing)
        );
    }
    let decisions =
        load(&decisions_path(&args.job)).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    // One line per id: every trial of a case with the same evidence shares the finding.
    let mut shown: Vec<&VerdictFinding> = Vec::new();
    for f in &verdict_findings {
        if !shown.iter().any(|s| s.id == f.id && s.evidence == f.evidence) {
            shown.push(f);
        }
    }
    for f in &shown {
        super::out::say!(
            "{}  verdict  {} (trial {})  [{}]",
            f.id,
            f.what,
            f.trial,
            describe(&standing(f, &decisions))
        );
    }
    super::out::say!(
        "{} finding(s): {} contract, {} verdict",
        rows.len() + shown.len(),
        rows.len(),
        shown.len()
    );
    Ok(Exit::Success)
}

fn decide_cli(args: DecideArgs, verdict: Verdict) -> Result<Exit, CliError> {
    let state = crate::spec::load_job(&args.job)?.state_dir();
    let known: Vec<KnownFinding> = verdict_findings(args.run.as_deref(), &state)?
        .into_iter()
        .map(|f| KnownFinding {
            id: f.id,
            evidence: f.evidence,
        })
        .collect();
    let path = decide_with(&args.job, &state, &known, &args.findings, verdict, &args.reason, &who()).map_err(usage)?;
    super::out::say!(
        "{} finding(s) {} in {}",
        args.findings.len(),
        verdict_word(verdict),
        path.display()
    );
    Ok(Exit::Success)
}

fn usage(e: DecideError) -> CliError {
    match e {
        DecideError::EmptyReason => CliError::usage("--reason must say why (it is shown in the report)"),
        other => CliError::bad_input(other.to_string()),
    }
}
