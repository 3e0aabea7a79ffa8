//! `ghostlab merge --job J --out RUN SHARD…`.

use std::path::PathBuf;
use std::process::ExitCode;

use super::CliError;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The job whose gates apply to the merged run.
    #[arg(long, default_value = "job.yaml")]
    pub job: PathBuf,
    /// Folder of the merged run (default: a new run under the job's state folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Shard run folders, e.g. downloaded CI artifacts.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let job = crate::spec::load_job(&args.job)?;
    let out = args
        .out
        .unwrap_or_else(|| job.state_dir().join("runs").join(crate::run::manifest::new_run_id()));
    let s = crate::run::merge::merge_runs(&args.shards, &out, &job.job.review.gates)
        .map_err(|e| CliError::usage(e.to_string()))?;
    println!(
        "merged {} shard(s) into {}: {} trials, {} PASS, {} FAIL, {} INCONCLUSIVE, {} INFRA_ERROR; gates {}",
        args.shards.len(),
        out.display(),
        s.summary.trials,
        s.summary.pass,
        s.summary.fail,
        s.summary.inconclusive,
        s.summary.infra_error,
        if s.gates_met { "met" } else { "NOT met" }
    );
    Ok(if s.gates_met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
