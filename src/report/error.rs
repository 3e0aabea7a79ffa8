//! What can go wrong building or writing a report.

use std::path::PathBuf;

/// Errors of the report command.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("run folder {0} does not exist")]
    NoRun(PathBuf),
    #[error("no runs under {0}: run `ghostlab test` first or pass --run")]
    NoRuns(PathBuf),
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("pdf: {0}")]
    Pdf(String),
    /// A run file of another format version (`run::stored_versions`).
    #[error("{0}")]
    Format(#[from] crate::util::format_version::FormatVersionError),
}
