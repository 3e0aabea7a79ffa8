//! Kill and resume: `ghostlab test` and the lab's step 12 killed mid-run continue the same run
//! folder with no duplicate and no lost trial; `test --resume` re-runs INFRA_ERROR trials and
//! keeps the failed attempt in the trial's history; a stale temp file beside job.yaml is swept.

use crate::common;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const REPLY: &str = "CI is green. Draft notes for 1.3.0. Shall I proceed?";

fn ghostlab(dir: &Path) -> Command {
    common::ghostlab_in(dir, 300)
}

/// A process agent (local backend) whose every turn takes a moment and fails while `flag`
/// exists.
fn process_agent(flag: &Path) -> String {
    format!(
        "hosts:\n  process:\n    command: [sh, -c, \"if [ -e '{}' ]; then exit 3; fi; sleep 0.4; echo '{REPLY}'\"]\n",
        flag.display()
    )
}

fn release_bot_with_process_agent(tmp: &Path, flag: &Path) -> PathBuf {
    let dir = tmp.join("release-bot");
    common::copy_release_bot(&dir);
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("backend: opencode", "backend: process")
        .replace("backend: bubblewrap", "backend: local");
    std::fs::write(&job, format!("{text}{}", process_agent(flag))).unwrap();
    dir
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn runs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir.join(".ghostlab/runs"))
        .map(|r| r.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

fn verdicts(run: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(run.join("cases"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "verdict.json" && !e.path().to_string_lossy().contains("/attempts/"))
        .map(|e| e.into_path())
        .collect()
}

/// Starts `args`, waits until a trial of the (only) run finished, then SIGKILLs the process.
fn kill_after_first_verdict(dir: &Path, args: &[&str]) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ghostlab"))
        .current_dir(dir)
        // Its environments, which a SIGKILL leaves behind, go with the test's folder.
        .env("TMPDIR", common::scratch_tmp(dir))
        .env("RELEASE_TOKEN", "x-token-value")
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        if let Some(run) = runs(dir).last()
            && !verdicts(run).is_empty()
        {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "{args:?} ended before any trial finished"
        );
        assert!(Instant::now() < deadline, "{args:?}: no trial finished in time");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The run is whole: one trial per case, each once, the summary and JUnit agree.
fn assert_whole(run: &Path, cases: usize) {
    let summary = json(&run.join("summary.json"));
    assert_eq!(summary["summary"]["trials"].as_u64(), Some(cases as u64), "{summary:#}");
    assert_eq!(verdicts(run).len(), cases, "one verdict per trial");
    let junit = std::fs::read_to_string(run.join("junit.xml")).unwrap();
    let names: Vec<&str> = junit
        .split("<testcase ")
        .skip(1)
        .filter_map(|t| t.split(" name=\"").nth(1).and_then(|r| r.split('"').next()))
        .collect();
    let unique: std::collections::BTreeSet<&&str> = names.iter().collect();
    assert_eq!(
        (names.len(), unique.len()),
        (cases, cases),
        "JUnit: duplicate or lost test cases"
    );
}

/// The verdict files of `run` with their text, to show later that none was re-run.
fn verdict_texts(run: &Path) -> Vec<(PathBuf, String)> {
    verdicts(run)
        .into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).unwrap();
            (p, t)
        })
        .collect()
}

fn assert_unchanged(kept: &[(PathBuf, String)], why: &str) {
    for (p, text) in kept {
        assert_eq!(&std::fs::read_to_string(p).unwrap(), text, "{why}");
    }
}

/// `ghostlab test --resume` in `dir`; its exit code must be one of `codes`.
fn test_resume(dir: &Path, codes: &[i32]) {
    let out = ghostlab(dir)
        .args(["test", "--job", "job.yaml", "--quiet", "--resume"])
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| codes.contains(&c)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `ghostlab lab --yes --resume`; the stderr of a run that must exit 1 (gates not met).
fn lab_resume(dir: &Path) -> String {
    let out = ghostlab(dir)
        .args(["lab", "--yes", "--resume", "--parallel", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    err
}

#[test]
fn test_killed_mid_run_resumes_the_same_run_and_retries_infra_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let flag = tmp.path().join("agent-down");
    let dir = release_bot_with_process_agent(tmp.path(), &flag);
    let cases = approved_dataset(&dir);

    kill_after_first_verdict(&dir, &["test", "--job", "job.yaml", "--quiet", "--parallel", "2"]);
    no_local_environment_left(&dir);
    let run = runs(&dir).pop().unwrap();
    assert!(!run.join("summary.json").exists(), "killed before the summary");
    let kept = verdict_texts(&run);
    assert!(kept.len() < cases, "the kill came too late to test anything");

    // The agent goes down: every trial still to run ends INFRA_ERROR.
    std::fs::write(&flag, "").unwrap();
    test_resume(&dir, &[1, 2]);
    assert_eq!(runs(&dir), vec![run.clone()], "resume reuses the run folder");
    assert_whole(&run, cases);
    assert_unchanged(&kept, "a finished trial was re-run");
    let infra = json(&run.join("summary.json"))["summary"]["infra_error"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(infra, cases - kept.len());

    // The agent is back: a second resume re-runs exactly the INFRA_ERROR trials, keeping the
    // failed attempt in each trial's history.
    std::fs::remove_file(&flag).unwrap();
    test_resume(&dir, &[0, 1]);
    assert_eq!(runs(&dir), vec![run.clone()]);
    assert_whole(&run, cases);
    assert_eq!(json(&run.join("summary.json"))["summary"]["infra_error"], 0);
    each_retried_trial_keeps_its_infra_error_attempt(&run, infra);
    assert_unchanged(&kept, "");
}

/// Generates and approves the dataset in `dir`; its number of cases.
fn approved_dataset(dir: &Path) -> usize {
    for args in [
        &["generate", "--job", "job.yaml"][..],
        &["dataset", "approve", "--all", "--job", "job.yaml"],
    ] {
        let out = ghostlab(dir).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    json(&dir.join(".ghostlab/dataset.json"))["cases"]
        .as_array()
        .unwrap()
        .len()
}

/// No other ghostlab starts in this TMPDIR: the killed process's reaper removes its local
/// environments (two were live at the kill) on its own.
fn no_local_environment_left(dir: &Path) {
    let left = || -> Vec<String> {
        std::fs::read_dir(common::scratch_tmp(dir))
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("ghostlab-local-"))
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !left().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(left(), Vec::<String>::new(), "local environments left after SIGKILL");
}

/// The archived attempts: one at least per retried trial, `infra` of them INFRA_ERROR.
fn each_retried_trial_keeps_its_infra_error_attempt(run: &Path, infra: usize) {
    let retried: Vec<PathBuf> = walkdir::WalkDir::new(run.join("cases"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "verdict.json" && e.path().to_string_lossy().contains("/attempts/"))
        .map(|e| e.into_path())
        .collect();
    assert!(
        retried.len() >= infra,
        "{} archived attempts for {infra} retried trials",
        retried.len()
    );
    let old_infra = retried.iter().filter(|p| json(p)["verdict"] == "INFRA_ERROR").count();
    assert_eq!(old_infra, infra, "each retried trial keeps its INFRA_ERROR attempt");
}

#[test]
fn lab_killed_during_step_12_continues_that_run_and_marks_it_done_when_finished() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bot");
    let job = lab_through_step_11_with_a_slow_agent(tmp.path(), &dir);

    kill_after_first_verdict(&dir, &["lab", "--yes", "--resume", "--parallel", "2"]);
    let loaded = ghostlab::spec::load_job(&job).unwrap();
    assert_eq!(
        loaded.job.lab.completed.len(),
        11,
        "step 12 is not done while its run is unfinished: {:?}",
        loaded.job.lab.completed
    );
    let run = runs(&dir).pop().unwrap();
    assert!(!run.join("summary.json").exists());
    let kept = verdict_texts(&run);

    // A save killed mid-write left a temp file beside job.yaml; the next start sweeps it.
    let stale = dir.join(".ghostlab-tmp-killed");
    std::fs::write(&stale, "partial").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(600))
        .unwrap();

    // `lab --yes` exits like `test`: offline every verdict is INCONCLUSIVE, so the gates are not
    // met (1); 2 would mean the run could not happen.
    lab_resume(&dir);
    assert!(!stale.exists(), "stale temp file left in the job folder");
    assert_eq!(runs(&dir), vec![run.clone()], "the lab continued the interrupted run");
    let cases = json(&run.join("manifest.json"))["cases"].as_array().unwrap().len();
    assert_whole(&run, cases);
    assert_unchanged(&kept, "a finished trial was re-run");
    step_12_done_and_nothing_left(&dir, &job);
    killed_between_the_summary_and_the_save(&dir, &job, &run, cases);
}

/// Steps 1-11 through the lab itself; step 8 fails (the proposer's endpoint is down) so the
/// agent can be switched to the slow process agent before the run. Returns job.yaml.
fn lab_through_step_11_with_a_slow_agent(tmp: &Path, dir: &Path) -> PathBuf {
    common::copy_release_bot(dir);
    std::fs::rename(dir.join("job.yaml"), dir.join("source-job.yaml")).unwrap();
    let source = dir.join("source-job.yaml");
    let text = std::fs::read_to_string(&source).unwrap().replace(
        "  proposer: { provider: offline }",
        "  proposer: { provider: openai, model: m, base_url: \"http://127.0.0.1:9/v1\" }",
    );
    std::fs::write(&source, text).unwrap();
    let out = ghostlab(dir)
        .env("GHOSTLAB_OPENAI_API_KEY", "test-key-not-secret")
        .env("GHOSTLAB_LLM_ATTEMPTS", "1")
        .args(["lab", "--yes", "--from", "source-job.yaml", "--sandbox", "local"])
        .args(["--skill", "skills/release-notes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("provider: openai", "provider: offline")
        .replace("backend: opencode", "backend: process");
    std::fs::write(&job, format!("{text}{}", process_agent(&tmp.join("never")))).unwrap();
    job
}

/// Step 12 is recorded as done, no temp file is left beside job.yaml, and the run marker is
/// gone.
fn step_12_done_and_nothing_left(dir: &Path, job: &Path) {
    let done = ghostlab::spec::load_job(job).unwrap();
    assert_eq!(done.job.lab.completed.len(), 12, "{:?}", done.job.lab.completed);
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".ghostlab-tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let marker = dir.join(".ghostlab/lab").join(ghostlab::lab::run_marker::MARKER_FILE);
    assert!(
        !marker.exists(),
        "step 12 is recorded as done, so its run marker is gone"
    );
}

/// The instant between the run's summary and step 12's save: the summary landed, the job
/// does not say step 12 is done, the marker still names the run. A resume makes no second
/// run and re-judges nothing.
fn killed_between_the_summary_and_the_save(dir: &Path, job: &Path, run: &Path, cases: usize) {
    let mut job_now = ghostlab::spec::load_job(job).unwrap().job;
    job_now.lab.completed.retain(|c| c != "preview");
    ghostlab::spec::save_job(job, &job_now).unwrap();
    ghostlab::lab::run_marker::started(&dir.join(".ghostlab/lab"), run).unwrap();
    let judged = verdict_texts(run);
    lab_resume(dir);
    assert_eq!(
        runs(dir),
        vec![run.to_path_buf()],
        "no second run after a kill past the summary"
    );
    assert_unchanged(&judged, "a judged trial was re-run");
    assert_whole(run, cases);
    let done = ghostlab::spec::load_job(job).unwrap();
    assert_eq!(done.job.lab.completed.len(), 12, "{:?}", done.job.lab.completed);
    let marker = dir.join(".ghostlab/lab").join(ghostlab::lab::run_marker::MARKER_FILE);
    assert!(!marker.exists());
}
