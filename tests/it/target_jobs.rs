//! `target:`, the seeds' MCP-only / skill-only shorthand, drives discovery and generation like
//! the agent shape it is read into (the run is in newcomer_corpus.rs). A job Ghostlab saves
//! afterwards keeps the meaning in the agent shape, and a target that cannot mean one server
//! or one skill is refused naming the `target.*` key and the fix.

use crate::common::{copy_dir, ghostlab_in, repo};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    copy_dir(&repo().join("tests/fixtures/newcomer").join(name), &dir);
    (tmp, dir)
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = ghostlab_in(dir, 180).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    format!("{}{stderr}", String::from_utf8_lossy(&out.stdout))
}

fn state(dir: &Path, file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(".ghostlab").join(file)).unwrap()).unwrap()
}

#[test]
fn an_mcp_only_target_is_discovered_and_generated_for() {
    let (_tmp, dir) = fixture("mcp-only-target");
    ok(&dir, &["validate", "--job", "job.yaml"]);
    ok(&dir, &["discover", "--job", "job.yaml"]);
    let inventory = state(&dir, "inventory.json").to_string();
    assert!(
        inventory.contains("\"add_days\"") && inventory.contains("\"now\""),
        "the target's tools were not discovered: {inventory}"
    );
    // discover saved the job: the capabilities are under the target's name, and the job
    // still means the same server (now in the agent shape) when loaded again.
    let saved = std::fs::read_to_string(dir.join("job.yaml")).unwrap();
    let loaded = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
    assert_eq!(loaded.mcps.len(), 1, "{saved}");
    assert_eq!(loaded.mcps[0].name, "clock", "{saved}");
    assert_eq!(loaded.mcps[0].timeout_ms, Some(20000), "{saved}");
    assert!(loaded.job.capabilities["clock"].tools.contains(&"add_days".to_string()));

    ok(&dir, &["generate", "--job", "job.yaml"]);
    let profile = state(&dir, "agent-profile.json").to_string();
    assert!(
        profile.contains("add_days"),
        "the profile ignores the target: {profile}"
    );
    let scenarios = state(&dir, "scenarios.json");
    assert!(!scenarios["scenarios"].as_array().unwrap().is_empty());
}

#[test]
fn a_skill_only_target_is_generated_for_and_emitted() {
    let (tmp, dir) = fixture("skill-target");
    ok(&dir, &["validate", "--job", "job.yaml"]);
    let loaded = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
    assert_eq!(loaded.job.agent.inputs.skills, ["./skills/haiku"]);
    assert!(loaded.job.target.is_none());
    ok(&dir, &["generate", "--job", "job.yaml"]);
    let profile = state(&dir, "agent-profile.json").to_string();
    assert!(profile.contains("haiku"), "the profile ignores the skill: {profile}");
    // The emitted OpenCode config carries the skill, so the run's agent has it.
    let out = tmp.path().join("emitted");
    ok(&dir, &["emit", "--job", "job.yaml", "--out", out.to_str().unwrap()]);
    let cfg = std::fs::read_to_string(out.join("opencode.json")).unwrap();
    assert!(cfg.contains("haiku"), "{cfg}");
}

#[test]
fn a_target_that_cannot_mean_one_server_or_skill_is_refused_with_its_key() {
    let tmp = tempfile::tempdir().unwrap();
    for (target, key, words) in [
        (
            "{ id: t, transport: stdio }",
            "target.connection.command",
            "needs the server's argv",
        ),
        (
            "{ id: t, transport: streamable-http, connection: { command: [node] } }",
            "target.connection.command",
            "remove `connection.command`",
        ),
        (
            "{ id: t, transport: skill, connection: { path: ./nowhere } }",
            "target.connection.path",
            "nowhere",
        ),
        (
            "{ id: t, transport: stdio, connection: { command: [node], url: 'http://x/mcp' } }",
            "target.connection.url",
            "remove `connection.url`",
        ),
    ] {
        let job = tmp.path().join("job.yaml");
        std::fs::write(&job, format!("version: 1\nagent:\n  id: a\ntarget: {target}\n")).unwrap();
        let out = ghostlab_in(tmp.path(), 60)
            .args(["validate", "--job", "job.yaml"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{target}: {stderr}");
        assert!(stderr.contains(key) && stderr.contains(words), "{target}: {stderr}");
        assert!(
            !stderr.contains("agent.inputs"),
            "{target}: names a key the person never wrote: {stderr}"
        );
    }
}
