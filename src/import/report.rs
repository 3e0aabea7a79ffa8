//! What an import produced besides the job: where each agent and command came from, and
//! every part of the source the job does not carry as written (never dropped silently).

use std::path::{Path, PathBuf};

use crate::spec::Diagnostic;
use crate::spec::diagnostics::diag;
use crate::spec::job::Job;

/// A job built from a source, with its provenance and warnings.
#[derive(Debug, Clone)]
pub(crate) struct Imported {
    pub(crate) job: Job,
    /// Lines such as "agent `reviewer`: .opencode/opencode.jsonc, .opencode/agent/reviewer.md".
    pub(crate) sources: Vec<String>,
    /// Parts of the source that are not carried as written, each with file and key path.
    pub(crate) warnings: Vec<Diagnostic>,
}

impl Imported {
    pub(crate) fn new(job: Job) -> Self {
        Imported {
            job,
            sources: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// Collects provenance and warnings while an import runs.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    pub(crate) sources: Vec<String>,
    pub(crate) warnings: Vec<Diagnostic>,
    /// Folder that file names in provenance lines are shown relative to.
    pub(crate) root: PathBuf,
}

impl Notes {
    pub(crate) fn new(root: &Path) -> Self {
        Notes {
            root: root.to_path_buf(),
            ..Notes::default()
        }
    }

    pub(crate) fn warn(&mut self, file: &Path, path: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(diag(file, path, message));
    }

    /// A file name as the user knows it: relative to the project root when inside it.
    pub(crate) fn show(&self, file: &Path) -> String {
        file.strip_prefix(&self.root)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| file.display().to_string())
    }

    pub(crate) fn source(&mut self, what: &str, name: &str, files: &[PathBuf]) {
        let shown: Vec<String> = files.iter().map(|f| self.show(f)).collect();
        self.sources.push(format!("{what} `{name}`: {}", shown.join(" + ")));
    }

    pub(crate) fn finish(self, job: Job) -> Imported {
        Imported {
            job,
            sources: self.sources,
            warnings: self.warnings,
        }
    }
}
