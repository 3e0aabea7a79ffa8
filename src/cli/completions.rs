//! `ghostlab completions SHELL` and `ghostlab man [--out DIR]`, generated from the clap
//! definitions so they never drift from the real flags.

use clap::CommandFactory;
use std::path::PathBuf;
use std::process::ExitCode;

use super::{Cli, CliError};

#[derive(Debug, clap::Args)]
pub struct CompletionArgs {
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write one page per command into this folder; without it, print `ghostlab(1)`.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn completions(args: CompletionArgs) -> Result<ExitCode, CliError> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "ghostlab", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

pub fn man(args: ManArgs) -> Result<ExitCode, CliError> {
    let cmd = Cli::command();
    match args.out {
        Some(dir) => {
            std::fs::create_dir_all(&dir)?;
            clap_mangen::generate_to(cmd, &dir)?;
            println!("wrote man pages to {}", dir.display());
        }
        None => clap_mangen::Man::new(cmd).render(&mut std::io::stdout())?,
    }
    Ok(ExitCode::SUCCESS)
}
