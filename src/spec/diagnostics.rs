//! Errors in a job or input file: each names the file, the key path inside it and, where one
//! exists, the nearest valid key. A file's errors are all collected, not just the first.

use std::fmt;
use std::path::{Path, PathBuf};

use super::limits::Bounds;

/// One problem at one place in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub(crate) file: PathBuf,
    /// Dotted key path (`agent.runtime.agents.release.temprature`, `agent.inputs.mcps[1]`);
    /// empty for the document as a whole.
    pub path: String,
    pub message: String,
    pub(crate) hint: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = if self.path.is_empty() { "(document)" } else { &self.path };
        write!(f, "{}: {}: {}", self.file.display(), place, self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

/// How many diagnostics a message shows: a file with 60,000 unknown keys must not print
/// megabytes to the terminal.
pub(crate) const SHOWN_DIAGNOSTICS: usize = 50;

/// Every problem found in a file (or in the files it references).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub diagnostics: Vec<Diagnostic>,
}

impl SpecError {
    /// A single diagnostic about `file`.
    pub(crate) fn one(file: &Path, path: impl Into<String>, message: impl Into<String>) -> Self {
        SpecError {
            diagnostics: vec![diag(file, path, message)],
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.diagnostics.len();
        writeln!(f, "{n} error{} in the job:", if n == 1 { "" } else { "s" })?;
        for d in self.diagnostics.iter().take(SHOWN_DIAGNOSTICS) {
            writeln!(f, "  {d}")?;
        }
        if n > SHOWN_DIAGNOSTICS {
            writeln!(
                f,
                "  … and {} more (fix these first, then validate again)",
                n - SHOWN_DIAGNOSTICS
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for SpecError {}

/// Builds a diagnostic without a hint.
pub(crate) fn diag(file: &Path, path: impl Into<String>, message: impl Into<String>) -> Diagnostic {
    Diagnostic {
        file: file.to_path_buf(),
        path: path.into(),
        message: message.into(),
        hint: None,
    }
}

/// Joins a parent key path and a child key (`a.b` + `c` → `a.b.c`).
pub(crate) fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// Appends an index (`a.b` + 2 → `a.b[2]`).
pub(crate) fn index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// A numeric limit inside a sane range; the range is in the message.
pub(crate) fn in_range(path: &Path, at: &str, v: u64, bounds: Bounds<u64>, ds: &mut Vec<Diagnostic>) {
    if !bounds.contains(v) {
        ds.push(diag(path, at, format!("{v} is out of range {bounds}")));
    }
}

/// The candidate closest to `word` when it is plausibly a typo of it.
pub(crate) fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (c, strsim::damerau_levenshtein(&lower, &c.to_ascii_lowercase())))
        .filter(|(c, d)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(_, d)| *d)
        .map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_finds_typos_but_not_unrelated_words() {
        let keys = ["temperature", "top_p", "steps", "model"];
        assert_eq!(nearest("temprature", keys), Some("temperature"));
        assert_eq!(nearest("modle", keys), Some("model"));
        assert_eq!(nearest("banana", keys), None);
    }

    #[test]
    fn display_names_file_path_and_hint() {
        let mut d = diag(Path::new("job.yaml"), "agent.x", "unknown key `x`");
        d.hint = Some("did you mean `id`?".into());
        assert_eq!(d.to_string(), "job.yaml: agent.x: unknown key `x` (did you mean `id`?)");
    }

    #[test]
    fn a_message_shows_the_first_fifty_and_counts_the_rest() {
        let e = SpecError {
            diagnostics: (0..120)
                .map(|i| diag(Path::new("job.yaml"), format!("k{i}"), "bad"))
                .collect(),
        };
        let text = e.to_string();
        assert!(text.starts_with("120 errors in the job:"));
        assert!(text.contains("job.yaml: k49: bad") && !text.contains("k50:"), "{text}");
        assert!(text.contains("… and 70 more"), "{text}");
    }
}
