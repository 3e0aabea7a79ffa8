//! `ghostlab merge --job J --out RUN SHARD…`.

use std::path::PathBuf;

use super::replay::ReplayArgs;
use super::{CliError, Exit};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) replay: ReplayArgs,
    /// Shard run folders, e.g. downloaded CI artifacts.
    #[arg(required = true)]
    pub(crate) shards: Vec<PathBuf>,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let job = crate::spec::load_job(&args.replay.job)?;
    let shards: Vec<&std::path::Path> = args.shards.iter().map(PathBuf::as_path).collect();
    super::replay::check_inputs(&job, &shards, args.replay.strict)?;
    let facts = crate::judge::facts::job_contract_facts(&job)
        .map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    let out = args.replay.out_or_fresh(&job);
    let s = crate::run::results::merge::merge_runs(&args.shards, &out, &job.job.review.gates, &facts)
        .map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    super::out::say!("merged {} shard(s) into {}: {s}", args.shards.len(), out.display());
    Ok(Exit::gates(s.gates_met))
}
