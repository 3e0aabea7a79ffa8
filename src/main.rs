//! The `ghostlab` command: parse arguments, set up logging, dispatch, exit with a meaningful code.

use std::process::ExitCode;

fn main() -> ExitCode {
    ghostlab::sandbox::reaper::mark_this_binary_as_ghostlab();
    ghostlab::cli::exit_quietly_when_output_is_gone();
    let cli = ghostlab::cli::parse();
    ghostlab::cli::init_logging();
    ghostlab::cli::dispatch(cli)
}
