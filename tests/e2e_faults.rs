//! Faults on the real path (bubblewrap, real or fake agent CLI) end as INFRA_ERROR with the
//! reason, promptly, and never as a PASS: a crashing agent CLI, and a model endpoint that
//! answers 4xx.

mod common;

use assert_cmd::Command;
use common::{copy_release_bot, opencode_bin};
use std::path::Path;
use std::time::{Duration, Instant};

const CASE: &str = "hurried-maintainer--wf-prepare-release";

fn prepared() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    // The sandbox user must be able to read what the test places here.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = tmp.path().join("release-bot");
    copy_release_bot(&dir);
    let out = ghostlab(&dir, &opencode_bin())
        .args(["generate", "--job", "job.yaml"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (tmp, dir)
}

fn ghostlab(dir: &Path, bin: &Path) -> Command {
    let mut c = Command::cargo_bin("ghostlab").unwrap();
    c.current_dir(dir)
        .env("GHOSTLAB_OPENCODE_BIN", bin)
        .env("RELEASE_TOKEN", "x-token-value")
        .timeout(Duration::from_secs(300));
    c
}

fn verdict_of(dir: &Path) -> serde_json::Value {
    let runs = dir.join(".ghostlab/runs");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .max()
        .unwrap();
    serde_json::from_str(&std::fs::read_to_string(run.join(format!("cases/{CASE}/trial-1/verdict.json"))).unwrap())
        .unwrap()
}

#[test]
fn a_crashing_agent_cli_is_an_infra_error() {
    let (tmp, dir) = prepared();
    // A fake agent CLI that dies at once, in a folder the sandbox can read.
    let fake = tmp.path().join("fake-opencode/bin");
    std::fs::create_dir_all(&fake).unwrap();
    let script = fake.join("opencode");
    std::fs::write(&script, "#!/bin/sh\necho 'fatal: agent host exploded' >&2\nexit 3\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let started = Instant::now();
    let out = ghostlab(&dir, &script)
        .args([
            "test",
            "--job",
            "job.yaml",
            "--case",
            CASE,
            "--agent-cassette",
            "cassettes/agent.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(started.elapsed() < Duration::from_secs(60));
    let v = verdict_of(&dir);
    assert_eq!(v["verdict"], "INFRA_ERROR", "{v:#}");
    let reasons = v["reasons"].to_string();
    assert!(
        reasons.contains("exited with code 3") && reasons.contains("agent host exploded"),
        "{reasons}"
    );
}

#[test]
fn a_model_endpoint_answering_4xx_is_an_infra_error() {
    let (_tmp, dir) = prepared();
    // A cassette that answers nothing: every request gets HTTP 400 naming what was asked.
    std::fs::write(
        dir.join("cassettes/empty.json"),
        r#"{"version": 1, "entries": [], "script": []}"#,
    )
    .unwrap();
    let out = ghostlab(&dir, &opencode_bin())
        .args([
            "test",
            "--job",
            "job.yaml",
            "--case",
            CASE,
            "--agent-cassette",
            "cassettes/empty.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = verdict_of(&dir);
    assert_eq!(v["verdict"], "INFRA_ERROR", "{v:#}");
    assert!(v["reasons"].to_string().contains("HTTP 400"), "{v:#}");
}
