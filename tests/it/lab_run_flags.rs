//! The flags that shape the lab's run (`--agent-cassette`, `--parallel`) survive a stop: they
//! are saved with the lab's files and named in the resume command it prints.

use crate::common::ghostlab_in;

#[test]
fn a_stopped_lab_names_its_run_flags_in_the_resume_command_and_keeps_them() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ghostlab_in(tmp.path(), 60)
        .args([
            "lab",
            "--yes",
            "--job",
            "mine/job.yaml",
            "--from",
            "absent/opencode.json",
        ])
        .args(["--agent-cassette", "cassettes/agent.json", "--parallel", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ghostlab lab --resume --job mine/job.yaml --agent-cassette cassettes/agent.json --parallel 2"),
        "{stderr}"
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("mine/.ghostlab/lab/run-flags.json")).unwrap())
            .unwrap();
    assert_eq!(saved["version"], 1);
    assert_eq!(saved["parallel"], 2);
    let cassette = saved["agent_cassette"].as_str().unwrap();
    assert!(
        cassette.starts_with('/') && cassette.ends_with("cassettes/agent.json"),
        "{saved}"
    );
}
