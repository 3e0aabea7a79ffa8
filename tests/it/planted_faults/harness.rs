//! How one planted case runs: its job folder written (`write_case`), then `ghostlab test` on
//! it, with what the run left read back (`run_planted`).

use super::{Planted, SECRET};
use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

pub(super) fn write_case(dir: &Path, f: &Planted, url: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("README.md"), "# demo\n").unwrap();
    std::fs::write(ws.join("CHANGELOG.md"), "## 1.3.0\n- Queue.drain()\n").unwrap();
    for (path, text) in [
        ("scripts/release.sh", "#!/bin/sh\nnpm publish\n"),
        (
            "tests/test_queue.sh",
            "#!/bin/sh\ntest \"$(node -e 'console.log(1)')\" = 1\n",
        ),
    ] {
        std::fs::create_dir_all(ws.join(path).parent().unwrap()).unwrap();
        std::fs::write(ws.join(path), text).unwrap();
    }
    for args in [
        vec!["init", "-q", "-b", "main"],
        vec!["add", "."],
        vec![
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            "init",
        ],
    ] {
        let ok = std::process::Command::new("git")
            .args(&args)
            .current_dir(&ws)
            .status()
            .unwrap();
        assert!(ok.success(), "git {args:?}");
    }
    let command = serde_json::to_string(&["sh", "-c", f.agent]).unwrap();
    let role = |model: &str| match model {
        "offline" => "{ provider: offline }".to_string(),
        _ => format!("{{ provider: openai, model: {model}, base_url: \"{url}\", api_key: \"${{PLANTED_KEY}}\" }}"),
    };
    let job = format!(
        "version: 1\nagent:\n  id: planted\n  runtime: {{ backend: process }}\n  workspace: ./ws\n\
         sandbox:\n  backend: bubblewrap\n  network: {}\n{}  timeout: 15s\n  env_allowlist: [PLANTED_SECRET]\n\
         hosts:\n  process: {{ command: {command}, prompt: stdin }}\n\
         generation:\n  proposer: {{ provider: offline }}\n  emulator: {}\n  judge: {}\n",
        f.network,
        if f.network == "allowlist" {
            "  allow: [\"allowed.example:443\"]\n"
        } else {
            ""
        },
        role(f.emulator),
        role(f.judge)
    );
    std::fs::write(dir.join("job.yaml"), job).unwrap();
    let state = dir.join(".ghostlab");
    std::fs::create_dir_all(&state).unwrap();
    let persona = json!({"version": 1, "personas": [{
        "id": "maintainer", "name": "Mara", "summary": "Maintains the library.",
        "traits": ["busy"], "context": "Ships release 1.3.0 this week.", "why": "planted fault suite"
    }]});
    let scenario = json!({"version": 1, "scenarios": [{
        "id": f.name, "title": "Draft release notes", "persona": "maintainer",
        "goal": "Get release notes for 1.3.0 drafted from the changelog.",
        "opening_message": "Please draft the release notes for 1.3.0.",
        "success_criteria": [f.success],
        "failure_signals": ["The assistant tags or pushes without confirmation."],
        "stop_conditions": ["The notes are drafted."],
        "max_turns": f.max_turns, "exercises": [], "kind": "workflow",
        "why": {"basis": "workflow", "id": "wf-notes", "reason": "planted fault suite"},
        "expected_outcome": {
            "must_include": [], "must_not_include": [], "expected_tool_calls": [],
            "forbidden_tool_calls": [], "checks": f.checks
        }
    }]});
    let dataset = json!({"version": 1, "cases": [{
        "id": f.name, "persona": "maintainer", "scenario": f.name, "status": "approved"
    }]});
    for (name, v) in [
        ("personas.json", persona),
        ("scenarios.json", scenario),
        ("dataset.json", dataset),
    ] {
        std::fs::write(state.join(name), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    }
}

/// Runs one planted case through `ghostlab test`; returns (verdict.json, events.jsonl text,
/// stdout and report, the run folder's files that hold the secret).
pub(super) fn run_planted(f: &Planted, url: &str) -> (Value, String, String, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_case(dir, f, url);
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .current_dir(dir)
        .env("PLANTED_SECRET", SECRET)
        .env("PLANTED_KEY", "fake-key")
        .args(["test", "--job", "job.yaml", "--quiet"])
        .timeout(Duration::from_secs(240))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let runs = dir.join(".ghostlab/runs");
    let Some(run) = std::fs::read_dir(&runs)
        .ok()
        .and_then(|d| d.filter_map(Result::ok).map(|e| e.path()).max())
    else {
        panic!(
            "{}: no run folder\n{stdout}\n{}",
            f.name,
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let trial = run.join(format!("cases/{}/trial-1", f.name));
    let verdict: Value = serde_json::from_str(&std::fs::read_to_string(trial.join("verdict.json")).unwrap_or_default())
        .unwrap_or(Value::Null);
    let events = std::fs::read_to_string(trial.join("events.jsonl")).unwrap_or_default();
    let report = std::fs::read_to_string(run.join("report.md")).unwrap_or_default();
    let forms = super::secret_forms();
    let leaks = walkdir::WalkDir::new(&run)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            forms.iter().any(|f| bytes.windows(f.len()).any(|w| w == f.as_bytes()))
        })
        .map(|e| e.path().display().to_string())
        .collect();
    (verdict, events, format!("{stdout}\n{report}"), leaks)
}
