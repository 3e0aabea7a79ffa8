//! `ghostlab init (--from SRC | --target T | --skill DIR) [--out job.yaml]`.
//!
//! The job is checked exactly as `validate` would check it before anything is written; an
//! import that fails writes nothing and exits 2. The file is written atomically.

use std::path::PathBuf;

use super::{CliError, ErrorKind, Exit};
use crate::import::{Imported, from_skill, from_target, import_source_noted};
use crate::spec::{job_to_yaml, parse_job_text, resolve_job};

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).multiple(false)))]
pub(crate) struct Args {
    /// An OpenCode project (its folder, its .opencode folder or a config file), an
    /// agent.yaml, or an MCP servers file (Claude, Cursor, VS Code, OpenCode).
    #[arg(long, group = "source")]
    pub(crate) from: Option<PathBuf>,
    /// MCP-only shorthand: a stdio command (quoted) or an http(s) URL.
    #[arg(long, group = "source")]
    pub(crate) target: Option<String>,
    /// Skill-only shorthand: a folder holding SKILL.md.
    #[arg(long, group = "source")]
    pub(crate) skill: Option<PathBuf>,
    /// Where to write the job.
    #[arg(long, default_value = "job.yaml")]
    pub(crate) out: PathBuf,
    /// Replace an existing file, and write the job even when it does not validate.
    #[arg(long)]
    pub(crate) force: bool,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    if args.out.exists() && !args.force {
        return Err(CliError::usage(format!(
            "{} exists; pass --force to replace it",
            args.out.display()
        )));
    }
    let out_dir = crate::spec::load::job_dir(&args.out);
    let imported = if let Some(src) = &args.from {
        import_source_noted(src, &out_dir)?
    } else if let Some(t) = &args.target {
        Imported::new(from_target(t, None))
    } else if let Some(s) = &args.skill {
        Imported::new(from_skill(s, &out_dir))
    } else {
        unreachable!("clap requires one source")
    };
    let mut imported = imported;
    // Imported paths point back into the source project: allow that folder explicitly.
    if let Some(folder) = source_folder(args.from.as_deref().or(args.skill.as_deref()))
        && !folder.starts_with(std::fs::canonicalize(&out_dir).unwrap_or(out_dir.clone()))
    {
        imported
            .job
            .paths
            .outside_job
            .push(folder.to_string_lossy().into_owned());
    }
    for line in &imported.sources {
        super::out::say!("  {line}");
    }
    if !imported.warnings.is_empty() {
        eprintln!(
            "{} warning{} (not carried as written):",
            imported.warnings.len(),
            if imported.warnings.len() == 1 { "" } else { "s" }
        );
        for w in &imported.warnings {
            eprintln!("  warning: {w}");
        }
    }
    // Validate in memory, as `validate` would read the file, before writing anything.
    let text = job_to_yaml(&imported.job);
    let checked = parse_job_text(&args.out, &text).and_then(|job| resolve_job(&args.out, job));
    match checked {
        Ok(_) => {
            crate::util::write_atomic(&args.out, text.as_bytes())?;
            super::out::say!("wrote {}", args.out.display());
            Ok(Exit::Success)
        }
        Err(e) if args.force => {
            crate::util::write_atomic(&args.out, text.as_bytes())?;
            eprintln!("{e}");
            eprintln!("wrote {} anyway (--force); it does not validate", args.out.display());
            Ok(Exit::Failed(ErrorKind::BadInput))
        }
        Err(e) => Err(CliError::bad_input(format!("{e}nothing was written")).because(e)),
    }
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
