//! The replay check shared by `rescore`, `merge` and `report`: say which inputs of the stored
//! run(s) changed since they ran, and refuse under `--strict`.

use std::path::Path;

use super::CliError;
use crate::run::replay_check::check_run;
use crate::spec::LoadedJob;

/// Prints a note per run whose inputs changed (or could not be compared); with `strict`, any
/// such run is an error (exit 2) instead.
pub fn check_inputs(job: &LoadedJob, runs: &[&Path], strict: bool) -> Result<(), CliError> {
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
