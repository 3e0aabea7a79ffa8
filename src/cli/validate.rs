//! `ghostlab validate --job J`.

use std::path::PathBuf;
use std::process::ExitCode;

use super::CliError;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The job file.
    #[arg(long, default_value = "job.yaml")]
    pub job: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let loaded = crate::spec::load_job(&args.job)?;
    // The generated files the lab recorded must still be the ones it wrote.
    for warning in crate::spec::artifact_refs::verify(&args.job, &loaded.job.lab.artifacts).map_err(CliError::usage)? {
        eprintln!("warning: {warning}");
    }
    super::out::say!(
        "OK {}: agent `{}`, {} MCP server{}, sandbox {:?}",
        args.job.display(),
        loaded.job.agent.id,
        loaded.mcps.len(),
        if loaded.mcps.len() == 1 { "" } else { "s" },
        loaded.job.sandbox.backend
    );
    Ok(ExitCode::SUCCESS)
}
