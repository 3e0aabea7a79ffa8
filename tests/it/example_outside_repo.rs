//! examples/release-bot copied out of the repository with `cp -r`, as a newcomer would, and
//! run the way the README's quick start runs it (`ghostlab lab --yes` offline, the agent's
//! model from the example's cassette). The example's MCP servers run from its own folder: its
//! `mcp/` script and its `node_modules` (the pinned filesystem server, `npm ci` in the example),
//! so the copy needs nothing from the repository. A copy without `node_modules` (from git
//! alone) must say why in the server's own words and where the whole log is.

use crate::common::{ghostlab_in, newest_run, opencode_bin, repo};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `cp -r examples/release-bot <tmp>/release-bot` (symlinks kept as symlinks, as cp does),
/// without earlier state.
fn cp_example(tmp: &Path) -> PathBuf {
    let dir = tmp.join("release-bot");
    let out = std::process::Command::new("cp")
        .arg("-r")
        .arg(repo().join("examples/release-bot"))
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(dir.join(".ghostlab"));
    dir
}

#[test]
fn a_copy_of_the_example_outside_the_repository_runs_the_quick_start() {
    let server = repo().join("examples/release-bot/node_modules/@modelcontextprotocol/server-filesystem");
    assert!(
        server.is_dir(),
        "{} is missing: run scripts/install-deps.sh (it runs `npm ci` in the example)",
        server.display()
    );
    let bin = opencode_bin();
    let tmp = tempfile::tempdir().unwrap();
    let dir = cp_example(tmp.path());
    // Nothing in the copy may point back into the repository.
    let mcp = std::fs::read_to_string(dir.join("mcp.json")).unwrap();
    assert!(!mcp.contains("../"), "{mcp}");
    let out = ghostlab_in(&dir, 1500)
        .env("GHOSTLAB_OPENCODE_BIN", &bin)
        .args([
            "lab",
            "--yes",
            "--job",
            "job.yaml",
            "--agent-cassette",
            "cassettes/agent.json",
        ])
        .args([
            "--parallel",
            "2",
            "--proposer-model",
            "offline",
            "--emulator-model",
            "offline",
        ])
        .args([
            "--judge-model",
            "offline",
            "--personas",
            "1",
            "--scenarios-per-persona",
            "2",
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    // Offline the pass-rate gate is not met (1), as in the quick start; 2 is an error.
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "exit {:?}\n{stdout}\n{stderr}",
        out.status.code()
    );
    // Step 4's discovery, inside the sandbox, of both servers from the copy's own folder.
    assert!(stderr.contains("filesystem: 14 tools"), "{stderr}");
    assert!(stderr.contains("release: 4 tools"), "{stderr}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(newest_run(&dir).join("summary.json")).unwrap()).unwrap();
    let figures = &summary["summary"];
    assert!(figures["trials"].as_u64().unwrap() > 0, "{figures:#}");
    assert_eq!(figures["infra_error"], 0, "{summary:#}\n{stderr}");
}

#[test]
fn a_copy_without_its_installed_server_says_why_and_where_the_log_is() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cp_example(tmp.path());
    let _ = std::fs::remove_dir_all(dir.join("node_modules"));
    let out = ghostlab_in(&dir, 120)
        .args(["discover", "--job", "job.yaml", "--timeout", "20s"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("[filesystem] FAILED"))
        .unwrap_or_else(|| panic!("no line about the filesystem server: {stderr}"));
    assert!(
        line.contains("Cannot find module"),
        "the server's own reason is missing: {stderr}"
    );
    assert!(line.contains(".ghostlab/logs/"), "the log path is missing: {stderr}");
    assert!(!line.trim_end().ends_with("(exit status:"), "{stderr}");
    // The release server, which is inside the example, still answers.
    assert!(stderr.contains("[release] ok: 4 tools"), "{stderr}");
}
