//! `ghostlab test --job J [--repeat K] [--parallel N] [--case ID]… [--partition I/N]
//! [--junit FILE] [--resume] [--run DIR] [--agent-cassette F] [--pdf [F]]`.
//!
//! Exit codes: 0 every gate met, 1 a gate not met, 2 the run could not happen.

use std::path::PathBuf;
use std::sync::Arc;

use super::{CliError, Exit};
use crate::app::{RunResults, TestRunError, TestSettings, run_tests};
use crate::run::case::dataset_cases::Selection;
use crate::spec::SandboxBackend;
use crate::trial::{EventSink, Sinks, SuiteEvent};
use crate::util::runtime::block_on_workers;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// Trials per case (pass^k needs k).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub(crate) repeat: u32,
    /// Cases running at once (1–256).
    #[arg(long, default_value_t = 4, value_parser = clap::builder::TypedValueParser::map(clap::value_parser!(u16).range(1..=256), usize::from))]
    pub(crate) parallel: usize,
    /// Only these cases (repeatable).
    #[arg(long = "case")]
    pub(crate) cases: Vec<String>,
    /// Also run cases still pending review.
    #[arg(long)]
    pub(crate) include_pending: bool,
    /// Run a deterministic share `I/N` of the cases (for a CI matrix); merge with `ghostlab merge`.
    #[arg(long, value_parser = parse_partition)]
    pub(crate) partition: Option<(u32, u32)>,
    /// Also write JUnit XML here.
    #[arg(long)]
    pub(crate) junit: Option<PathBuf>,
    /// Run folder (default: a new one under the job's state folder).
    #[arg(long)]
    pub(crate) run: Option<PathBuf>,
    /// Skip trials already judged in the run folder (the newest run unless --run is given).
    #[arg(long)]
    pub(crate) resume: bool,
    /// Serve the agent's model from this cassette through a local model server.
    #[arg(long)]
    pub(crate) agent_cassette: Option<PathBuf>,
    /// Also write the rollout report as PDF: into the run folder, or to FILE (Markdown and
    /// HTML always go beside the run).
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    pub(crate) pdf: Option<Option<PathBuf>>,
    /// No live transcript on stderr.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// Why a `--partition` value is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum PartitionError {
    #[error("expected I/N, e.g. 2/4")]
    NoSlash,
    #[error("{0} is not a number")]
    NotANumber(&'static str),
    #[error("{i}/{n}: I must be between 1 and N")]
    OutOfRange { i: u32, n: u32 },
}

fn parse_partition(text: &str) -> Result<(u32, u32), PartitionError> {
    let (i, n) = text.split_once('/').ok_or(PartitionError::NoSlash)?;
    let (i, n): (u32, u32) = (
        i.parse().map_err(|_| PartitionError::NotANumber("I"))?,
        n.parse().map_err(|_| PartitionError::NotANumber("N"))?,
    );
    if n == 0 || i == 0 || i > n {
        return Err(PartitionError::OutOfRange { i, n });
    }
    Ok((i, n))
}

impl Args {
    /// The settings these arguments mean for `job`.
    fn settings(&self, job: crate::spec::LoadedJob) -> TestSettings {
        TestSettings {
            job,
            selection: Selection {
                ids: self.cases.clone(),
                include_pending: self.include_pending,
                partition: self.partition,
            },
            repeat: self.repeat,
            parallel: self.parallel,
            run_dir: self.run.clone(),
            resume: self.resume,
            agent_cassette: self.agent_cassette.clone(),
            pdf: self.pdf.clone().flatten(),
            write_pdf: self.pdf.is_some(),
        }
    }
}

/// The live transcript on stderr: one line per case event.
struct TerminalPrinter;

impl EventSink for TerminalPrinter {
    fn handle(&self, event: &SuiteEvent) {
        if let SuiteEvent::Case(env) = event {
            eprintln!("[{}] {}", env.case, env.event.one_line());
        }
    }
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let job = crate::spec::load_job(&args.job)?;
    if job.job.sandbox.backend == SandboxBackend::Local {
        eprintln!(
            "warning: sandbox.backend is `local`: the agent and its tools run on this machine WITHOUT isolation (only the workspace is a copy)"
        );
    }
    let settings = args.settings(job);
    let sinks = if args.quiet {
        Sinks::none()
    } else {
        Sinks::none().with(Arc::new(TerminalPrinter))
    };
    let outcome = block_on_workers(run_tests(&settings, sinks))?.map_err(|e| match e {
        TestRunError::NoCases => CliError::usage("no cases selected")
            .with_hint("approve cases with `ghostlab dataset approve --all --job …`, or pass --include-pending"),
        other => CliError::peer(other.to_string()),
    })?;
    let unmatched = &outcome.unmatched_model_requests;
    if !unmatched.is_empty() {
        eprintln!(
            "note: the agent's model server had no answer for {} request(s): {}",
            unmatched.len(),
            unmatched.join(" | ")
        );
    }
    if let Some(path) = &args.junit {
        std::fs::copy(outcome.run.junit(), path)
            .map_err(|e| CliError::io_error(format!("{}: {e}", path.display())).because(e))?;
    }
    let (reports, report_error) = match outcome.report {
        Ok(paths) => (paths, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    // The same results text as `lab --yes` and the lab's results screen.
    let results = RunResults::of(&outcome.run, &outcome.summary, reports, report_error);
    super::out::say!("run {}", outcome.run.path().display());
    for line in results.text_lines() {
        super::out::say!("{line}");
    }
    Ok(Exit::gates(outcome.summary.gates_met))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_is_i_of_n_and_each_refusal_says_why() {
        assert_eq!(parse_partition("2/4"), Ok((2, 4)));
        let err = |t: &str| parse_partition(t).unwrap_err().to_string();
        assert_eq!(err("2"), "expected I/N, e.g. 2/4");
        assert_eq!(err("x/4"), "I is not a number");
        assert_eq!(err("1/y"), "N is not a number");
        assert_eq!(err("5/4"), "5/4: I must be between 1 and N");
        assert_eq!(err("0/4"), "0/4: I must be between 1 and N");
    }
}
