//! `ghostlab init (--from SRC | --target T | --skill DIR) [--out job.yaml]`.

use std::path::PathBuf;
use std::process::ExitCode;

use super::CliError;
use crate::import::{from_skill, from_target, import_source};
use crate::spec::save_job;

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).multiple(false)))]
pub struct Args {
    /// An opencode.json (or its project folder), an agent.yaml, or an MCP servers file.
    #[arg(long, group = "source")]
    pub from: Option<PathBuf>,
    /// MCP-only shorthand: a stdio command (quoted) or an http(s) URL.
    #[arg(long, group = "source")]
    pub target: Option<String>,
    /// Skill-only shorthand: a folder holding SKILL.md.
    #[arg(long, group = "source")]
    pub skill: Option<PathBuf>,
    /// Where to write the job.
    #[arg(long, default_value = "job.yaml")]
    pub out: PathBuf,
    /// Replace an existing file.
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if args.out.exists() && !args.force {
        return Err(CliError::usage(format!(
            "{} exists; pass --force to replace it",
            args.out.display()
        )));
    }
    let out_dir = crate::spec::load::job_dir(&args.out);
    let mut job = if let Some(src) = &args.from {
        import_source(src, &out_dir)?
    } else if let Some(t) = &args.target {
        from_target(t, None)
    } else if let Some(s) = &args.skill {
        from_skill(s, &out_dir)
    } else {
        unreachable!("clap requires one source")
    };
    // Imported paths point back into the source project: allow that folder explicitly.
    if let Some(folder) = source_folder(args.from.as_deref().or(args.skill.as_deref()))
        && !folder.starts_with(std::fs::canonicalize(&out_dir).unwrap_or(out_dir.clone()))
    {
        job.paths.outside_job.push(folder.to_string_lossy().into_owned());
    }
    save_job(&args.out, &job)?;
    // What we wrote must load; report it the same way `validate` would.
    crate::spec::load_job(&args.out)?;
    println!("wrote {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// The canonical folder an import reads from (the file's folder, or the folder itself).
fn source_folder(src: Option<&std::path::Path>) -> Option<PathBuf> {
    let src = std::fs::canonicalize(src?).ok()?;
    if src.is_dir() {
        Some(src)
    } else {
        src.parent().map(PathBuf::from)
    }
}
