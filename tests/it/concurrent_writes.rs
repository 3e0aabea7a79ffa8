//! Commands that change one state folder at the same time: every change survives. Without a
//! lock, concurrent `dataset reject` calls each read the dataset, change one case and write it
//! back, and most changes are lost although every call exits 0.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn statuses(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join(".ghostlab/dataset.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Runs one `dataset <action> --case <id>` per id, all at once; returns their exit codes.
fn all_at_once(dir: &Path, action: &str, ids: &[String]) -> Vec<Option<i32>> {
    let bin = assert_cmd::cargo::cargo_bin("ghostlab");
    let children: Vec<_> = ids
        .iter()
        .map(|id| {
            std::process::Command::new(&bin)
                .current_dir(dir)
                .env("RELEASE_TOKEN", "x-token-value")
                .args(["dataset", action, "--job", "job.yaml", id])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    children.into_iter().map(|mut c| c.wait().unwrap().code()).collect()
}

#[test]
fn concurrent_dataset_rejects_and_approves_keep_every_change() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["Done."]);
    let before = statuses(&dir);
    assert!(
        before.len() >= 8,
        "the example generates enough cases: {}",
        before.len()
    );
    let ids: Vec<String> = before.iter().map(|(id, _)| id.clone()).take(30).collect();
    let codes = all_at_once(&dir, "reject", &ids);
    assert!(codes.iter().all(|c| *c == Some(0)), "{codes:?}");
    let after = statuses(&dir);
    let rejected: Vec<&String> = after
        .iter()
        .filter(|(_, s)| s == "rejected")
        .map(|(id, _)| id)
        .collect();
    assert_eq!(rejected.len(), ids.len(), "every reject kept: {after:?}");
    // Back again, and mixed with needs-edit at once: still every change.
    let (half_a, half_b) = ids.split_at(ids.len() / 2);
    let bin_a = half_a.to_vec();
    let d = dir.clone();
    let t = std::thread::spawn(move || all_at_once(&d, "approve", &bin_a));
    let codes_b = all_at_once(&dir, "needs-edit", half_b);
    let codes_a = t.join().unwrap();
    assert!(codes_a.iter().chain(&codes_b).all(|c| *c == Some(0)));
    let after = statuses(&dir);
    for id in half_a {
        assert!(after.contains(&(id.clone(), "approved".into())), "{id}: {after:?}");
    }
    for id in half_b {
        assert!(after.contains(&(id.clone(), "needs_edit".into())), "{id}: {after:?}");
    }
}

/// Holds `folder`'s lock the way a running ghostlab command does.
fn hold_lock(folder: &Path) -> std::fs::File {
    use std::os::fd::AsRawFd;
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(folder.join(".ghostlab-lock"))
        .unwrap();
    assert_eq!(unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    f
}

#[test]
fn a_second_command_on_a_run_folder_in_use_refuses_and_runs_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["Done."]);
    let out = common::ghostlab_in(&dir, 180)
        .args(["test", "--job", "job.yaml", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let run = common::newest_run(&dir);
    // Take one trial away, so a resume has work to do.
    let trial = std::fs::read_dir(run.join("cases"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("trial-1");
    std::fs::remove_dir_all(&trial).unwrap();
    let held = hold_lock(&run);
    let out = common::ghostlab_in(&dir, 60)
        .args(["test", "--job", "job.yaml", "--quiet", "--resume", "--run"])
        .arg(&run)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("in use by another ghostlab command"), "{stderr}");
    assert!(!trial.exists(), "the refused resume ran no trial");
    drop(held);
    let out = common::ghostlab_in(&dir, 180)
        .args(["test", "--job", "job.yaml", "--quiet", "--resume", "--run"])
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        trial.join("verdict.json").is_file(),
        "once free, the resume runs the missing trial"
    );
}

#[test]
fn run_refuses_a_folder_that_is_not_a_run_and_system_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["Done."]);
    let docs = dir.join("mydocs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("report.md"), "my own notes").unwrap();
    std::fs::write(docs.join("summary.json"), "{\"mine\": true}").unwrap();
    for (run, expect) in [
        ("./mydocs", "not a Ghostlab run folder"),
        ("/etc/ghostlab-test-run-9f1c", "system folder"),
        ("/proc/ghostlab-run", "system folder"),
    ] {
        let out = common::ghostlab_in(&dir, 60)
            .args(["test", "--job", "job.yaml", "--quiet", "--run", run])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{run}: {stderr}");
        assert!(stderr.contains(expect) && stderr.contains("--run"), "{run}: {stderr}");
    }
    assert_eq!(std::fs::read_to_string(docs.join("report.md")).unwrap(), "my own notes");
    assert_eq!(
        std::fs::read_to_string(docs.join("summary.json")).unwrap(),
        "{\"mine\": true}"
    );
    assert!(!Path::new("/etc/ghostlab-test-run-9f1c").exists());
}

#[test]
fn lab_generate_and_profile_refuse_a_state_folder_another_command_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["Done."]);
    let state = dir.join(".ghostlab");
    let dataset_before = std::fs::read(state.join("dataset.json")).unwrap();
    let job_before = std::fs::read(dir.join("job.yaml")).unwrap();
    let held = hold_lock(&state);
    for args in [
        vec!["generate", "--job", "job.yaml"],
        vec!["profile", "--job", "job.yaml"],
        vec!["lab", "--yes", "--job", "job.yaml"],
    ] {
        let out = common::ghostlab_in(&dir, 60).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("in use by another ghostlab command"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(".ghostlab"), "names the folder: {stderr}");
    }
    assert_eq!(std::fs::read(state.join("dataset.json")).unwrap(), dataset_before);
    assert_eq!(std::fs::read(dir.join("job.yaml")).unwrap(), job_before);
    drop(held);
    let out = common::ghostlab_in(&dir, 120)
        .args(["profile", "--job", "job.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_lab_whose_step_1_moves_the_state_folder_refuses_one_another_command_holds() {
    // The lab locks the state folder it knows before Step 1; an imported job (or an edit) that
    // names another `paths.state_dir` must take that folder's lock too, not write into it.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("release-bot");
    common::copy_release_bot(&src);
    let job = src.join("job.yaml");
    let text = std::fs::read_to_string(&job).unwrap();
    std::fs::write(&job, format!("{text}paths:\n  state_dir: ../shared-state\n")).unwrap();
    let shared = tmp.path().join("shared-state");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(shared.join("dataset.json"), "{\"kept\": true}\n").unwrap();
    let held = hold_lock(&shared);
    // The new job sits beside the source, so `../shared-state` is the held folder for it too.
    let new_dir = tmp.path().join("mine");
    std::fs::create_dir_all(&new_dir).unwrap();
    let out = common::ghostlab_in(&new_dir, 120)
        .args(["lab", "--yes", "--job", "job.yaml", "--from"])
        .arg(&job)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("in use by another ghostlab command"), "{stderr}");
    assert!(stderr.contains("shared-state"), "names the folder: {stderr}");
    assert_eq!(
        std::fs::read_to_string(shared.join("dataset.json")).unwrap(),
        "{\"kept\": true}\n"
    );
    assert!(!shared.join("lab").exists(), "the lab wrote into the held folder");
    drop(held);
}
