//! `ghostlab completions SHELL` and `ghostlab man [--out DIR]`, generated from the clap
//! definitions so they never drift from the real flags.

use std::path::PathBuf;

use super::{CliError, Exit};

#[derive(Debug, clap::Args)]
pub(crate) struct CompletionArgs {
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// Write one page per command into this folder; without it, print `ghostlab(1)`.
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
}

/// `cli` is the whole command line's definition (`Cli::command()`), handed in by the dispatcher
/// that owns it.
pub(crate) fn completions(args: CompletionArgs, mut cli: clap::Command) -> Result<Exit, CliError> {
    // Into memory first: clap_complete panics on a write error (a reader gone early).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "ghostlab", &mut script);
    super::out::write_bytes(&script);
    Ok(Exit::Success)
}

pub(crate) fn man(args: ManArgs, cmd: clap::Command) -> Result<Exit, CliError> {
    match args.out {
        Some(dir) => {
            std::fs::create_dir_all(&dir)?;
            clap_mangen::generate_to(cmd.clone(), &dir)?;
            // The top page again, with its EXIT STATUS section.
            crate::util::write_atomic(&dir.join("ghostlab.1"), &top_page(cmd)?)?;
            super::out::say!("wrote man pages to {}", dir.display());
        }
        None => super::out::write_bytes(&top_page(cmd)?),
    }
    Ok(Exit::Success)
}

/// `ghostlab(1)`: clap_mangen's sections, with EXIT STATUS (from `error::EXIT_CODES`) in place
/// of the generic EXTRA section it would make of the same text in `--help`.
pub(crate) fn top_page(cmd: clap::Command) -> std::io::Result<Vec<u8>> {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    man.render_subcommands_section(&mut out)?;
    out.extend_from_slice(super::exit::exit_status_roff().as_bytes());
    if cmd.get_version().is_some() {
        man.render_version_section(&mut out)?;
    }
    Ok(out)
}
