//! What counts as a secret, and secret values that cannot be masked. Masking is a text search:
//! a secret `abc` or `password` would rewrite ordinary words in every artifact (and still show
//! where the secret was), and a pass-through variable such as `USER_ROLE=maintainer` is not a
//! secret at all — masking it once rewrote every case id holding the word.

use crate::common::{ghostlab_in, mock_release_bot};

#[test]
fn a_secret_too_short_or_too_common_is_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    mock_release_bot(&dir, &["Done."]);
    for weak in ["abc", "password", "maintainer", "xxxxxxxxxxxx"] {
        for cmd in [
            &["validate", "--job", "job.yaml"][..],
            &["test", "--job", "job.yaml", "--quiet"],
        ] {
            let out = ghostlab_in(&dir, 60)
                .env("RELEASE_TOKEN", weak)
                .args(cmd)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd:?} with {weak:?}: {stderr}");
            assert!(stderr.contains("job.yaml"), "the file is not named: {stderr}");
            assert!(
                stderr.contains("${RELEASE_TOKEN}")
                    && stderr.contains("mcp.json")
                    && stderr.contains("release.env.RELEASE_TOKEN"),
                "the variable or where it is used is not named: {stderr}"
            );
            assert!(
                !stderr.contains(&format!(" {weak} ")),
                "the value itself was printed: {stderr}"
            );
        }
    }
    // No run was started by the refused `test`s.
    assert!(
        !dir.join(".ghostlab/runs").exists() || std::fs::read_dir(dir.join(".ghostlab/runs")).unwrap().next().is_none()
    );
    // A real-looking value passes.
    let ok = ghostlab_in(&dir, 60)
        .env("RELEASE_TOKEN", "rt-9fQ2xLm4Vb7Kp")
        .args(["validate", "--job", "job.yaml"])
        .output()
        .unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
}

#[test]
fn a_pass_through_variable_is_not_a_secret_and_ids_holding_its_value_survive() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    mock_release_bot(&dir, &["I am the maintainer's helper. Done."]);
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("  processes: 256\n", "  processes: 256\n  env_allowlist: [USER_ROLE]\n");
    std::fs::write(&job, text).unwrap();
    let out = ghostlab_in(&dir, 180)
        .env("USER_ROLE", "maintainer")
        .args(["test", "--job", "job.yaml", "--quiet"])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = crate::common::newest_run(&dir);
    let summary = std::fs::read_to_string(run.join("summary.json")).unwrap();
    assert!(
        !summary.contains("[REDACTED]"),
        "a pass-through value was masked: {summary}"
    );
    let events: String = walkdir::WalkDir::new(run.join("cases"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "events.jsonl")
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        events.contains("maintainer's helper"),
        "the agent's words were rewritten"
    );
}
