//! A newcomer's workspace is not shaped like the example: here it is not a git repository.
//! The real OpenCode in bubblewrap, on the example's agent cassette, must still run every
//! turn (no INFRA_ERROR), say which host mode it chose and why, and keep what the agent host
//! printed in the trial folder.

use crate::common::{
    PREPARE_RELEASE as CASE, copy_release_bot, ghostlab_in, newest_run, opencode_bin, test_one_case_args,
};
use std::path::Path;

/// The example without its `git init` setup step, so the workspace copy is a plain folder.
fn plain_folder_example(dir: &Path, hosts: &str) {
    copy_release_bot(dir);
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job).unwrap();
    let start = text.find("setup:\n").expect("the example has a setup block");
    let end = text[start..].find("generation:").unwrap() + start;
    std::fs::write(&job, format!("{}{}{hosts}", &text[..start], &text[end..])).unwrap();
    crate::common::generate(dir);
}

fn run(dir: &Path) -> (serde_json::Value, String, std::path::PathBuf) {
    let out = ghostlab_in(dir, 600)
        .env("GHOSTLAB_OPENCODE_BIN", opencode_bin())
        .args(test_one_case_args(CASE, true))
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trial = newest_run(dir).join(format!("cases/{CASE}/trial-1"));
    let verdict = serde_json::from_str(&std::fs::read_to_string(trial.join("verdict.json")).unwrap()).unwrap();
    let events = std::fs::read_to_string(trial.join("events.jsonl")).unwrap();
    (verdict, events, trial)
}

#[test]
fn a_workspace_that_is_not_a_git_repository_runs_cold_and_keeps_the_hosts_output() {
    opencode_bin();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mine");
    plain_folder_example(&dir, "");
    let (verdict, events, trial) = run(&dir);
    assert_ne!(verdict["verdict"], "INFRA_ERROR", "{verdict:#}\n{events}");
    let host = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["type"] == "agent_host")
        .expect("an agent_host event");
    assert_eq!(host["label"], "opencode (cold)", "{host}");
    assert!(
        host["note"].as_str().unwrap().contains("not a git repository"),
        "{host}"
    );
    // The agent host's own output is kept: OpenCode's JSON events, and no secret in them.
    let log = std::fs::read_to_string(trial.join("agent-host.log")).expect("agent-host.log");
    assert!(log.starts_with("# ghostlab agent-host log v1"), "{log}");
    assert!(log.contains("\"type\":\"step_finish\""), "{log}");
    assert!(!log.contains("x-token-value"), "the MCP server's token reached the log");
}

#[test]
fn asking_for_warm_in_a_plain_folder_is_an_infra_error_that_names_the_fix() {
    opencode_bin();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mine");
    plain_folder_example(&dir, "hosts:\n  opencode:\n    mode: warm\n");
    let (verdict, events, _) = run(&dir);
    assert_eq!(verdict["verdict"], "INFRA_ERROR", "{verdict:#}");
    assert!(events.contains("git init") && events.contains("mode: cold"), "{events}");
}
