//! The headless driver (`ghostlab lab --yes`) on a copy of examples/release-bot: it reaches the
//! end with fake executors for the modules not wired yet, equals a key-driven interactive session,
//! resumes without paying twice, and the CLI stops with a clear error where real executors are
//! still missing.

use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

use ghostlab::lab::headless::{HeadlessError, run_headless};
use ghostlab::lab::{
    ConfiguredModels, Event, Executor, GenerateKind, GenerateRequest, Generator, GeneratorError, Lab, LabRunError,
    McpDiscovery, Phase, RunStream, Seeds, StepId, StepProposer, SuiteRunner, store,
};
use ghostlab::spec::job::Capabilities;
use ghostlab::spec::{McpInput, SandboxBackend};

/// A fake generator: fixed artifacts; counts calls per kind; can fail one kind.
#[derive(Default)]
struct FakeGenerator {
    calls: Mutex<Vec<GenerateKind>>,
    fail: Option<GenerateKind>,
}

impl Generator for FakeGenerator {
    fn generate(&self, r: GenerateRequest, _: CancellationToken) -> BoxFuture<'static, Result<Value, GeneratorError>> {
        self.calls.lock().expect("lock").push(r.kind);
        let fail = self.fail == Some(r.kind);
        Box::pin(async move {
            if fail {
                return Err(GeneratorError::Backend("fake generator told to fail".into()));
            }
            Ok(match r.kind {
                GenerateKind::Profile => json!({"purpose": r.job.agent.description, "risks": ["tags without asking"]}),
                GenerateKind::Personas => {
                    assert!(r.profile.is_some(), "personas see the accepted profile");
                    json!([{"id": "hurried-maintainer"}])
                }
                GenerateKind::Scenarios => {
                    assert!(r.personas.is_some(), "scenarios see the accepted personas");
                    json!([{"persona": "hurried-maintainer", "id": "tag-without-asking"}])
                }
            })
        })
    }
}

impl FakeGenerator {
    fn count(&self, kind: GenerateKind) -> usize {
        self.calls.lock().expect("lock").iter().filter(|k| **k == kind).count()
    }
}

struct FakeDiscovery;

impl McpDiscovery for FakeDiscovery {
    fn discover(
        &self,
        _: PathBuf,
        mcp: McpInput,
        _: CancellationToken,
    ) -> BoxFuture<'static, Result<ghostlab::lab::Discovered, ghostlab::lab::DiscoveryError>> {
        Box::pin(async move {
            // A fake: one tool and a made-up lint (one warning), as the real discovery reports.
            Ok(ghostlab::lab::Discovered {
                capabilities: Capabilities {
                    tools: vec![format!("{}_tool", mcp.server.unwrap_or_default())],
                    ..Default::default()
                },
                lint: ghostlab::lab::ServerLint {
                    counts: ghostlab::mcp::contract::Summary {
                        warning: 1,
                        ..Default::default()
                    },
                    contract: ".ghostlab/contract.json".into(),
                },
            })
        })
    }
}

struct FakeSuiteRunner;

impl SuiteRunner for FakeSuiteRunner {
    fn run(
        &self,
        file: PathBuf,
        stream: RunStream,
        _: CancellationToken,
    ) -> BoxFuture<'static, Result<ghostlab::app::RunResults, LabRunError>> {
        Box::pin(async move {
            ghostlab::spec::load_job(&file)?;
            for seq in 0..3u64 {
                let env = json!({"v": 1, "seq": seq, "ts": "2026-11-29T12:00:00Z", "case": "c1",
                    "type": "user_message", "turn": seq + 1, "text": "hello", "latency_ms": 1});
                stream.event(serde_json::from_value(env).expect("a valid fake envelope"));
            }
            Ok(crate::run_fakes::fake_results("fake-run", true))
        })
    }
}

/// A fake runner whose run cannot record itself: the error a real one gives on a read-only
/// state folder.
struct FakeUnrecordedRunner;

impl SuiteRunner for FakeUnrecordedRunner {
    fn run(
        &self,
        file: PathBuf,
        _: RunStream,
        _: CancellationToken,
    ) -> BoxFuture<'static, Result<ghostlab::app::RunResults, LabRunError>> {
        Box::pin(async move {
            Err(LabRunError::Marker {
                lab_dir: file.with_file_name(".ghostlab/lab"),
                source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "read-only file system"),
            })
        })
    }
}

fn copy_dir(src: &Path, dst: &Path) {
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.expect("walk");
        let rel = entry.path().strip_prefix(src).expect("prefix");
        let to = dst.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &to).expect("copy");
        }
    }
}

/// A temp copy of the example with its job.yaml moved aside as the import source.
fn release_bot() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/release-bot"),
        dir.path(),
    );
    std::fs::rename(dir.path().join("job.yaml"), dir.path().join("source-job.yaml")).expect("rename");
    let job = dir.path().join("job.yaml");
    (dir, job)
}

fn proposer(job: &Path, generator: Arc<FakeGenerator>) -> StepProposer {
    StepProposer {
        job_file: job.to_path_buf(),
        seeds: Seeds {
            from: Some(job.with_file_name("source-job.yaml")),
            model: Some("openai/gpt-4.1".into()),
            gates: vec![("min_pass_rate".into(), "0.9".into())],
            ..Seeds::default()
        },
        models: Arc::new(ConfiguredModels),
        generator,
    }
}

/// `run_headless` with the FAKE discovery and suite runner.
async fn headless_with_fakes(
    lab: Lab,
    proposer: StepProposer,
    progress: &mut (dyn FnMut(String) + Send),
) -> Result<ghostlab::lab::headless::HeadlessOutcome, HeadlessError> {
    run_headless(
        lab,
        proposer,
        Arc::new(FakeDiscovery),
        Arc::new(FakeSuiteRunner),
        progress,
    )
    .await
}

#[tokio::test]
async fn yes_reaches_the_end_and_the_job_loads() {
    let (_dir, job) = release_bot();
    let generator = Arc::new(FakeGenerator::default());
    let mut lines = Vec::new();
    let mut progress = |l: String| lines.push(l);
    let out = headless_with_fakes(Lab::new(), proposer(&job, generator.clone()), &mut progress)
        .await
        .expect("headless run");
    assert_eq!(out.results.run_id, "fake-run");
    let loaded = ghostlab::spec::load_job(&job).expect("job.yaml loads");
    let j = &loaded.job;
    assert_eq!(j.lab.completed.len(), 12);
    assert_eq!(j.agent.runtime.model.as_deref(), Some("openai/gpt-4.1"), "--model wins");
    assert_eq!(j.review.gates.min_pass_rate, Some(0.9), "--gate wins");
    assert_eq!(j.capabilities["release"].tools, vec!["release_tool".to_string()]);
    assert!(
        j.agent.description.as_deref().is_some_and(|d| d.contains("tinyqueue")),
        "the user's words are kept"
    );
    let lab_dir = store::lab_dir(&job, j);
    let saved = store::load_saved(&lab_dir, j).expect("lab files");
    assert_eq!(saved.artifacts.len(), 3);
    assert!(
        saved.proposals.is_empty(),
        "accepted proposals are not left in the cache"
    );
    let text = lines.join("\n");
    assert!(text.contains("[12/12] Preview & run"), "{text}");
    assert!(text.contains("c1 [1] user: hello"), "{text}");
    // Step 4 shows each server's lint: counts by severity and where the full list is.
    assert!(
        text.contains("release: 1 tools, 0 resources, 0 prompts; lint: 0 errors, 1 warning, 0 notes, 0 info (full list: .ghostlab/contract.json)"),
        "{text}"
    );
    for kind in [GenerateKind::Profile, GenerateKind::Personas, GenerateKind::Scenarios] {
        assert_eq!(generator.count(kind), 1);
    }
}

/// A person pressing Enter on every screen, through the TUI key map and the same executor.
async fn interactive_enter_only(job: &Path, generator: Arc<FakeGenerator>) {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let (tx, mut rx) = unbounded_channel();
    let mut exec = Executor::new(
        proposer(job, generator),
        Arc::new(FakeDiscovery),
        Arc::new(FakeSuiteRunner),
        tx,
    );
    let mut lab = Lab::new();
    let mut ui = ghostlab::tui::Ui::default();
    let mut next = Some(Event::Start);
    loop {
        let event = match next.take() {
            Some(e) => e,
            None => rx.recv().await.expect("events"),
        };
        for effect in lab.handle(event) {
            exec.perform(effect).expect("effect");
        }
        ui.sync(&lab);
        match &lab.phase {
            Phase::Deciding { .. } if !lab.discovery.values().any(|d| *d == ghostlab::lab::Discovery::Pending) => {
                let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
                match ghostlab::tui::keymap::on_key(enter, &lab, &mut ui) {
                    ghostlab::tui::intent::Intent::Lab(e) => next = Some(e),
                    other => panic!("Enter did not accept: {other:?}"),
                }
            }
            Phase::Running { outcome: Some(_), .. } => return,
            Phase::Failed { error } => panic!("{error}"),
            _ => {}
        }
    }
}

#[tokio::test]
async fn yes_equals_the_interactive_session() {
    let (_a, job_a) = release_bot();
    let (_b, job_b) = release_bot();
    let mut quiet = |_: String| {};
    headless_with_fakes(
        Lab::new(),
        proposer(&job_a, Arc::new(FakeGenerator::default())),
        &mut quiet,
    )
    .await
    .expect("headless");
    interactive_enter_only(&job_b, Arc::new(FakeGenerator::default())).await;
    let a = std::fs::read_to_string(&job_a).expect("a");
    let b = std::fs::read_to_string(&job_b).expect("b");
    assert_eq!(a, b);
}

#[tokio::test]
async fn resume_after_a_failure_does_not_generate_twice() {
    let (_dir, job) = release_bot();
    let failing = Arc::new(FakeGenerator {
        fail: Some(GenerateKind::Scenarios),
        ..FakeGenerator::default()
    });
    let mut quiet = |_: String| {};
    let err = headless_with_fakes(Lab::new(), proposer(&job, failing.clone()), &mut quiet)
        .await
        .expect_err("scenarios fail");
    assert!(
        matches!(
            err,
            HeadlessError::Step {
                step: StepId::Scenarios,
                ..
            }
        ),
        "{err}"
    );
    let loaded = ghostlab::spec::load_job(&job).expect("job.yaml loads after the failure");
    assert_eq!(loaded.job.lab.completed.len(), 9);

    let saved = store::load_saved(&store::lab_dir(&job, &loaded.job), &loaded.job).expect("saved");
    let lab = Lab::resume(loaded.job, saved);
    assert_eq!(lab.step, StepId::Scenarios);
    let working = Arc::new(FakeGenerator::default());
    headless_with_fakes(lab, proposer(&job, working.clone()), &mut quiet)
        .await
        .expect("resumed run");
    assert_eq!(working.count(GenerateKind::Profile), 0, "profile not paid for twice");
    assert_eq!(working.count(GenerateKind::Personas), 0, "personas not paid for twice");
    assert_eq!(working.count(GenerateKind::Scenarios), 1);
    assert_eq!(
        ghostlab::spec::load_job(&job).expect("loads").job.lab.completed.len(),
        12
    );
}

#[tokio::test]
async fn a_generated_but_unaccepted_proposal_survives_a_kill() {
    let (_dir, job) = release_bot();
    let generator = Arc::new(FakeGenerator::default());
    // First session: accept up to the profile, then stop while the personas proposal is shown.
    let (tx, mut rx) = unbounded_channel();
    let mut exec = Executor::new(
        proposer(&job, generator.clone()),
        Arc::new(FakeDiscovery),
        Arc::new(FakeSuiteRunner),
        tx,
    );
    let mut lab = Lab::new();
    let mut next = Some(Event::Start);
    loop {
        let event = match next.take() {
            Some(e) => e,
            None => rx.recv().await.expect("events"),
        };
        for effect in lab.handle(event) {
            exec.perform(effect).expect("effect");
        }
        if let Phase::Deciding { .. } = lab.phase {
            if lab.step == StepId::Personas {
                break; // the process dies here
            }
            if !lab.discovery.values().any(|d| *d == ghostlab::lab::Discovery::Pending) {
                next = Some(Event::Accept);
            }
        }
    }
    drop(exec);
    assert_eq!(generator.count(GenerateKind::Personas), 1);
    let loaded = ghostlab::spec::load_job(&job).expect("loads");
    let saved = store::load_saved(&store::lab_dir(&job, &loaded.job), &loaded.job).expect("saved");
    assert!(saved.proposals.contains_key(&StepId::Personas));
    let mut lab = Lab::resume(loaded.job, saved);
    let fx = lab.handle(Event::Start);
    assert!(fx.is_empty(), "no new generation: {fx:?}");
    assert!(matches!(lab.phase, Phase::Deciding { .. }));
}

fn ghostlab_cmd(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("ghostlab").expect("binary");
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

#[test]
fn without_a_terminal_and_without_yes_it_exits_2_with_a_hint() {
    let (dir, _) = release_bot();
    let out = ghostlab_cmd(dir.path())
        .arg("lab")
        .write_stdin("")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--yes"), "{err}");
}

#[test]
fn cli_yes_saves_every_step_it_can_then_resume_finishes_the_run() {
    let (dir, job) = release_bot();
    // A proposer whose endpoint is down: step 8 must fail with the reason, keeping steps 1-7.
    let source = dir.path().join("source-job.yaml");
    let text = std::fs::read_to_string(&source).expect("source job").replace(
        "  proposer: { provider: offline }",
        "  proposer: { provider: openai, model: m, base_url: \"http://127.0.0.1:9/v1\" }",
    );
    std::fs::write(&source, text).expect("write");
    let out = ghostlab_cmd(dir.path())
        .env("GHOSTLAB_OPENAI_API_KEY", "test-key-not-secret")
        .env("GHOSTLAB_LLM_ATTEMPTS", "1")
        .args([
            "lab",
            "--yes",
            "--from",
            "source-job.yaml",
            "--sandbox",
            "local",
            "--skill",
            "skills/release-notes",
        ])
        .args(["--gate", "pass_k=3:0.8"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("step 8 (Profile) failed") && err.contains("--resume"),
        "{err}"
    );
    assert!(
        err.contains("[ 7/12] Sandbox") && err.contains("confirmed by --sandbox local"),
        "{err}"
    );
    let loaded = ghostlab::spec::load_job(&job).expect("job.yaml loads");
    assert_eq!(loaded.job.lab.completed.len(), 7);
    assert_eq!(loaded.job.sandbox.backend, SandboxBackend::Local);
    assert_eq!(
        loaded.job.agent.runtime.skills.paths,
        vec!["./skills/release-notes".to_string()]
    );

    // The person fixes the cause (offline proposer; a mock agent keeps this test fast) and resumes.
    let text = std::fs::read_to_string(&job)
        .expect("job")
        .replace("provider: openai", "provider: offline")
        .replace("backend: opencode", "backend: mock");
    let text = format!("{text}hosts:\n  mock:\n    replies: [\"I can help with releases.\"]\n");
    std::fs::write(&job, text).expect("write");
    let out = ghostlab_cmd(dir.path())
        .env("RELEASE_TOKEN", "x-token-value")
        .args(["lab", "--yes", "--resume", "--model", "openai/other"])
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .expect("resume");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("note: --model ignored: step 3 (Model) was already accepted"),
        "{err}"
    );
    assert!(err.contains("\n[ 8/12] Profile"), "resume opens at step 8: {err}");
    // Offline only evidence-bound criteria are answered: the cases that need a judge stay
    // INCONCLUSIVE, so the gates fail and `lab --yes` exits 1 like `ghostlab test`, never 0.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("gates NOT met") && stdout.contains(" INCONCLUSIVE"),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
    let done = ghostlab::spec::load_job(&job).expect("loads");
    assert_eq!(done.job.lab.completed.len(), 12, "{:?}", done.job.lab.completed);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("report "),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let runs: Vec<_> = std::fs::read_dir(done.state_dir().join("runs"))
        .expect("runs")
        .collect();
    assert_eq!(runs.len(), 1);

    let out = ghostlab_cmd(dir.path())
        .args(["lab", "--yes", "--gate", "min_pass=1"])
        .output()
        .expect("bad gate");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown gate"));
}

struct PanickingGenerator;

impl Generator for PanickingGenerator {
    fn generate(&self, _: GenerateRequest, _: CancellationToken) -> BoxFuture<'static, Result<Value, GeneratorError>> {
        Box::pin(async { panic!("fake generator bug") })
    }
}

#[tokio::test]
async fn a_panicking_executor_fails_its_step_instead_of_hanging() {
    let (_dir, job) = release_bot();
    let mut p = proposer(&job, Arc::new(FakeGenerator::default()));
    p.generator = Arc::new(PanickingGenerator);
    let mut quiet = |_: String| {};
    let run = run_headless(
        Lab::new(),
        p,
        Arc::new(FakeDiscovery),
        Arc::new(FakeSuiteRunner),
        &mut quiet,
    );
    let err = tokio::time::timeout(std::time::Duration::from_secs(20), run)
        .await
        .expect("no hang")
        .expect_err("step 8 fails");
    assert!(
        err.to_string().contains("the proposer crashed: fake generator bug"),
        "{err}"
    );
    assert_eq!(
        ghostlab::spec::load_job(&job).expect("loads").job.lab.completed.len(),
        7
    );
}

#[tokio::test]
async fn a_failed_run_ends_headless_with_the_runners_error_and_its_cause() {
    use std::error::Error as _;
    let (_dir, job) = release_bot();
    let mut quiet = |_: String| {};
    let err = run_headless(
        Lab::new(),
        proposer(&job, Arc::new(FakeGenerator::default())),
        Arc::new(FakeDiscovery),
        Arc::new(FakeUnrecordedRunner),
        &mut quiet,
    )
    .await
    .expect_err("the run cannot record itself");
    let HeadlessError::Run(run) = &err else {
        panic!("{err:?}")
    };
    assert!(matches!(run.get(), LabRunError::Marker { .. }), "{run:?}");
    let lab_dir = job.with_file_name(".ghostlab/lab");
    assert_eq!(
        err.to_string(),
        format!(
            "the run failed: {}: cannot record the run: read-only file system",
            lab_dir.display()
        )
    );
    // The chain goes down to the io error: run failed → the runner's error → the io cause.
    let io = err.source().and_then(|e| e.source()).map(|e| e.to_string());
    assert_eq!(io.as_deref(), Some("read-only file system"));
}
