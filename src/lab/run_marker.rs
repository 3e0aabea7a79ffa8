//! Which run the lab's step 12 started, kept in the lab folder until step 12 is saved as done.
//!
//! The run's summary and the job's "step 12 done" are two writes: a lab killed between them
//! would otherwise start a second run on `lab --resume` and redo every trial. With the marker,
//! the resumed step continues the run it started (`test --resume` semantics: every judged
//! trial is kept, the summary and report are written again), whether or not its summary
//! landed, and the marker goes once the job records step 12 as done.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The marker's file in the lab folder.
pub const MARKER_FILE: &str = "step12-run.json";
/// Its format.
pub(crate) const MARKER_VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    version: u32,
    run: PathBuf,
}

/// Records that step 12 runs into `run`.
pub fn started(lab_dir: &Path, run: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(lab_dir)?;
    let marker = Marker {
        version: MARKER_VERSION,
        run: run.to_path_buf(),
    };
    crate::util::durable::write_json_replace(&lab_dir.join(MARKER_FILE), &marker)
}

/// The run step 12 started and has not recorded as done, when it still is a run folder of
/// exactly `case_ids`. An unreadable or foreign marker is none (a new run starts).
pub(crate) fn unrecorded_run(lab_dir: &Path, case_ids: &[String]) -> Option<PathBuf> {
    let text =
        crate::util::bounded::read_bounded_string(&lab_dir.join(MARKER_FILE), crate::util::bounded::FileKind::State)
            .ok()?;
    let marker: Marker = serde_json::from_str(&text).ok()?;
    if marker.version != MARKER_VERSION || crate::run::store::run_dir::check_run_folder(&marker.run).is_err() {
        return None;
    }
    runs_cases(&marker.run, case_ids).then_some(marker.run)
}

/// Whether the run folder's manifest.json lists exactly `case_ids`, in order.
pub(crate) fn runs_cases(run: &Path, case_ids: &[String]) -> bool {
    let manifest = crate::run::store::run_dir::RunDir::new(run).manifest();
    crate::util::bounded::read_bounded_string(&manifest, crate::util::bounded::FileKind::State)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|m| {
            m["cases"].as_array().is_some_and(|c| {
                c.iter()
                    .map(serde_json::Value::as_str)
                    .eq(case_ids.iter().map(|i| Some(i.as_str())))
            })
        })
}

/// Forgets the marker: step 12 is recorded as done in the job.
pub(crate) fn clear(lab_dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(lab_dir.join(MARKER_FILE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_folder(root: &Path, cases: &[&str]) -> PathBuf {
        let run = root.join("runs/20260101-000000-abcd");
        std::fs::create_dir_all(run.join("cases")).unwrap();
        let manifest = serde_json::json!({ "version": 1, "cases": cases });
        std::fs::write(run.join("manifest.json"), manifest.to_string()).unwrap();
        run
    }

    #[test]
    fn a_started_run_is_found_for_the_same_cases_only_until_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let lab = dir.path().join("lab");
        let run = run_folder(dir.path(), &["a", "b"]);
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(unrecorded_run(&lab, &ids(&["a", "b"])), None, "nothing started yet");
        started(&lab, &run).unwrap();
        assert_eq!(unrecorded_run(&lab, &ids(&["a", "b"])), Some(run.clone()));
        assert_eq!(unrecorded_run(&lab, &ids(&["a"])), None, "other cases: a new run");
        assert_eq!(
            unrecorded_run(&lab, &ids(&["b", "a"])),
            None,
            "another order is another dataset"
        );
        clear(&lab).unwrap();
        clear(&lab).unwrap();
        assert_eq!(unrecorded_run(&lab, &ids(&["a", "b"])), None);
    }

    #[test]
    fn a_marker_that_is_garbage_or_points_at_no_run_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let lab = dir.path().join("lab");
        std::fs::create_dir_all(&lab).unwrap();
        let ids = vec!["a".to_string()];
        std::fs::write(lab.join(MARKER_FILE), "{not json").unwrap();
        assert_eq!(unrecorded_run(&lab, &ids), None);
        std::fs::write(lab.join(MARKER_FILE), r#"{"version":1,"run":"/etc"}"#).unwrap();
        assert_eq!(unrecorded_run(&lab, &ids), None, "not a run folder");
        let run = run_folder(dir.path(), &["a"]);
        std::fs::write(lab.join(MARKER_FILE), format!(r#"{{"version":99,"run":{:?}}}"#, run)).unwrap();
        assert_eq!(unrecorded_run(&lab, &ids), None, "a newer format is not trusted");
    }
}
