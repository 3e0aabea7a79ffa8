//! `ghostlab schema [--kind KIND] [--write FILE | --check FILE]`.

use std::path::PathBuf;

use super::{CliError, Exit};
use crate::generate::schema::{ArtifactKind, artifact_schema_text};
use crate::spec::schema::job_schema_text;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Which schema: job.yaml (default) or a generated artifact.
    #[arg(long, value_enum, default_value_t = SchemaKind::Job)]
    pub(crate) kind: SchemaKind,
    /// Write the schema to this file (atomically).
    #[arg(long, conflicts_with = "check")]
    pub(crate) write: Option<PathBuf>,
    /// Exit 1 when this file differs from the schema of this build.
    #[arg(long)]
    pub(crate) check: Option<PathBuf>,
}

/// The documents Ghostlab has a JSON Schema for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SchemaKind {
    Job,
    AgentProfile,
    Persona,
    Scenario,
    Dataset,
    /// summary.json of a run.
    Summary,
    /// What `ghostlab view --json` prints.
    View,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let text = match args.kind {
        SchemaKind::Job => job_schema_text(),
        SchemaKind::AgentProfile => artifact_schema_text(ArtifactKind::AgentProfile),
        SchemaKind::Persona => artifact_schema_text(ArtifactKind::Persona),
        SchemaKind::Scenario => artifact_schema_text(ArtifactKind::Scenario),
        SchemaKind::Dataset => artifact_schema_text(ArtifactKind::Dataset),
        SchemaKind::Summary => crate::run::results::summary_schema::summary_schema_text(),
        SchemaKind::View => crate::lab::view_schema::view_schema_text(),
    };
    if let Some(path) = args.write {
        crate::util::write_atomic(&path, text.as_bytes())?;
        super::out::say!("wrote {}", path.display());
    } else if let Some(path) = args.check {
        let current =
            crate::util::bounded::read_bounded_string(&path, crate::util::bounded::FileKind::State).unwrap_or_default();
        if current != text {
            eprintln!(
                "{} is stale; run `ghostlab schema --write {}`",
                path.display(),
                path.display()
            );
            return Ok(Exit::NotMet);
        }
        super::out::say!("{} is current", path.display());
    } else {
        super::out::say_raw!("{text}");
    }
    Ok(Exit::Success)
}
