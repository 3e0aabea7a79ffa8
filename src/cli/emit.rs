//! `ghostlab emit --job J --out DIR`.

use std::path::PathBuf;

use super::{CliError, Exit};
use crate::emit::{EmitOptions, write_opencode_project};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// Folder that receives opencode.json (paths inside point at the job's files on this host).
    #[arg(long)]
    pub(crate) out: PathBuf,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let loaded = crate::spec::load_job(&args.job)?;
    let path = write_opencode_project(&loaded, &args.out, &EmitOptions::default())?;
    super::out::say!("wrote {}", path.display());
    Ok(Exit::Success)
}
