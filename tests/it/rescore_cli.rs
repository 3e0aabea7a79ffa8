//! `ghostlab rescore`: re-judges a stored run into a new run folder with the job's current judge
//! and gates, never touching the source run, and refuses bad input with exit code 2.

use crate::common;

use assert_cmd::Command;
use std::path::Path;

fn ghostlab(dir: &Path) -> Command {
    common::ghostlab_in(dir, 120)
}

fn summary(run: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn rescore_rejudges_a_stored_run_with_the_current_gates() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    // A mock agent on the local backend: this test is about re-judging, not about running.
    common::mock_release_bot(&dir, &["CI is green. Draft notes for 1.3.0. Shall I proceed?", "Done."]);
    let job = dir.join("job.yaml");
    let out = ghostlab(&dir)
        .args(["test", "--job", "job.yaml", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "gates are not met by a mock agent");
    let runs = dir.join(".ghostlab/runs");
    let run = std::fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    let before = common::tree_digest(&run);

    let first = tmp.path().join("rescored-1");
    let out = ghostlab(&dir)
        .args(["rescore", "--job", "job.yaml", "--out"])
        .arg(&first)
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not the agent's or the models' answers"));
    assert_eq!(
        summary(&first)["summary"],
        summary(&run)["summary"],
        "same transcripts, same judge"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(first.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["rescored_from"], run.to_string_lossy().as_ref());
    assert!(first.join("report.pdf").is_file());
    assert_eq!(common::tree_digest(&run), before, "the source run is never modified");

    // Gates are the job's current ones: relaxed gates turn the same verdicts into a pass.
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("min_pass_rate: 0.8", "min_pass_rate: 0.0")
        .replace("max_inconclusive_rate: 0.2", "max_inconclusive_rate: 1.0");
    std::fs::write(&job, text).unwrap();
    let second = tmp.path().join("rescored-2");
    let out = ghostlab(&dir)
        .args(["rescore", "--job", "job.yaml", "--out"])
        .arg(&second)
        .arg(&run)
        .output()
        .unwrap();
    // The relaxed gates are met; the contract gate is not: no contract.json was written.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let unmet: Vec<String> = summary(&second)["gates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["met"] == false)
        .map(|g| g["gate"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(unmet, ["no_high_security_findings"]);

    // Bad input: an existing run folder as the target, and a folder that is not a run.
    for (target, source) in [(&first, run.as_path()), (&tmp.path().join("new"), tmp.path())] {
        let out = ghostlab(&dir)
            .args(["rescore", "--job", "job.yaml", "--out"])
            .arg(target)
            .arg(source)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
    }
}
