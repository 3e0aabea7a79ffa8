//! The agent's workspace copy never holds the job's own files: job.yaml, the state folder
//! (datasets with success criteria, earlier verdicts and reports) and the cassettes, even when
//! the workspace is the job's own folder (`workspace: .`, as `init` writes for a project).

use crate::common;
use std::path::Path;

/// The example with `workspace: .` and a replayed judge cassette, plus a state folder that holds
/// what the agent must not read.
fn job_in_its_own_workspace(dir: &Path) {
    common::copy_release_bot(dir);
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("workspace: ./release-repo", "workspace: .")
        .replace(
            "judge: { provider: offline }",
            "judge: { provider: replay, model: m, cassette: cassettes/judge.json }",
        );
    std::fs::write(&job, text).unwrap();
    std::fs::write(dir.join("cassettes/judge.json"), r#"{"version": 1, "entries": []}"#).unwrap();
    std::fs::create_dir_all(dir.join(".ghostlab/runs/old")).unwrap();
    std::fs::write(dir.join(".ghostlab/dataset.json"), "success criteria").unwrap();
}

#[test]
fn the_sandboxed_copy_leaves_out_the_job_its_state_and_its_cassettes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mine");
    job_in_its_own_workspace(&dir);
    let out = common::ghostlab_in(&dir, 120)
        .args(["sandbox", "exec", "--job", "job.yaml", "--", "sh", "-c"])
        .arg("cd /sandbox/workspace && find . -maxdepth 2 | sort")
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for kept in ["./AGENTS.md", "./release-repo", "./prompts", "./cassettes/agent.json"] {
        assert!(
            listing.lines().any(|l| l == kept),
            "{kept} missing from the copy:\n{listing}"
        );
    }
    for left_out in ["./job.yaml", "./.ghostlab", "./cassettes/judge.json"] {
        assert!(
            !listing.lines().any(|l| l == left_out),
            "{left_out} reached the agent:\n{listing}"
        );
    }
}
