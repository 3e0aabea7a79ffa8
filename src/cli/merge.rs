//! `ghostlab merge --job J --out RUN SHARD…`.

use std::path::PathBuf;

use super::{CliError, Exit};
use crate::run::run_dir::RunDir;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The job whose gates apply to the merged run.
    #[arg(long, default_value = "job.yaml")]
    pub job: PathBuf,
    /// Folder of the merged run (default: a new run under the job's state folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Refuse (exit 2) when an input changed since the run, instead of a note.
    #[arg(long)]
    pub strict: bool,
    /// Shard run folders, e.g. downloaded CI artifacts.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    let job = crate::spec::load_job(&args.job)?;
    let shards: Vec<&std::path::Path> = args.shards.iter().map(PathBuf::as_path).collect();
    super::replay::check_inputs(&job, &shards, args.strict)?;
    let facts = crate::judge::facts::job_contract_facts(&job).map_err(|e| CliError::bad_input(e.to_string()))?;
    let out = args
        .out
        .unwrap_or_else(|| RunDir::fresh(&job.state_dir()).path().to_path_buf());
    let s = crate::run::merge::merge_runs(&args.shards, &out, &job.job.review.gates, &facts)
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    super::out::say!("merged {} shard(s) into {}: {s}", args.shards.len(), out.display());
    Ok(Exit::gates(s.gates_met))
}
