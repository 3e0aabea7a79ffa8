//! `--job FILE`: the arguments of a command that needs only the job (`validate`, `profile`).

use std::path::PathBuf;

/// A command's only argument, the job file.
#[derive(Debug, clap::Args)]
pub(crate) struct JobArg {
    /// The job file.
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
}
