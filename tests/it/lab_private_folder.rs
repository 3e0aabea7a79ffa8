//! Issue 15's "usual way to try something": as root, `ghostlab lab --yes` on a copy of the
//! bundled example in a fresh `mktemp -d` folder (mode 0700, so the unprivileged sandbox user
//! cannot enter it) with the default `isolated` root filesystem, the real OpenCode CLI and the
//! MCP servers from npm. The inputs are staged copies, so no case may end INFRA_ERROR.
//!
//! The copied job asks for 1 persona × 2 scenarios, but the offline proposer still makes its
//! full set (17 cases, observed), so this test is as long as the acceptance test: 4 cases at a
//! time, and a 15 m turn timeout instead of 5 m so a loaded machine is not mistaken for a
//! sandbox failure (a cold OpenCode turn took 4–5 min at load average 27).

use crate::common;

use assert_cmd::Command;
use common::{copy_release_bot, opencode_bin};
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

#[test]
fn lab_yes_as_root_in_a_0700_folder_has_no_infra_error() {
    // SAFETY: trivial getter.
    if unsafe { libc::geteuid() } != 0 {
        ghostlab::util::skip::skipped("SKIPPED: the private-folder lab run is about running as root");
        return;
    }
    let bin = opencode_bin();
    let tmp = tempfile::Builder::new().prefix("ghostlab-mktemp-").tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let dir = tmp.path().join("release-bot");
    copy_release_bot(&dir);
    let job_file = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job_file).unwrap();
    assert!(
        !text.contains("root_filesystem"),
        "the example must run with the default root filesystem"
    );
    // A turn timeout that survives a loaded 2-core machine (see the module comment).
    let text = text
        .replace(
            "generation:\n",
            "generation:\n  personas: 1\n  scenarios_per_persona: 2\n",
        )
        .replace("  timeout: 5m\n", "  timeout: 15m\n");
    std::fs::write(&job_file, text).unwrap();
    let mode = std::fs::metadata(tmp.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);

    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .current_dir(&dir)
        .env("GHOSTLAB_OPENCODE_BIN", &bin)
        // The example's `release` server takes `${RELEASE_TOKEN}`; unset, discovery skips it.
        .env("RELEASE_TOKEN", "private-folder-canary-6061")
        .args([
            "lab",
            "--yes",
            "--job",
            "job.yaml",
            "--agent-cassette",
            "cassettes/agent.json",
            "--parallel",
            "4",
        ])
        .timeout(Duration::from_secs(3000))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Offline judging passes nothing, so the gates fail and `lab --yes` exits 1 like `test`.
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");

    let job = ghostlab::spec::load_job(&job_file).unwrap();
    assert_eq!(job.job.lab.completed.len(), 12, "{stdout}\n{stderr}");
    let runs: Vec<_> = std::fs::read_dir(job.state_dir().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(runs[0].join("summary.json")).unwrap()).unwrap();
    let trials = summary["summary"]["trials"].as_u64().unwrap();
    assert!(trials >= 1, "{summary:#}");
    let mut reasons = Vec::new();
    for e in walkdir::WalkDir::new(runs[0].join("cases"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "verdict.json")
    {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
        if v["verdict"] == "INFRA_ERROR" {
            reasons.push(format!("{}: {}", v["case"], v["reasons"]));
        }
    }
    assert_eq!(
        summary["summary"]["infra_error"],
        0,
        "INFRA_ERROR in a 0700 folder as root:\n{}\n{stderr}",
        reasons.join("\n")
    );
    // The sessions ran isolated, with HOME and TMPDIR bounded.
    let mut logs = String::new();
    for e in std::fs::read_dir(runs[0].join("logs")).unwrap() {
        logs.push_str(&std::fs::read_to_string(e.unwrap().path()).unwrap_or_default());
    }
    assert!(
        logs.contains("root filesystem isolated"),
        "no isolated session in the logs"
    );
    assert!(
        logs.contains("HOME and TMPDIR: size-limited tmpfs"),
        "HOME/TMPDIR not bounded by a tmpfs as root"
    );
}
