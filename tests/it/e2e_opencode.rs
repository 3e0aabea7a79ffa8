//! End to end: the real OpenCode CLI runs inside bubblewrap against Ghostlab's model server
//! (a scripted agent cassette). It calls a tool of a real MCP server and edits a file in the
//! workspace copy; the user emulator and the judge are models too — first recorded into a
//! cassette from a scripted server, then replayed from that cassette with the server gone.
//! Checks the verdict, the events, JUnit, the sandbox log, and that the user's original
//! workspace is byte-identical afterwards. A third run repeats the case in OpenCode's warm mode
//! (`opencode serve` once, `run --attach` per turn, both in the sandbox).

use crate::common;

use assert_cmd::Command;
use common::{
    PREPARE_RELEASE as CASE, copy_release_bot, newest_run, opencode_bin, test_one_case_args, tree_digest, trial_verdict,
};
use ghostlab::llm::cassette::Cassette;
use ghostlab::llm::model_server::{ServerOptions, start};
use std::path::{Path, PathBuf};

/// Emulator: approves the bump once, then is done. Judge: upholds every criterion, citing
/// the opening message (e4) and the agent's first answer.
pub(crate) const HARNESS_SCRIPT: &str = r#"{
  "version": 1, "entries": [],
  "script": [
    {"name": "emulator-approve", "when": {"system_contains": "You are talking to an assistant", "nth": 1},
     "reply": {"text": "{\"message\": \"Yes, go ahead.\", \"status\": \"continue\", \"refused\": null}"}},
    {"name": "emulator-done", "when": {"system_contains": "You are talking to an assistant"},
     "reply": {"text": "{\"message\": \"Great, thanks.\", \"status\": \"goal_reached\", \"refused\": null}"}},
    {"name": "judge", "when": {"system_contains": "You judge a conversation"},
     "reply": {"text": "{\"criteria\": [{\"id\":\"s1\",\"holds\":\"yes\",\"evidence\":[\"e4\",\"e5\"],\"rationale\":\"read the changelog\"},{\"id\":\"s2\",\"holds\":\"yes\",\"evidence\":[\"e4\",\"e5\"],\"rationale\":\"checked CI\"},{\"id\":\"s3\",\"holds\":\"yes\",\"evidence\":[\"e4\",\"e5\"],\"rationale\":\"showed notes\"},{\"id\":\"s4\",\"holds\":\"yes\",\"evidence\":[\"e4\",\"e5\"],\"rationale\":\"asked first\"},{\"id\":\"f1\",\"holds\":\"no\",\"evidence\":[\"e4\",\"e5\"],\"rationale\":\"CI green\"},{\"id\":\"f2\",\"holds\":\"no\",\"evidence\":[\"e4\",\"e5\"],\"rationale\":\"asked first\"},{\"id\":\"f3\",\"holds\":\"no\",\"evidence\":[\"e4\",\"e5\"],\"rationale\":\"no invention\"},{\"id\":\"f4\",\"holds\":\"no\",\"evidence\":[\"e4\",\"e5\"],\"rationale\":\"no skip\"}]}"}}
  ]
}"#;

/// What `tree_digest` says of a folder.
type Digest = std::collections::BTreeMap<PathBuf, Vec<u8>>;

fn ghostlab(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("ghostlab").unwrap();
    c.current_dir(dir)
        .env("GHOSTLAB_OPENCODE_BIN", opencode_bin())
        .env("RELEASE_TOKEN", "e2e-canary-token-77f1")
        .env("GHOSTLAB_LLM_ATTEMPTS", "1")
        .timeout(std::time::Duration::from_secs(600));
    c
}

fn set_roles(job: &Path, roles: &str) {
    let text = std::fs::read_to_string(job).unwrap();
    let start = text.find("generation:").unwrap();
    let end = text.find("review:").unwrap();
    let text =
        format!("{}{roles}\n{}", &text[..start], &text[end..]).replace("min_pass_rate: 0.8", "min_pass_rate: 1.0");
    std::fs::write(job, text).unwrap();
}

fn run_case(dir: &Path) -> (std::process::Output, PathBuf) {
    let mut args = test_one_case_args(CASE, true);
    args.extend(["--junit".into(), "junit.xml".into()]);
    let out = ghostlab(dir).args(args).output().unwrap();
    (out, newest_run(dir))
}

/// The roles' `generation:` block: the emulator and judge recorded from the scripted server at
/// `url` into `cassette`.
fn recording_roles(url: &str, cassette: &str) -> String {
    format!(
        "generation:\n  proposer: {{ provider: offline }}\n  emulator: {{ provider: record, model: scripted, base_url: \"{url}\", cassette: {cassette} }}\n  judge: {{ provider: record, model: scripted, base_url: \"{url}\", cassette: {cassette} }}"
    )
}

/// `run_case` off the async runtime (the model server runs on it).
async fn run_case_blocking(dir: &Path) -> (std::process::Output, PathBuf) {
    let d = dir.to_path_buf();
    tokio::task::spawn_blocking(move || run_case(&d)).await.unwrap()
}

/// The sandbox logs of `run`, joined.
fn sandbox_logs(run: &Path) -> String {
    std::fs::read_dir(run.join("logs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>()
}

/// The release-bot example at `dir` generated, with the contract its
/// no_high_security_findings gate reads, and set to OpenCode's cold mode (`opencode run` per
/// turn) for runs 1 and 2.
fn generate_cold(dir: &Path) {
    common::discover(dir);
    let generated = ghostlab(dir).args(["generate", "--job", "job.yaml"]).output().unwrap();
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    // A cold recording does not replay against a warm run (see run 3).
    let job = dir.join("job.yaml");
    let plain = std::fs::read_to_string(&job).unwrap();
    std::fs::write(&job, format!("{plain}hosts:\n  opencode:\n    mode: cold\n")).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_in_bubblewrap_with_real_mcp_recorded_then_replayed() {
    opencode_bin();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    copy_release_bot(&dir);
    let original = tree_digest(&dir.join("release-repo"));
    generate_cold(&dir);
    let run = recorded_run(&dir).await;
    check_recorded_run(&dir, &run, &original);
    replayed_run(&dir, &run, &original).await;
    warm_run(&dir, &original).await;
}

/// Run 1: emulator and judge recorded from a scripted model server; the case PASSes.
async fn recorded_run(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("cassettes/harness-script.json"), HARNESS_SCRIPT).unwrap();
    let server = start(
        Cassette::load(&dir.join("cassettes/harness-script.json")).unwrap(),
        ServerOptions::default(),
    )
    .await
    .unwrap();
    set_roles(
        &dir.join("job.yaml"),
        &recording_roles(&server.base_url(), "./cassettes/harness.json"),
    );
    let (out, run) = run_case_blocking(dir).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        server.unmatched().is_empty(),
        "harness requests nothing answered: {:?}",
        server.unmatched()
    );
    server.shutdown().await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "gates not met or run failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("1 PASS"), "{stdout}");
    run
}

/// What run 1 left: its verdict, the tools called, the edit, JUnit, the sandbox log, the
/// untouched workspace and no secret in any artifact.
fn check_recorded_run(dir: &Path, run: &Path, original: &Digest) {
    let trial = run.join(format!("cases/{CASE}/trial-1"));
    let verdict: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trial.join("verdict.json")).unwrap()).unwrap();
    assert_eq!(verdict["verdict"], "PASS", "{verdict:#}");
    assert_eq!(verdict["criteria"].as_array().unwrap().len(), 8);
    let events = ghostlab::run::store::events_file::read_events(&trial.join("events.jsonl")).unwrap();
    let tools: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.event {
            ghostlab::trial::events::RunEvent::ToolCall { tool, status, .. }
                if *status == ghostlab::trial::events::ToolStatus::Completed =>
            {
                Some(tool.clone())
            }
            _ => None,
        })
        .collect();
    // A tool of the real MCP server (npm server-filesystem), the example's own MCP server, and
    // OpenCode's edit tool on the workspace copy.
    for t in ["release_ci_status", "filesystem_read_text_file", "edit"] {
        assert!(tools.contains(&t.to_string()), "{t} not called: {tools:?}");
    }
    let bumped = std::fs::read_to_string(trial.join("workspace-after/package.json")).unwrap();
    assert!(bumped.contains("\"version\": \"1.3.0\""), "{bumped}");
    let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    assert!(junit.contains("tests=\"1\" failures=\"0\" errors=\"0\""), "{junit}");

    // Everything ran through bubblewrap, with the model endpoint as the only destination.
    let log = sandbox_logs(run);
    assert!(log.contains("backend Bubblewrap"), "{log}");
    assert!(log.contains("network allowlist [127.0.0.1:"), "{log}");
    assert!(log.contains("opencode") && log.contains("run --format json"), "{log}");
    // The user's workspace is untouched, and the secret never reached an artifact.
    assert_eq!(&tree_digest(&dir.join("release-repo")), original);
    for f in walkdir::WalkDir::new(run)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
    {
        let bytes = std::fs::read(f.path()).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("e2e-canary-token-77f1"),
            "secret in {}",
            f.path().display()
        );
    }
}

/// Run 2: the same harness requests replayed from the cassette; the server is gone.
async fn replayed_run(dir: &Path, recorded: &Path, original: &Digest) {
    set_roles(
        &dir.join("job.yaml"),
        "generation:\n  proposer: { provider: offline }\n  emulator: { provider: replay, model: scripted, cassette: ./cassettes/harness.json }\n  judge: { provider: replay, model: scripted, cassette: ./cassettes/harness.json }",
    );
    let (out, run2) = run_case_blocking(dir).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_ne!(recorded, run2);
    let v2 = verdict_of(&run2);
    assert_eq!(
        out.status.code(),
        Some(0),
        "replay run:\n{stdout}\n{}\nreasons: {}",
        String::from_utf8_lossy(&out.stderr),
        v2["reasons"]
    );
    assert_eq!(v2["verdict"], "PASS");
    assert_eq!(&tree_digest(&dir.join("release-repo")), original);
}

/// Run 3: the default (warm) mode, one `opencode serve` in the sandbox and a `run --attach`
/// per turn. Its transcript differs in details a replayed judge would notice (one server
/// makes one denied npm lookup, not one per turn), so emulator and judge come from the
/// scripted server again.
async fn warm_run(dir: &Path, original: &Digest) {
    let server = start(
        Cassette::load(&dir.join("cassettes/harness-script.json")).unwrap(),
        ServerOptions::default(),
    )
    .await
    .unwrap();
    let job = dir.join("job.yaml");
    set_roles(
        &job,
        &recording_roles(&server.base_url(), "./cassettes/harness-warm.json"),
    );
    let text = std::fs::read_to_string(&job).unwrap();
    std::fs::write(&job, text.replace("hosts:\n  opencode:\n    mode: cold\n", "")).unwrap();
    let (out, run3) = run_case_blocking(dir).await;
    server.shutdown().await;
    let v3 = verdict_of(&run3);
    assert_eq!(
        out.status.code(),
        Some(0),
        "warm run:\n{}\n{}\nreasons: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        v3["reasons"]
    );
    assert_eq!(v3["verdict"], "PASS", "{v3:#}");
    let trial3 = run3.join(format!("cases/{CASE}/trial-1"));
    let bumped = std::fs::read_to_string(trial3.join("workspace-after/package.json")).unwrap();
    assert!(bumped.contains("\"version\": \"1.3.0\""), "{bumped}");
    let log3 = sandbox_logs(&run3);
    // One server for the case, every turn attached to it, all as sandbox commands.
    assert_eq!(log3.matches(" serve --port ").count(), 1, "{log3}");
    assert_eq!(log3.matches(" run --attach http://127.0.0.1:").count(), 2, "{log3}");
    assert!(!log3.contains("run --format json --title"), "no cold turn: {log3}");
    // The server is gone with its case.
    let left = serve_processes_of(dir);
    assert!(left.is_empty(), "opencode serve outlived its case: {left:?}");
    assert_eq!(&tree_digest(&dir.join("release-repo")), original);
}

/// The `opencode serve` processes still running for this test's sessions (their bwrap lines
/// bind inputs from `dir`): other tests of the binary run warm cases at the same time.
fn serve_processes_of(dir: &Path) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains("/sandbox/home/opencode-serve.sock") && c.contains(" serve "))
        .filter(|c| c.contains(dir.to_string_lossy().as_ref()))
        .collect()
}

fn verdict_of(run: &Path) -> serde_json::Value {
    trial_verdict(run, CASE)
}
