//! The acceptance test of the design: `ghostlab lab --yes` on examples/release-bot (its
//! opencode.json-derived job, two MCP servers, instructions, a skill, a code workspace) →
//! discovery of both MCP servers inside the sandbox → offline profile, personas and scenarios
//! → every scenario run with the real OpenCode CLI inside bubblewrap against Ghostlab's model
//! server → judged → PDF. Then, from the sandbox logs and the host: every process of the run
//! went through the sandbox, the original workspace and HOME are unchanged, the only network
//! the agent had was the model endpoint, and the denied attempts are in the report.

use crate::common;

use assert_cmd::Command;
use common::{copy_release_bot, opencode_bin, tree_digest as digest};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Names and modification times of what OpenCode would touch in the real HOME.
fn home_state() -> BTreeMap<PathBuf, Option<SystemTime>> {
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    [
        ".local/share/opencode",
        ".config/opencode",
        ".cache/opencode",
        ".local/state/opencode",
    ]
    .iter()
    .map(|p| {
        let path = home.join(p);
        let m = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        (path, m)
    })
    .collect()
}

/// Every entry under the host's `/sandbox` with its modification time, `None` when there is
/// no such folder (as on a clean machine). An older Ghostlab may have left one behind, so the
/// check is that a run changes nothing there, not that the folder is absent.
fn host_sandbox_state() -> Option<BTreeMap<PathBuf, Option<SystemTime>>> {
    let root = std::path::Path::new("/sandbox");
    root.exists().then(|| {
        walkdir::WalkDir::new(root)
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| {
                (
                    e.path().to_path_buf(),
                    e.metadata().ok().and_then(|m| m.modified().ok()),
                )
            })
            .collect()
    })
}

/// What a run must leave as it was on the host: the user's workspace, HOME's OpenCode
/// folders and the host's `/sandbox`.
struct HostState {
    workspace: BTreeMap<PathBuf, Vec<u8>>,
    home: BTreeMap<PathBuf, Option<SystemTime>>,
    host_sandbox: Option<BTreeMap<PathBuf, Option<SystemTime>>>,
}

impl HostState {
    fn of(dir: &Path) -> Self {
        Self {
            workspace: digest(&dir.join("release-repo")),
            home: home_state(),
            host_sandbox: host_sandbox_state(),
        }
    }
}

#[test]
fn lab_yes_on_release_bot_runs_everything_inside_the_sandbox() {
    // A private folder (0700) as `mktemp -d` makes: as root, the sandbox user cannot enter
    // it, so every input must be staged, not bound from its host path.
    let tmp = tempfile::Builder::new().prefix("ghostlab-mktemp-").tempdir().unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let dir = tmp.path().join("release-bot");
    release_bot_with_a_denied_setup_step(&dir);
    let before = HostState::of(&dir);

    let out = lab_yes(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Offline only evidence settles verdicts, so the pass-rate gate fails and `lab --yes`
    // exits 1 like `test`.
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("gates NOT met"), "{stdout}");
    assert!(
        stderr.contains("[release] ok") || stderr.contains("release: 4 tools"),
        "{stderr}"
    );

    let run = the_one_run(&dir);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    let trials = summary["summary"]["trials"].as_u64().unwrap();
    assert!(trials >= 10, "{summary:#}");
    // Offline, evidence settles what it can: a PASS only where every criterion is bound to
    // evidence, at least one such PASS, and the cassette's publish.sh slip caught as FAIL.
    evidence_verdicts_everywhere(&run, &summary, &stdout);
    no_infra_errors(&run, &summary, &stderr);
    every_process_went_through_the_sandbox(&run, trials, &before.host_sandbox);
    both_mcp_servers_answered(&run);
    report_has_the_denials_and_no_file_the_secret(&run, &dir);

    // The host: the user's workspace and HOME are as they were.
    let after = HostState::of(&dir);
    assert_eq!(after.workspace, before.workspace);
    assert_eq!(after.home, before.home);
}

/// The release-bot example copied to `dir`. OpenCode's own start-up npm lookup is switched
/// off now; a setup step that tries the registry keeps a denied attempt in the run, to prove
/// denials reach the report.
fn release_bot_with_a_denied_setup_step(dir: &Path) {
    copy_release_bot(dir);
    let job_file = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job_file).unwrap().replace(
        "setup:\n",
        "setup:\n  - name: try the npm registry (denied)\n    run: [sh, -c, \"curl -s -o /dev/null --max-time 10 https://registry.npmjs.org/ || true\"]\n",
    );
    std::fs::write(&job_file, text).unwrap();
}

/// `ghostlab lab --yes` in `dir` with the real OpenCode on the example's agent cassette.
fn lab_yes(dir: &Path) -> std::process::Output {
    Command::cargo_bin("ghostlab")
        .unwrap()
        .current_dir(dir)
        .env("GHOSTLAB_OPENCODE_BIN", opencode_bin())
        .env("RELEASE_TOKEN", "acceptance-canary-5150")
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
        .timeout(Duration::from_secs(1500))
        .output()
        .unwrap()
}

/// The lab completed all its steps and made exactly one run; its folder.
fn the_one_run(dir: &Path) -> PathBuf {
    let job = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
    assert_eq!(job.job.lab.completed.len(), 12);
    let runs: Vec<PathBuf> = std::fs::read_dir(job.state_dir().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1);
    runs[0].clone()
}

/// No case ended INFRA_ERROR; if one did, fails naming each with its reasons.
fn no_infra_errors(run: &Path, summary: &serde_json::Value, stderr: &str) {
    if summary["summary"]["infra_error"] == 0 {
        return;
    }
    let mut reasons = Vec::new();
    for e in walkdir::WalkDir::new(run.join("cases"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "verdict.json")
    {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
        if v["verdict"] == "INFRA_ERROR" {
            reasons.push(format!("{}: {}", v["case"], v["reasons"]));
        }
    }
    panic!(
        "INFRA_ERROR in {} case(s):\n{}\n{stderr}",
        reasons.len(),
        reasons.join("\n")
    );
}

/// From the sandbox logs: one bubblewrap session a trial with only the model endpoint
/// reachable, the isolated root, nothing made under the host's /sandbox, the MCP servers
/// relayed, and the agent CLI and setup script run inside.
fn every_process_went_through_the_sandbox(
    run: &Path,
    trials: u64,
    host_sandbox_before: &Option<BTreeMap<PathBuf, Option<SystemTime>>>,
) {
    let mut logs = String::new();
    for e in std::fs::read_dir(run.join("logs")).unwrap() {
        logs.push_str(&std::fs::read_to_string(e.unwrap().path()).unwrap());
    }
    let created: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains(" session agent-") && l.contains(" created: "))
        .collect();
    assert_eq!(created.len() as u64, trials, "one sandbox session per trial");
    for line in &created {
        assert!(line.contains("backend Bubblewrap"), "{line}");
        let list = line
            .split("network allowlist [")
            .nth(1)
            .and_then(|r| r.split(']').next())
            .unwrap_or("");
        assert!(
            list.starts_with("127.0.0.1:") && !list.contains(','),
            "more than the model endpoint: {line}"
        );
    }
    // The default root filesystem (isolated), with HOME and TMPDIR bounded.
    assert!(
        logs.contains("root filesystem isolated"),
        "no isolated session in the logs"
    );
    assert!(
        logs.contains("HOME and TMPDIR: size-limited tmpfs") || unsafe { libc::geteuid() } != 0,
        "HOME/TMPDIR not bounded by a tmpfs as root"
    );
    // The in-sandbox paths are the session's: nothing made them on the host (the runners once
    // created `/sandbox/home/tmp` on the host before every turn).
    assert_eq!(
        &host_sandbox_state(),
        host_sandbox_before,
        "a run wrote under /sandbox on the host"
    );
    // Each stdio MCP server ran as its own sandbox command (own PID namespace), reached by
    // the agent through the relay, not as a child of the agent.
    for server in ["release", "filesystem"] {
        assert!(
            logs.contains(&format!("MCP relay: server `{server}` started for a connection")),
            "MCP server `{server}` was not relayed"
        );
    }
    // The agent CLI and the workspace's own setup script ran through the sandbox.
    // OpenCode runs warm by default: one server per case, each turn attached to it.
    assert!(logs.contains(" serve --port "), "agent server not in the sandbox log");
    assert!(
        logs.contains(" run --attach http://127.0.0.1:"),
        "agent CLI not in the sandbox log"
    );
    assert!(logs.contains("git init"), "setup script not in the sandbox log");
}

/// Both MCP servers answered tool calls from inside the sandbox (OpenCode starts them there).
fn both_mcp_servers_answered(run: &Path) {
    let mut tools = std::collections::BTreeSet::new();
    for e in walkdir::WalkDir::new(run.join("cases"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "events.jsonl")
    {
        for ev in ghostlab::run::store::events_file::read_events(e.path()).unwrap() {
            if let ghostlab::trial::events::RunEvent::ToolCall {
                tool,
                status: ghostlab::trial::events::ToolStatus::Completed,
                ..
            } = ev.event
            {
                tools.insert(tool);
            }
        }
    }
    assert!(tools.iter().any(|t| t.starts_with("release_")), "{tools:?}");
    assert!(tools.iter().any(|t| t.starts_with("filesystem_")), "{tools:?}");
}

/// Denied attempts are findings in the report; the PDF is short; no file under `dir` holds
/// the secret.
fn report_has_the_denials_and_no_file_the_secret(run: &Path, dir: &Path) {
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        report.contains("registry.npmjs.org"),
        "denied egress missing from the report"
    );
    // The PDF a reader prints: the whole example in under 20 pages (it was 55).
    let pages = crate::report_example_pdf::pdf_pages(&run.join("report.pdf"));
    assert!(pages < 20, "report.pdf has {pages} pages");
    for f in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
    {
        let bytes = std::fs::read(f.path()).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("acceptance-canary-5150"),
            "secret in {}",
            f.path().display()
        );
    }
}

/// The offline verdicts the evidence settles, the same in verdict.json, summary.json, junit.xml,
/// the report and the terminal.
fn evidence_verdicts_everywhere(run: &std::path::Path, summary: &serde_json::Value, stdout: &str) {
    let mut passes = Vec::new();
    let mut evidence_fails = Vec::new();
    for e in walkdir::WalkDir::new(run.join("cases"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "verdict.json")
    {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
        let criteria = v["criteria"].as_array().unwrap();
        let case = v["case"].as_str().unwrap().to_string();
        match v["verdict"].as_str().unwrap() {
            "PASS" => {
                assert!(
                    !criteria.is_empty() && criteria.iter().all(|c| c["by_evidence"] == true),
                    "a PASS offline with a criterion no evidence settled: {v:#}"
                );
                passes.push(case);
            }
            "FAIL"
                if criteria
                    .iter()
                    .any(|c| c["by_evidence"] == true && c["answer"] == "violated") =>
            {
                evidence_fails.push(case)
            }
            _ => {}
        }
    }
    assert!(!passes.is_empty(), "no evidence-settled PASS");
    assert!(
        evidence_fails.iter().any(|c| c.contains("publish-sh")),
        "the publish.sh slip was not caught by evidence: {evidence_fails:?}"
    );
    assert_eq!(summary["summary"]["pass"], passes.len() as u64);
    // The counts of evidence-decided verdicts: every offline PASS is one, and so is the slip.
    assert_eq!(summary["summary"]["pass_by_evidence"], passes.len() as u64);
    let fails_by_evidence = summary["summary"]["fail_by_evidence"].as_u64().unwrap_or(0);
    assert!(fails_by_evidence >= evidence_fails.len() as u64, "{summary:#}");
    let line = format!("settled by evidence: {} PASS, {fails_by_evidence} FAIL", passes.len());
    assert!(stdout.contains(&line), "{line} not in {stdout}");
    let junit = std::fs::read_to_string(run.join("junit.xml")).unwrap();
    let property = format!(
        "<property name=\"ghostlab.pass_by_evidence\" value=\"{}\"/>",
        passes.len()
    );
    assert!(junit.contains(&property), "{junit}");
    assert!(junit.contains("ghostlab.settled_by_evidence=true"), "{junit}");
    assert!(junit.contains("every criterion settled by evidence"), "{junit}");
    assert!(
        junit.contains("type=\"FAIL\" message=\"s1: settled by evidence: not_attempted bash"),
        "{junit}"
    );
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains("settled by evidence"), "report lacks evidence answers");
    for case in passes.iter().chain(&evidence_fails) {
        assert!(report.contains(case.as_str()), "{case} not in the report");
    }
    assert!(
        stdout.contains("(every criterion settled by evidence, no judge)"),
        "{stdout}"
    );
    assert!(stdout.contains("(settled by evidence)"), "{stdout}");
}
