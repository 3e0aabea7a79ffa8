//! `ghostlab report --job J [--run RUN] [--md F] [--html F] [--pdf F]`: renders the rollout
//! report of a finished run. Without any format flag it writes all three into the run folder.

use std::path::PathBuf;

use super::{CliError, Exit};
use crate::report::{ReportOutputs, latest_run, write_all};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The job.yaml of the agent.
    #[arg(long)]
    pub(crate) job: PathBuf,
    /// The run folder; defaults to the newest under `<state_dir>/runs/`.
    #[arg(long)]
    pub(crate) run: Option<PathBuf>,
    /// Write Markdown here.
    #[arg(long)]
    pub(crate) md: Option<PathBuf>,
    /// Write self-contained HTML here.
    #[arg(long)]
    pub(crate) html: Option<PathBuf>,
    /// Write PDF here.
    #[arg(long)]
    pub(crate) pdf: Option<PathBuf>,
    /// Refuse (exit 2) when an input changed since the run, instead of a note.
    #[arg(long)]
    pub(crate) strict: bool,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let job = crate::spec::load_job(&args.job)?;
    let run_dir = match args.run {
        Some(r) => r,
        None => latest_run(&job).map_err(|e| CliError::from_error(super::error::ErrorKind::MissingPrerequisite, e))?,
    };
    super::replay::check_inputs(&job, &[&run_dir], args.strict)?;
    let outputs = if args.md.is_none() && args.html.is_none() && args.pdf.is_none() {
        ReportOutputs::defaults(&run_dir)
    } else {
        ReportOutputs {
            markdown: args.md,
            html: args.html,
            pdf: args.pdf,
        }
    };
    let written =
        write_all(&job, &run_dir, &outputs).map_err(|e| CliError::from_error(super::error::ErrorKind::Io, e))?;
    for p in written {
        super::out::say!("wrote {}", p.display());
    }
    Ok(Exit::Success)
}
