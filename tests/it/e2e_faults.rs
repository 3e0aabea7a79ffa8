//! Faults on the real path (bubblewrap, real or fake agent CLI) end as INFRA_ERROR with the
//! reason, promptly, and never as a PASS: a crashing agent CLI, a model endpoint that answers
//! 4xx, an MCP server that dies mid-run, and a sandbox that cannot be created.

use crate::common;

use assert_cmd::Command;
use common::{PREPARE_RELEASE as CASE, copy_release_bot, newest_run, opencode_bin, test_one_case_args, trial_verdict};
use std::path::Path;
use std::time::{Duration, Instant};

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
    trial_verdict(&newest_run(dir), CASE)
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
        .args(test_one_case_args(CASE, true))
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
    let mut args = test_one_case_args(CASE, false);
    args.extend(["--agent-cassette".into(), "cassettes/empty.json".into()]);
    let out = ghostlab(&dir, &opencode_bin()).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = verdict_of(&dir);
    assert_eq!(v["verdict"], "INFRA_ERROR", "{v:#}");
    assert!(v["reasons"].to_string().contains("HTTP 400"), "{v:#}");
}

/// Runs the one case with the scripted agent and the real OpenCode CLI.
fn run_case(dir: &Path) -> std::process::Output {
    ghostlab(dir, &opencode_bin())
        .args(test_one_case_args(CASE, true))
        .output()
        .unwrap()
}

#[test]
fn an_mcp_server_dying_mid_run_is_an_infra_error() {
    let (_tmp, dir) = prepared();
    // The release server lists its tools, then dies on the first call (OpenCode reports the
    // closed connection as the tool's result; the agent would carry on without it).
    let server = dir.join("mcp/release-tools.mjs");
    let code = std::fs::read_to_string(&server).unwrap();
    let hook = r#"} else if (method === "tools/call") {"#;
    assert!(code.contains(hook), "the example server changed; update this test");
    let dying = code.replacen(
        hook,
        &format!("{hook}\n    process.stderr.write(\"fatal: lost the repository lock\\n\"); process.exit(70);"),
        1,
    );
    std::fs::write(&server, dying).unwrap();
    let out = run_case(&dir);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = verdict_of(&dir);
    assert_eq!(v["verdict"], "INFRA_ERROR", "{v:#}");
    let reasons = v["reasons"].to_string();
    assert!(
        reasons.contains("mcp server `release`") && reasons.contains("closed its connection"),
        "{reasons}"
    );
}

#[test]
fn a_sandbox_that_cannot_be_created_is_an_infra_error() {
    let (_tmp, dir) = prepared();
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let expected = if root {
        // As root every input is readable and staged for the sandbox user, so the staging
        // bound is what fails: an input over it must stop every session (fail closed) instead
        // of running without it. A sparse file costs no disk.
        let asset = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("fixtures/changelog.md"))
            .unwrap();
        asset.set_len(300 * 1024 * 1024).unwrap();
        "copy bound exceeded"
    } else {
        // Otherwise a workspace file this user cannot read makes the workspace copy fail.
        let secret = dir.join("release-repo/unreadable.txt");
        std::fs::write(&secret, "x").unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
        "copying the workspace"
    };
    let started = Instant::now();
    let out = run_case(&dir);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(started.elapsed() < Duration::from_secs(60));
    let v = verdict_of(&dir);
    assert_eq!(v["verdict"], "INFRA_ERROR", "{v:#}");
    let reasons = v["reasons"].to_string();
    assert!(reasons.contains("sandbox") && reasons.contains(expected), "{reasons}");
}
