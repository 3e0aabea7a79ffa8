//! The format versions of a stored run's files, checked by every command that reads a run back
//! (`report`, `view`, `merge`, `rescore`) before it reads anything else: a manifest.json,
//! summary.json or verdict.json from a newer Ghostlab, or without a `version`, stops it with
//! the file's path (exit 2) instead of a report, merge or re-judging that silently drops what
//! it does not understand (a newer verdict.json used to be skipped as "not finished").

use std::path::Path;

use super::manifest::MANIFEST_VERSION;
use super::run_dir::RunDir;
use super::suite::SUMMARY_VERSION;
use crate::judge::case_verdict::VERDICT_VERSION;
use crate::util::format_version::{FormatVersionError, read_checked};

/// Checks every versioned file the run folder `dir` holds; absent files are not an error here
/// (each reader says what a missing file means to it).
pub fn check_stored_run(dir: &Path) -> Result<(), FormatVersionError> {
    let run = RunDir::new(dir);
    read_checked(&run.manifest(), "manifest.json", MANIFEST_VERSION)?;
    read_checked(&run.summary(), "summary.json", SUMMARY_VERSION)?;
    for trial in run.trials() {
        read_checked(&trial.verdict(), "verdict.json", VERDICT_VERSION)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(dir: &Path, file: &str, text: &str) {
        let trial = dir.join("cases/c1/trial-1");
        std::fs::create_dir_all(&trial).unwrap();
        for (name, at) in [
            ("manifest.json", dir.join("manifest.json")),
            ("summary.json", dir.join("summary.json")),
            ("verdict.json", trial.join("verdict.json")),
        ] {
            std::fs::write(&at, if name == file { text } else { r#"{"version": 1}"# }).unwrap();
        }
    }

    #[test]
    fn each_versioned_file_of_a_run_is_checked() {
        for file in ["manifest.json", "summary.json", "verdict.json"] {
            let d = tempfile::tempdir().unwrap();
            run_with(d.path(), file, r#"{"version": 1}"#);
            assert_eq!(check_stored_run(d.path()), Ok(()));
            run_with(d.path(), file, r#"{"version": 2}"#);
            let e = check_stored_run(d.path()).unwrap_err().to_string();
            assert!(e.contains(file) && e.contains("version 2 is newer"), "{e}");
            run_with(d.path(), file, r#"{"cases": []}"#);
            let e = check_stored_run(d.path()).unwrap_err().to_string();
            assert!(e.contains(file) && e.contains("no `version`"), "{e}");
        }
    }
}
