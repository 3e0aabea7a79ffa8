//! The replay check shared by `rescore`, `merge` and `report`: say which inputs of the stored
//! run(s) changed since they ran, and refuse under `--strict`.

use std::path::{Path, PathBuf};

use super::CliError;
use crate::run::results::replay_check::check_run;
use crate::run::store::run_dir::RunDir;
use crate::spec::LoadedJob;

/// The flags `merge` and `rescore` share: the job whose settings apply, where the new run goes,
/// and whether a changed input refuses the replay.
#[derive(Debug, clap::Args)]
pub(crate) struct ReplayArgs {
    /// The job whose gates apply (and, for rescore, its judge: generation.judge).
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// Folder of the new run (default: a new run under the job's state folder).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// Refuse (exit 2) when an input changed since the run, instead of a note.
    #[arg(long)]
    pub(crate) strict: bool,
}

impl ReplayArgs {
    /// `--out`, else a fresh run folder under the job's state folder.
    pub(crate) fn out_or_fresh(&self, job: &LoadedJob) -> PathBuf {
        self.out
            .clone()
            .unwrap_or_else(|| RunDir::fresh(&job.state_dir()).path().to_path_buf())
    }
}

/// Prints a note per run whose inputs changed (or could not be compared); with `strict`, any
/// such run is an error (exit 2) instead.
pub(crate) fn check_inputs(job: &LoadedJob, runs: &[&Path], strict: bool) -> Result<(), CliError> {
    let skip = job.own_paths();
    for run in runs {
        let check = check_run(run, &skip);
        if check.is_clean() {
            continue;
        }
        let line = format!("{}: {}", run.display(), check.summary());
        if strict {
            return Err(CliError::bad_input(line).with_hint(
                "--strict refuses a run whose inputs are not those it ran with; drop --strict to go on with a note",
            ));
        }
        eprintln!("note: {line}; this is no longer a replay of what ran");
    }
    Ok(())
}
