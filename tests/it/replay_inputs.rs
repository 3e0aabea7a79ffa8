//! The replay manifest and its check: a run records absolute fingerprints of its inputs and the
//! replay note (also in the report); `rescore`, `merge` and `report` say which inputs changed
//! since, and refuse under `--strict`. The job's own files (its state folder) never count.

use crate::common;
use std::path::{Path, PathBuf};

fn run_once(dir: &Path) -> PathBuf {
    let out = common::ghostlab_in(dir, 120)
        .args(["test", "--job", "job.yaml", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    common::newest_run(dir)
}

fn stderr_of(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = common::ghostlab_in(dir, 120).args(args).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_changed_prompt_is_named_by_rescore_merge_and_report_and_refused_when_strict() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["CI is green. Shall I proceed?", "Done."]);
    let run = run_once(&dir);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["version"], 1);
    let prints = manifest["fingerprints"].as_object().unwrap();
    assert!(prints.keys().all(|k| k.starts_with('/')), "relative keys: {prints:?}");
    for input in ["job.yaml", "prompts/release.md", "release-repo", "dataset.json"] {
        assert!(
            prints.keys().any(|k| k.ends_with(input)),
            "{input} not fingerprinted: {prints:?}"
        );
    }
    let note = manifest["replay_note"].as_str().unwrap();
    assert!(
        note.contains("not model determinism") || note.contains("only reproduced"),
        "{note}"
    );
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains(note), "the report lacks the replay note");

    let run_arg = run.to_str().unwrap();
    let (code, err) = stderr_of(&dir, &["report", "--job", "job.yaml", "--run", run_arg, "--strict"]);
    assert_eq!(code, Some(0), "nothing changed yet: {err}");
    assert!(!err.contains("changed since"), "{err}");

    let prompt = dir.join("prompts/release.md");
    let text = std::fs::read_to_string(&prompt).unwrap();
    std::fs::write(&prompt, format!("{text}\nAlso tag on Fridays.\n")).unwrap();
    let (code, err) = stderr_of(&dir, &["rescore", "--job", "job.yaml", run_arg]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("prompts/release.md (changed)"), "{err}");
    for args in [
        &["rescore", "--job", "job.yaml", "--strict", run_arg][..],
        &["report", "--job", "job.yaml", "--run", run_arg, "--strict"],
        &["merge", "--job", "job.yaml", "--strict", "--out", "merged", run_arg],
    ] {
        let (code, err) = stderr_of(&dir, args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("prompts/release.md (changed)"), "{args:?}: {err}");
    }
}
#[test]
fn the_jobs_own_folder_inside_the_workspace_does_not_count_as_a_change() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["Done."]);
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("workspace: ./release-repo", "workspace: .");
    std::fs::write(&job, text).unwrap();
    let first = run_once(&dir);
    // A second run writes runs, reports and logs into the state folder inside the workspace.
    run_once(&dir);
    let (code, err) = stderr_of(
        &dir,
        &[
            "report",
            "--job",
            "job.yaml",
            "--run",
            first.to_str().unwrap(),
            "--strict",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
}
