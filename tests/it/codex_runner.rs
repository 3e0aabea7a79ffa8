//! The Codex runner against a FAKE `codex` CLI (tests/fixtures/codex/fake-codex), inside
//! bubblewrap: the second turn resumes the first turn's thread by id, the emitted config.toml
//! keeps secrets as references, items become the transcript, and a failed turn is an
//! INFRA_ERROR. The live `codex` binary is not exercised here (it is not installed).

use crate::common;

use assert_cmd::Command;
use common::{PREPARE_RELEASE as CASE, copy_release_bot, newest_run, repo, test_one_case_args, trial_verdict};
use std::path::Path;

fn prepared(tmp: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = tmp.join("release-bot");
    copy_release_bot(&dir);
    let job = dir.join("job.yaml");
    // Installed like a package under the (masked) temp folder, as a checkout in /tmp would
    // have it: the runner must make the agent host's package visible inside the sandbox.
    let fake = tmp.join("tools/fake-codex/bin/codex");
    std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
    std::fs::copy(repo().join("tests/fixtures/codex/fake-codex"), &fake).unwrap();
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("backend: opencode", "backend: codex");
    std::fs::write(
        &job,
        format!("{text}hosts:\n  codex:\n    binary: {}\n", fake.display()),
    )
    .unwrap();
    let out = ghostlab(&dir).args(["generate", "--job", "job.yaml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir
}

fn ghostlab(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("ghostlab").unwrap();
    c.current_dir(dir)
        .env("RELEASE_TOKEN", "codex-canary-5d1e")
        .timeout(std::time::Duration::from_secs(120));
    c
}

fn run_case(dir: &Path, extra_env: Option<(&str, &str)>) -> (std::process::Output, std::path::PathBuf) {
    let mut cmd = ghostlab(dir);
    if let Some((k, v)) = extra_env {
        cmd.env(k, v);
    }
    let out = cmd.args(test_one_case_args(CASE, false)).output().unwrap();
    (out, newest_run(dir).join(format!("cases/{CASE}/trial-1")))
}

#[test]
fn fake_codex_resumes_its_thread_inside_bubblewrap() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = prepared(tmp.path());
    let (out, trial) = run_case(&dir, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let events = ghostlab::run::store::events_file::read_events(&trial.join("events.jsonl")).unwrap();
    let answers: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.event {
            ghostlab::trial::events::RunEvent::AgentMessage { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(answers.len(), 2, "{stderr}");
    assert!(answers[0].contains("Shall I bump"), "{answers:?}");
    // The second turn ran in the first turn's thread: it remembers the opening message.
    assert!(
        answers[1].starts_with("Turn 2 of thread fake-thread-") && answers[1].contains("prepare a release"),
        "{answers:?}"
    );
    let tools: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.event {
            ghostlab::trial::events::RunEvent::ToolCall { tool, .. } => Some(tool.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(tools, ["bash", "edit"]);
    let verdict: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trial.join("verdict.json")).unwrap()).unwrap();
    // The fake never checks CI: the scenario's deterministic tool check fails the case.
    assert_eq!(verdict["verdict"], "FAIL", "{verdict:#}");
    assert!(
        verdict["reasons"]
            .to_string()
            .contains("release_ci_status: never called"),
        "{verdict:#}"
    );

    // Codex's stdio servers go through the MCP relay, as OpenCode's: the config names
    // `ghostlab __mcp-connect`, and the server it reaches answers with its tools.
    let host_log = std::fs::read_to_string(trial.join("agent-host.log")).unwrap();
    let probe = host_log
        .lines()
        .find(|l| l.starts_with("fake-codex: mcp release"))
        .unwrap_or_else(|| panic!("{host_log}"));
    assert!(
        probe.starts_with("fake-codex: mcp release via ghostlab: tools=") && probe.contains("ci_status,"),
        "{probe}"
    );

    // Ran inside bubblewrap, resume by id on the second call, and no secret on any argv.
    let run = trial.parent().unwrap().parent().unwrap().parent().unwrap();
    let log = std::fs::read_dir(run.join("logs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(log.contains("backend Bubblewrap"), "{log}");
    let calls: Vec<&str> = log.lines().filter(|l| l.contains("/bin/codex exec --json")).collect();
    assert_eq!(calls.len(), 2, "{log}");
    assert!(!calls[0].contains(" resume "), "{}", calls[0]);
    assert!(calls[1].contains(" resume fake-thread-"), "{}", calls[1]);
    for f in walkdir::WalkDir::new(run)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
    {
        let text = String::from_utf8_lossy(&std::fs::read(f.path()).unwrap()).into_owned();
        assert!(!text.contains("codex-canary-5d1e"), "secret in {}", f.path().display());
    }
}

#[test]
fn codex_against_the_chat_only_model_server_is_refused_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = prepared(tmp.path());
    let out = ghostlab(&dir).args(test_one_case_args(CASE, true)).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let verdict = trial_verdict(&newest_run(&dir), CASE);
    assert_eq!(verdict["verdict"], "INFRA_ERROR", "{verdict:#}");
    assert!(verdict["reasons"].to_string().contains("Responses API"), "{verdict:#}");
}

#[test]
fn fake_codex_failing_a_turn_is_an_infra_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = prepared(tmp.path());
    // FAKE_CODEX_FAIL_TURN only reaches the agent if allowlisted: let it through explicitly.
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job).unwrap().replace(
        "  processes: 256\n",
        "  processes: 256\n  env_allowlist: [FAKE_CODEX_FAIL_TURN]\n",
    );
    std::fs::write(&job, text).unwrap();
    let (out, trial) = run_case(&dir, Some(("FAKE_CODEX_FAIL_TURN", "2")));
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let verdict: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trial.join("verdict.json")).unwrap()).unwrap();
    assert_eq!(verdict["verdict"], "INFRA_ERROR", "{verdict:#}");
    assert!(
        verdict["reasons"].to_string().contains("401 Unauthorized"),
        "{verdict:#}"
    );
}
