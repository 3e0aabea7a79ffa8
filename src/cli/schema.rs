//! `ghostlab schema [--write FILE | --check FILE]`.

use std::path::PathBuf;
use std::process::ExitCode;

use super::CliError;
use crate::spec::schema::job_schema_text;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write the schema to this file (atomically).
    #[arg(long, conflicts_with = "check")]
    pub write: Option<PathBuf>,
    /// Exit 1 when this file differs from the schema of this build.
    #[arg(long)]
    pub check: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let text = job_schema_text();
    if let Some(path) = args.write {
        crate::util::write_atomic(&path, text.as_bytes())?;
        println!("wrote {}", path.display());
    } else if let Some(path) = args.check {
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current != text {
            eprintln!(
                "{} is stale; run `ghostlab schema --write {}`",
                path.display(),
                path.display()
            );
            return Ok(ExitCode::from(1));
        }
        println!("{} is current", path.display());
    } else {
        print!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}
