//! `ghostlab rescore --job J RUN [--out DIR]`: re-judge a stored run without re-running the agent.

use std::path::PathBuf;

use super::replay::ReplayArgs;
use super::{CliError, Exit};
use crate::run::store::run_dir::RunDir;
use crate::util::runtime::block_on;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) replay: ReplayArgs,
    /// The stored run folder to re-judge.
    pub(crate) run: PathBuf,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let job = crate::spec::load_job(&args.replay.job)?;
    if !RunDir::new(&args.run).has_cases() {
        return Err(CliError::usage(format!(
            "{}: not a run folder (it has no cases/)",
            args.run.display()
        )));
    }
    let out = args.replay.out_or_fresh(&job);
    if out.exists() && std::fs::read_dir(&out).is_ok_and(|mut d| d.next().is_some()) {
        return Err(CliError::usage(format!(
            "{}: already exists and is not empty; rescore writes a new run",
            out.display()
        )));
    }
    // After the argument checks, so a refusal is the first thing said.
    super::replay::check_inputs(&job, &[&args.run], args.replay.strict)?;
    let judge =
        crate::run::setup::judge(&job).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    eprintln!(
        "note: rescore re-judges the stored transcripts with {}; it reproduces the inputs and the \
         harness, not the agent's or the models' answers",
        judge.label()
    );
    let outcome = block_on(crate::run::results::rescore::rescore(
        &job,
        judge.as_ref(),
        &args.run,
        &out,
    ))?
    .map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    super::out::say!("run {}", out.display());
    super::out::say!("rescored {}: {outcome}", args.run.display());
    match crate::report::write_all(&job, &out, &crate::report::ReportOutputs::defaults(&out)) {
        Ok(paths) => paths.iter().for_each(|p| super::out::say!("report {}", p.display())),
        Err(e) => eprintln!("warning: the report could not be written: {e}"),
    }
    Ok(Exit::gates(outcome.gates_met))
}
