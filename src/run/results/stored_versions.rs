//! The format versions of a stored run's files, checked by every command that reads a run back
//! (`report`, `view`, `merge`, `rescore`) before it reads anything else: a manifest.json,
//! summary.json or verdict.json from a newer Ghostlab, or without a `version`, stops it with
//! the file's path (exit 2) instead of a report, merge or re-judging that silently drops what
//! it does not understand (a newer verdict.json used to be skipped as "not finished").

use std::path::Path;

use crate::judge::case_verdict::VERDICT_VERSION;
use crate::run::store::manifest::MANIFEST_VERSION;
use crate::run::store::run_dir::RunDir;
use crate::run::suite::SUMMARY_VERSION;
use crate::util::format_version::{FormatVersionError, read_checked};

/// Checks every versioned file the run folder `dir` holds; absent files are not an error here
/// (each reader says what a missing file means to it), a file that is not JSON is.
pub(crate) fn check_stored_run(dir: &Path) -> Result<(), FormatVersionError> {
    check(dir, false)
}

/// As [`check_stored_run`], but a file that cannot be read as JSON is left to the reader: the
/// report shows such a trial with its problem rather than refusing the whole run.
pub(crate) fn check_stored_versions(dir: &Path) -> Result<(), FormatVersionError> {
    check(dir, true)
}

fn check(dir: &Path, leave_unreadable: bool) -> Result<(), FormatVersionError> {
    let run = RunDir::new(dir);
    let files = [
        (run.manifest(), "manifest.json", MANIFEST_VERSION),
        (run.summary(), "summary.json", SUMMARY_VERSION),
    ]
    .into_iter()
    .chain(
        run.trials()
            .into_iter()
            .map(|t| (t.verdict(), "verdict.json", VERDICT_VERSION)),
    );
    for (path, what, version) in files {
        match read_checked(&path, what, version) {
            Err(FormatVersionError::Unreadable { .. }) if leave_unreadable => {}
            Err(e) => return Err(e),
            Ok(_) => {}
        }
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
            assert!(
                check_stored_versions(d.path()).is_err(),
                "{file}: a missing version passed"
            );
        }
    }

    #[test]
    fn a_file_that_is_not_json_is_refused_or_left_to_the_reader() {
        let d = tempfile::tempdir().unwrap();
        run_with(d.path(), "verdict.json", "{torn");
        let e = check_stored_run(d.path()).unwrap_err().to_string();
        assert!(e.contains("verdict.json") && e.contains("not JSON"), "{e}");
        assert_eq!(check_stored_versions(d.path()), Ok(()));
    }
}
