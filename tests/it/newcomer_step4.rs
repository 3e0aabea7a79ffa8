//! Step 4 refuses, at the step, what `validate` refuses in the MCP server list — the issue's
//! `server: nope` that the lab used to accept (discovery "failed", the step moved on) until
//! step 8 stopped on the invalid job. Headless (`lab --yes`), so the refusal is an exit 2 that
//! names step 4, the key and the fix, and step 4 is not saved as done.

use crate::common::ghostlab_in;
use std::path::Path;

/// A newcomer's folder: a real server in `mcp.json` and a job whose MCP list is `mcps`.
fn project(dir: &Path, mcps: &str) {
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("tools.mjs"), "process.stdin.resume();\n").unwrap();
    std::fs::write(
        dir.join("mcp.json"),
        r#"{"mcpServers":{"real":{"command":"node","args":["./tools.mjs"]}}}"#,
    )
    .unwrap();
    std::fs::write(dir.join("broken.json"), r#"{"mcpServers":{"real":{"command":5}}}"#).unwrap();
    std::fs::write(
        dir.join("job.yaml"),
        format!(
            "version: 1\nagent:\n  id: step-four\n  workspace: ./ws\n  runtime:\n    model: openai/gpt-4.1\n  inputs:\n    mcps:\n{mcps}sandbox:\n  backend: bubblewrap\n"
        ),
    )
    .unwrap();
}

fn lab_yes(dir: &Path) -> (Option<i32>, String) {
    let out = ghostlab_in(dir, 120)
        .args(["lab", "--yes", "--job", "job.yaml"])
        .args(["--description", "Answers questions about a small tool server."])
        .args([
            "--proposer-model",
            "offline",
            "--emulator-model",
            "offline",
            "--judge-model",
            "offline",
        ])
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn step_4_refuses_what_validate_refuses_in_the_server_list() {
    for (case, mcps, expected) in [
        (
            "a server the file does not have",
            "      - server: nope\n        config_ref: ./mcp.json\n",
            &["server `nope` is not in `./mcp.json`", "servers there: real"][..],
        ),
        (
            "a file that does not exist",
            "      - server: real\n        config_ref: ./missing.json\n",
            &["referenced file `./missing.json` does not exist"][..],
        ),
        (
            "one name used twice",
            "      - server: real\n        config_ref: ./mcp.json\n      - server: real\n        command: [node, ./tools.mjs]\n",
            &["two MCP servers are named `real`"][..],
        ),
        (
            "a servers file whose entry is malformed",
            "      - server: real\n        config_ref: ./broken.json\n",
            &["mcpServers.real.command: wrong type: expected a string"][..],
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        project(tmp.path(), mcps);
        let (code, stderr) = lab_yes(tmp.path());
        assert_eq!(code, Some(2), "{case}: {stderr}");
        assert!(
            stderr.contains("step 4 (MCPs) failed"),
            "{case}: not refused at step 4:\n{stderr}"
        );
        for needle in expected {
            assert!(stderr.contains(needle), "{case}: {needle:?} missing:\n{stderr}");
        }
        assert!(
            stderr.contains("--mcp-config"),
            "{case}: no way forward named:\n{stderr}"
        );
        let job = std::fs::read_to_string(tmp.path().join("job.yaml")).unwrap();
        assert!(!job.contains("- mcps"), "{case}: step 4 saved as done:\n{job}");
    }
}
