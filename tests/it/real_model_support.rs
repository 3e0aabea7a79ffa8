//! Shared by the real-model tests (`real_model.rs`, `real_model_openai.rs`): the release-bot
//! example moved onto built-in providers, its harness scripted, the case run while every
//! process's argv is sampled, and the searches for a canary in files and logs.

use crate::common;
use crate::fake_provider::TestCa;

use assert_cmd::Command;
use common::{PREPARE_RELEASE as CASE, copy_release_bot, newest_run, opencode_bin, test_one_case_args};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Where the test CA is uploaded inside the sandbox.
pub const CA_INSIDE: &str = "/sandbox/uploads/test-ca.pem";

/// Provider variables that must not leak in from the environment running the tests.
const PROVIDER_VARS: &[&str] = &["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "XDG_DATA_HOME"];

pub fn ghostlab(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("ghostlab").unwrap();
    c.current_dir(dir)
        .env("GHOSTLAB_OPENCODE_BIN", opencode_bin())
        .env("RELEASE_TOKEN", "x-token-value")
        .env("GHOSTLAB_LLM_ATTEMPTS", "1")
        .env("NODE_EXTRA_CA_CERTS", CA_INSIDE)
        .timeout(Duration::from_secs(600));
    for v in PROVIDER_VARS {
        c.env_remove(v);
    }
    c
}

/// The release-bot example with `model` for the agent and `small_model`, both built-in
/// providers; `credentials` is the YAML of `sandbox.credentials`. Cases are generated with
/// `keys` exported (generation does not call the agent's model).
pub fn prepared(
    ca: &TestCa,
    (model, small_model): (&str, &str),
    credentials: &str,
    extra_sandbox: &str,
    keys: &[(&str, &str)],
) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = tmp.path().join("release-bot");
    copy_release_bot(&dir);
    std::fs::copy(ca.ca_pem(), dir.join("test-ca.pem")).unwrap();
    // The contract the job's no_high_security_findings gate reads.
    common::discover(&dir);
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job)
        .unwrap()
        // discover (above) saved job.yaml again with every sandbox key written out; the
        // test's own `keep` replaces the default one.
        .replace(
            "  keep: false\n",
            if extra_sandbox.contains("keep:") { "" } else { "  keep: false\n" },
        )
        .replace("github-copilot/claude-sonnet-4.5", model)
        .replace("github-copilot/claude-haiku-4.5", small_model)
        .replace(
            "  processes: 256\n",
            &format!(
                "  processes: 256\n  env_allowlist: [NODE_EXTRA_CA_CERTS]\n  uploads:\n    - src: ./test-ca.pem\n{credentials}{extra_sandbox}"
            ),
        );
    assert!(text.contains(model) && text.contains("test-ca.pem"));
    std::fs::write(&job, text).unwrap();
    let mut generate = ghostlab(&dir);
    for (k, v) in keys {
        generate.env(k, v);
    }
    let out = generate.args(["generate", "--job", "job.yaml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (tmp, dir)
}

/// Points emulator and judge at a scripted local OpenAI-compatible server (recorded).
pub fn set_harness(dir: &Path, url: &str) {
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job).unwrap();
    let start = text.find("generation:").unwrap();
    let end = text.find("review:").unwrap();
    let roles = format!(
        "generation:\n  proposer: {{ provider: offline }}\n  emulator: {{ provider: record, model: scripted, base_url: \"{url}\", cassette: ./cassettes/harness.json }}\n  judge: {{ provider: record, model: scripted, base_url: \"{url}\", cassette: ./cassettes/harness.json }}\n"
    );
    let text = format!("{}{roles}{}", &text[..start], &text[end..]).replace("min_pass_rate: 0.8", "min_pass_rate: 1.0");
    std::fs::write(&job, text).unwrap();
}

/// What the argv sampling saw: samples taken, agent runs seen, argvs holding a needle.
pub type ArgvSeen = (usize, usize, Vec<String>);

/// Samples every process's argv while a run goes on; reports any that held `needles`.
struct ArgvWatch {
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<ArgvSeen>,
}

impl ArgvWatch {
    fn start(needles: &[&str]) -> ArgvWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let needles: Vec<String> = needles.iter().map(|s| s.to_string()).collect();
        let handle = std::thread::spawn(move || {
            let (mut samples, mut opencode_seen, mut hits) = (0usize, 0usize, Vec::new());
            while !flag.load(Ordering::Relaxed) {
                samples += 1;
                for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                    let Ok(bytes) = std::fs::read(e.path().join("cmdline")) else {
                        continue;
                    };
                    let argv = String::from_utf8_lossy(&bytes).replace('\0', " ");
                    if argv.contains("opencode") && argv.contains(" run ") {
                        opencode_seen += 1;
                    }
                    if needles.iter().any(|n| argv.contains(n.as_str())) {
                        hits.push(argv);
                    }
                }
                std::thread::sleep(Duration::from_millis(40));
            }
            (samples, opencode_seen, hits)
        });
        ArgvWatch { stop, handle }
    }

    fn finish(self) -> ArgvSeen {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap()
    }
}

pub fn files_containing(root: &Path, needle: &str) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            std::fs::read(e.path())
                .map(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
                .unwrap_or(false)
        })
        .map(|e| e.path().to_path_buf())
        .collect()
}

pub fn logs_of(run: &Path) -> String {
    std::fs::read_dir(run.join("logs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap_or_default())
        .collect()
}

/// The allowlists of every agent session, from the sandbox log.
pub fn agent_allowlists(logs: &str) -> Vec<String> {
    logs.lines()
        .filter(|l| l.contains(" session agent-") && l.contains(" created: "))
        .map(|l| {
            let from = l.find("network allowlist [").expect(l) + "network allowlist [".len();
            l[from..l[from..].find(']').unwrap() + from].to_string()
        })
        .collect()
}

/// The test-only resolver override sending both provider hosts to the fake on `port`.
pub fn resolve_override(port: u16) -> String {
    format!("api.anthropic.com:443=127.0.0.1:{port},api.openai.com:443=127.0.0.1:{port}")
}

/// Runs the one case with `envs` while sampling argv for `canaries`; returns the output, the
/// run folder and what the sampling saw.
pub async fn run_case(
    dir: &Path,
    envs: Vec<(&'static str, String)>,
    canaries: &[&str],
) -> (std::process::Output, PathBuf, ArgvSeen) {
    let watch = ArgvWatch::start(canaries);
    let d = dir.to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        let mut c = ghostlab(&d);
        for (k, v) in envs {
            c.env(k, v);
        }
        c.args(test_one_case_args(CASE, false)).output().unwrap()
    })
    .await
    .unwrap();
    let argv = watch.finish();
    (out, newest_run(dir), argv)
}
