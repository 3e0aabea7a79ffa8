//! docs/examples/ci-matrix.yml is a tested artifact: its `run:` steps are executed in order
//! with bash (as GitHub runs them: `-eo pipefail`, `$GITHUB_OUTPUT`, `$GITHUB_STEP_SUMMARY`)
//! on a mock job, every step must succeed except the final gate, and every path an
//! upload step names must exist afterwards.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn workflow() -> Value {
    let text = std::fs::read_to_string(common::repo().join("docs/examples/ci-matrix.yml")).unwrap();
    let yaml: yaml_serde::Value = yaml_serde::from_str(&text).unwrap();
    serde_json::to_value(yaml).unwrap()
}

/// The value of a `${{ expr }}` the test can know; anything else (secrets, vars, runner) is a
/// placeholder the ghostlab commands do not read.
fn expression(expr: &str, shard: Option<u64>, outputs: &serde_json::Map<String, Value>) -> String {
    match expr.trim() {
        "matrix.shard" => shard.expect("matrix outside the shard job").to_string(),
        e if e.starts_with("steps.") => {
            let parts: Vec<&str> = e.split('.').collect();
            outputs[&format!("{}.{}", parts[1], parts[3])]
                .as_str()
                .unwrap()
                .to_string()
        }
        _ => "unused-in-test".into(),
    }
}

fn substitute(text: &str, shard: Option<u64>, outputs: &serde_json::Map<String, Value>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").unwrap() + start;
        out.push_str(&expression(&rest[start + 3..end], shard, outputs));
        rest = &rest[end + 2..];
    }
    out + rest
}

/// Runs the `run:` steps of `job` in `dir`; the steps that install things on a runner (sudo,
/// cargo install, npm install) are the runner's business and skipped. Returns the exit code
/// of the last step.
fn run_job(job: &Value, dir: &Path, shard: Option<u64>, bin: &Path) -> i32 {
    let mut outputs = serde_json::Map::new();
    let mut last = 0;
    let steps = job["steps"].as_array().unwrap();
    for (i, step) in steps.iter().enumerate() {
        let Some(script) = step["run"].as_str() else { continue };
        if ["sudo ", "cargo install", "npm install"]
            .iter()
            .any(|p| script.starts_with(p))
        {
            continue;
        }
        assert!(
            !script.contains("${{"),
            "expressions belong in env:, not in the script: {script}"
        );
        assert!(!script.contains("|| true"), "a hidden failure: {script}");
        let github_output = dir.join(format!("github-output-{i}"));
        let mut cmd = std::process::Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(dir)
            .env("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()))
            .env("RELEASE_TOKEN", "x-token-value")
            .env("GITHUB_OUTPUT", &github_output)
            .env("GITHUB_STEP_SUMMARY", dir.join("step-summary.md"));
        for (k, v) in step["env"].as_object().into_iter().flatten() {
            cmd.env(k, substitute(v.as_str().unwrap(), shard, &outputs));
        }
        let out = cmd.output().unwrap();
        last = out.status.code().unwrap_or(-1);
        let is_last = i + 1 == steps.len();
        assert!(
            last == 0 || is_last,
            "step {i} `{script}` exit {last}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if let (Some(id), Ok(text)) = (step["id"].as_str(), std::fs::read_to_string(&github_output)) {
            for line in text.lines() {
                let (k, v) = line.split_once('=').unwrap();
                outputs.insert(format!("{id}.{k}"), v.into());
            }
        }
    }
    last
}

/// Every path the job's upload-artifact steps name (for `shard`), which must exist.
fn assert_uploads_exist(job: &Value, dir: &Path, shard: Option<u64>) {
    for step in job["steps"].as_array().unwrap() {
        let uses = step["uses"].as_str().unwrap_or("");
        if !uses.starts_with("actions/upload-artifact") {
            continue;
        }
        if step["if"].as_str() == Some("matrix.shard == 1") && shard != Some(1) {
            continue;
        }
        let paths = substitute(step["with"]["path"].as_str().unwrap(), shard, &serde_json::Map::new());
        for p in paths.lines().map(str::trim).filter(|p| !p.is_empty()) {
            assert!(dir.join(p).exists(), "upload step names {p}, which was not written");
        }
    }
    let sarif = job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|s| s["with"]["sarif_file"].as_str());
    if let Some(f) = sarif {
        assert!(dir.join(f).is_file(), "upload-sarif names {f}");
    }
}

#[test]
fn the_workflow_declares_permissions_and_current_actions() {
    let wf = workflow();
    let p = &wf["permissions"];
    assert_eq!(
        (
            p["contents"].as_str(),
            p["security-events"].as_str(),
            p["checks"].as_str()
        ),
        (Some("read"), Some("write"), Some("write"))
    );
    let minimum = [
        ("actions/checkout", 5),
        ("actions/upload-artifact", 5),
        ("actions/download-artifact", 6),
        ("github/codeql-action/upload-sarif", 4),
    ];
    for job in wf["jobs"].as_object().unwrap().values() {
        for step in job["steps"].as_array().unwrap() {
            let Some((action, version)) = step["uses"].as_str().and_then(|u| u.split_once("@v")) else {
                continue;
            };
            if let Some((_, min)) = minimum.iter().find(|(a, _)| *a == action) {
                assert!(version.parse::<u32>().unwrap() >= *min, "{action}@v{version}");
            }
        }
    }
}

#[test]
fn the_workflow_steps_run_end_to_end_on_a_mock_job() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    common::mock_release_bot(&dir, &["CI is green. Draft notes for 1.3.0. Shall I proceed?", "Done."]);
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ghostlab"), bin.join("ghostlab")).unwrap();
    let wf = workflow();
    let shard_job = &wf["jobs"]["shard"];
    let shards: Vec<u64> = shard_job["strategy"]["matrix"]["shard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    for &s in &shards {
        assert_eq!(run_job(shard_job, &dir, Some(s), &bin), 0, "shard {s}");
        assert_uploads_exist(shard_job, &dir, Some(s));
    }
    let merge_job = &wf["jobs"]["merge"];
    // The mock agent with the offline judge meets no gate: the last step fails the workflow.
    assert_eq!(run_job(merge_job, &dir, None, &bin), 1);
    assert_uploads_exist(merge_job, &dir, None);
    let summary = std::fs::read_to_string(dir.join("step-summary.md")).unwrap();
    assert!(
        summary.starts_with("## Ghostlab") && summary.contains("gates NOT met"),
        "{summary}"
    );
}
