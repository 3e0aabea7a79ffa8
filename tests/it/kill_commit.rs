//! The trial commit under SIGKILL: `ghostlab test` (mock agent, local backend) is killed at
//! random instants; after each kill every trial folder is either uncommitted (no verdict.json)
//! or whole (case.json, events.jsonl ending in `case_finished`, verdict.json all readable and
//! agreeing), and `test --resume`, `rescore`, `merge` and `report` agree on what is done.
//! This covers a killed process; a power loss is covered by the fsync order in
//! `util::durable::commit_batch`, which no test here can cut.

use crate::common;

use assert_cmd::Command;
use ghostlab::run::store::run_dir::RunDir;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn ghostlab(dir: &Path) -> Command {
    common::ghostlab_in(dir, 300)
}

fn mock_release_bot(tmp: &Path) -> PathBuf {
    let dir = tmp.join("release-bot");
    common::mock_release_bot(&dir, &["CI is green. Draft notes for 1.3.0. Shall I proceed?", "Done."]);
    dir
}

const RUN_ARGS: &[&str] = &[
    "test",
    "--job",
    "job.yaml",
    "--quiet",
    "--repeat",
    "3",
    "--parallel",
    "4",
];

/// Runs `test` into `run` and SIGKILLs it after `after`; true when it was still running.
fn kill_at(dir: &Path, run: &Path, after: Duration) -> bool {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ghostlab"))
        .current_dir(dir)
        // Its environments, which a SIGKILL leaves behind, go with the test's folder.
        .env("TMPDIR", common::scratch_tmp(dir))
        .env("RELEASE_TOKEN", "x-token-value")
        .args(RUN_ARGS)
        .arg("--run")
        .arg(run)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    running
}

/// Checks every trial folder of `run`; returns how many are committed.
fn committed_trials_are_whole(run: &Path) -> usize {
    let mut committed = 0;
    for t in RunDir::new(run).trials() {
        if !t.is_committed() {
            continue;
        }
        committed += 1;
        let where_ = t.path.display();
        let verdict = ghostlab::run::suite::read_verdict(&t.verdict())
            .unwrap_or_else(|| panic!("{where_}: verdict.json unreadable"));
        let case: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(t.case_file()).unwrap())
            .unwrap_or_else(|e| panic!("{where_}: case.json: {e}"));
        assert_eq!(case["id"].as_str(), Some(verdict.case.as_str()), "{where_}");
        assert!(!t.events_partial().exists(), "{where_}: committed with a partial log");
        let events =
            ghostlab::run::store::events_file::read_events(&t.events()).unwrap_or_else(|e| panic!("{where_}: {e}"));
        let last = serde_json::to_value(&events.last().expect("events").event).unwrap();
        assert_eq!(
            last["type"], "case_finished",
            "{where_}: log does not end the case: {last}"
        );
    }
    committed
}

#[test]
fn a_killed_run_leaves_only_uncommitted_or_whole_trials_and_every_reader_agrees() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = mock_release_bot(tmp.path());
    // How long a whole run takes here, so the kills land inside it.
    let whole = tmp.path().join("whole");
    let started = Instant::now();
    let out = ghostlab(&dir).args(RUN_ARGS).arg("--run").arg(&whole).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let span = started.elapsed();
    let total = RunDir::new(&whole).trials().len();
    assert_eq!(committed_trials_are_whole(&whole), total);

    let seed: u64 = std::env::var("GHOSTLAB_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("kill instants from seed {seed} (GHOSTLAB_KILL_SEED), run span {span:?}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut partial_runs = 0;
    for round in 0..6 {
        let run = tmp.path().join(format!("killed-{round}"));
        let after = span.mul_f64(rng.random_range(0.05..0.95));
        if !kill_at(&dir, &run, after) || !run.join("cases").is_dir() {
            continue;
        }
        let committed = committed_trials_are_whole(&run);
        if committed == 0 || committed == total {
            continue;
        }
        partial_runs += 1;
        // merge and rescore read only committed trials; the report names the rest unfinished.
        let merged = tmp.path().join(format!("merged-{round}"));
        let out = ghostlab(&dir)
            .args(["merge", "--job", "job.yaml", "--out"])
            .arg(&merged)
            .arg(&run)
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(RunDir::new(&merged).trials().len(), committed, "merge");
        let rescored = tmp.path().join(format!("rescored-{round}"));
        let out = ghostlab(&dir)
            .args(["rescore", "--job", "job.yaml", "--out"])
            .arg(&rescored)
            .arg(&run)
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(committed_trials_are_whole(&rescored), committed, "rescore");
        let out = ghostlab(&dir)
            .args(["report", "--job", "job.yaml", "--run"])
            .arg(&run)
            .output()
            .unwrap();
        assert!(out.status.success(), "report: {}", String::from_utf8_lossy(&out.stderr));
        // Resume finishes exactly the uncommitted trials.
        let out = ghostlab(&dir)
            .args(RUN_ARGS)
            .args(["--resume", "--run"])
            .arg(&run)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(committed_trials_are_whole(&run), total, "after resume");
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
        assert_eq!(summary["summary"]["trials"].as_u64(), Some(total as u64));
    }
    eprintln!("{partial_runs} of 6 kills landed mid-run");
    assert!(
        partial_runs >= 1,
        "no kill landed between the first and the last commit (seed {seed})"
    );
}
