//! Run-engine benchmarks (`cargo bench --bench harness`):
//! (a) harness overhead per turn: 1,000 cases × 5 turns with the mock agent, an instant fake
//!     emulator and an instant fake judge, explicit local environments (workspace copied per
//!     case) — turns per second;
//! (c) `--parallel` scaling: the emulator is a real OpenAI-compatible model server on
//!     127.0.0.1 that adds a fixed 100 ms to every answer; throughput at 1, 4, 16 and 64 as a
//!     fraction of ideal (P × the single-case rate), for a short run (2 waves of P cases, where
//!     the run's fixed start and end weigh) and a long one (8 waves: the steady state).
//! (d) keeping a case's final workspace in its trial folder: a 2,000-file workspace copied
//!     (masked) and its source then removed, against masked in place and renamed (what a
//!     `backend: local` case does), alternating in one run.
//! Fakes are named as such; no network beyond loopback. `GHOSTLAB_BENCH_PHASES=1` also prints,
//! per level, the median case's wall time and where the cases' time went.

use ghostlab::judge::GateFacts;
use ghostlab::judge::llm_judge::{Judge, LlmJudge};
use ghostlab::llm::cassette::Cassette;
use ghostlab::llm::fake::FakeLlm;
use ghostlab::llm::model_server::{ServerOptions, start};
use ghostlab::llm::{ChatRequest, Llm, LlmError};
use ghostlab::redact::Redactor;
use ghostlab::run::case::case_run::RunContext;
use ghostlab::run::case::emulator::{LlmEmulator, UserEmulator};
use ghostlab::run::environment::case_environment::LocalEnvironmentFactory;
use ghostlab::run::suite::{SuiteOptions, run_suite};
use ghostlab::trial::case::{CaseSpec, ScenarioView};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The fake model: "continue" to every emulator call, a full PASS to every judge call.
fn instant(r: &ChatRequest) -> Result<String, LlmError> {
    let judge = r.messages[0].content.starts_with("You judge");
    Ok(if judge {
        r#"{"criteria":[{"id":"s1","holds":"yes","evidence":["e3","e4"],"rationale":"ok"}]}"#.to_string()
    } else {
        r#"{"message":"And the next step?","status":"continue","refused":null}"#.to_string()
    })
}

fn job(dir: &std::path::Path) -> ghostlab::spec::LoadedJob {
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("ws/README.md"), "bench").unwrap();
    std::fs::write(
        dir.join("job.yaml"),
        "version: 1\nagent:\n  id: bench\n  runtime: { backend: mock }\n  workspace: ./ws\nsandbox: { backend: local }\nhosts:\n  mock: { replies: [\"done\"] }\n",
    )
    .unwrap();
    ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap()
}

fn cases(n: usize, turns: u32) -> Vec<CaseSpec> {
    (0..n)
        .map(|i| CaseSpec {
            id: format!("c{i:04}"),
            trial: 1,
            persona: Default::default(),
            scenario: ScenarioView {
                id: format!("s{i}"),
                goal: "g".into(),
                opening_message: "hi".into(),
                success_criteria: vec!["ok".into()],
                max_turns: turns,
                ..Default::default()
            },
        })
        .collect()
}

fn ctx(job: ghostlab::spec::LoadedJob, emulator: Arc<dyn UserEmulator>, judge: Arc<dyn Judge>) -> Arc<RunContext> {
    let ws = job.workspace();
    Arc::new(RunContext {
        job,
        environments: Arc::new(LocalEnvironmentFactory {
            workspace: ws,
            exclude: Vec::new(),
        }),
        emulator,
        judge,
        redactor: Redactor::new(),
        opencode_bin: None,
        provider_override: None,
        turn_timeout: Duration::from_secs(30),
        case_grace: ghostlab::run::case::case_bound::CASE_GRACE,
        sinks: ghostlab::trial::Sinks::none(),
    })
}

/// Where the cases' time went (from their timing events): the median case's wall time, the
/// summed phases, and the run's own time before its first and after its last event, so a slow
/// level shows whether the cases, the wait between them or the run's fixed ends grew.
fn case_times(
    run: &std::path::Path,
    began: chrono::DateTime<chrono::Utc>,
    ended: chrono::DateTime<chrono::Utc>,
) -> String {
    let (mut first, mut last) = (ended, began);
    let mut walls = Vec::new();
    let mut sum = ghostlab::report::timing::Timing::default();
    for trial in ghostlab::run::store::run_dir::RunDir::new(run).trials() {
        let events = trial.read_events().unwrap_or_default();
        for e in [events.first(), events.last()].into_iter().flatten() {
            first = first.min(e.ts);
            last = last.max(e.ts);
        }
        if let Some(t) = ghostlab::report::timing::Timing::from_envelopes(&events) {
            sum.add(&t);
        }
        walls.extend(events.iter().find_map(|e| match e.event {
            ghostlab::trial::RunEvent::CaseFinished { duration_ms, .. } => Some(duration_ms),
            _ => None,
        }));
    }
    walls.sort_unstable();
    let median = walls.get(walls.len() / 2).copied().unwrap_or(0);
    let n = walls.len().max(1) as u64;
    format!(
        "case wall median {median} ms, max {} ms; run start {} ms, run end {} ms; per case: sandbox {} ms, user {} ms, agent {} ms, judge {} ms",
        walls.last().copied().unwrap_or(0),
        (first - began).num_milliseconds(),
        (ended - last).num_milliseconds(),
        sum.sandbox_ms / n,
        sum.user_ms / n,
        (sum.model_ms + sum.tools_ms + sum.agent_start_ms) / n,
        sum.judge_ms / n
    )
}

async fn timed(c: Arc<RunContext>, n: usize, turns: u32, parallel: usize, dir: &std::path::Path) -> (f64, usize) {
    let run = dir.join(format!("runs/p{parallel}-{}", rand::random::<u32>()));
    let opts = SuiteOptions {
        repeat: 1,
        parallel,
        resume: false,
    };
    let (t, began) = (Instant::now(), chrono::Utc::now());
    let s = run_suite(c, cases(n, turns), &opts, &run, GateFacts::default())
        .await
        .unwrap();
    let ended = chrono::Utc::now();
    assert_eq!(s.summary.pass, n, "bench cases must pass: {:?}", s.summary);
    let secs = t.elapsed().as_secs_f64();
    if std::env::var_os("GHOSTLAB_BENCH_PHASES").is_some() {
        println!("      {}", case_times(&run, began, ended));
    }
    (secs, n * turns as usize)
}

/// A final workspace of `files` small source files in 40 folders, one of them holding a secret.
fn workspace_tree(root: &std::path::Path, files: usize) {
    for i in 0..files {
        let dir = root.join(format!("src/m{:02}", i % 40));
        std::fs::create_dir_all(&dir).unwrap();
        let body = format!("// file {i}\n{}\n", "fn f() -> u32 { 42 }\n".repeat(80));
        std::fs::write(dir.join(format!("f{i:04}.rs")), body).unwrap();
    }
    std::fs::write(root.join("src/.env"), "TOKEN=bench-secret-value-123\n").unwrap();
}

/// (d): seconds to keep the workspace and then remove what is left of the environment.
fn keep_once(scratch: &std::path::Path, round: usize, files: usize, movable: bool) -> f64 {
    let env_root = scratch.join(format!("env-{round}-{movable}"));
    let ws = env_root.join("workspace");
    workspace_tree(&ws, files);
    let trial = scratch.join(format!("trial-{round}-{movable}"));
    std::fs::create_dir_all(&trial).unwrap();
    let mut redactor = Redactor::new();
    redactor.add_secret("bench-secret-value-123");
    let t = Instant::now();
    let by = if movable {
        ghostlab::run::environment::workspace_keep::KeepBy::Move {
            processes_may_remain: false,
        }
    } else {
        ghostlab::run::environment::workspace_keep::KeepBy::Copy
    };
    let kept = ghostlab::run::store::run_dir::TrialDir::at(&trial).keep_workspace(&ws, &redactor, by);
    std::fs::remove_dir_all(&env_root).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let kept = kept.expect("the workspace is kept");
    assert!(
        !std::fs::read_to_string(kept.join("src/.env"))
            .unwrap()
            .contains("bench-secret")
    );
    std::fs::remove_dir_all(&trial).unwrap();
    secs
}

fn keep_workspace_bench(rounds: usize, files: usize) {
    let scratch = tempfile::tempdir().unwrap();
    let (mut copied, mut moved) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        // Alternating which goes first, so neither always meets the other's removals.
        let first_moves = round % 2 == 1;
        for movable in [first_moves, !first_moves] {
            let secs = keep_once(scratch.path(), round, files, movable);
            if movable { moved.push(secs) } else { copied.push(secs) }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (c, m) = (median(&mut copied), median(&mut moved));
    println!(
        "(d) keeping a {files}-file final workspace, median of {rounds}: copied {:.1} ms, moved {:.1} ms = {:.2}x",
        c * 1000.0,
        m * 1000.0,
        m / c
    );
}

fn main() {
    // `cargo bench` passes --bench; under `cargo test --all-targets` this runs as a small smoke.
    let full = std::env::args().any(|a| a == "--bench");
    let (n_a, levels, waves): (usize, &[usize], &[usize]) = if full {
        (1000, &[1, 4, 16, 64], &[2, 8])
    } else {
        (20, &[1, 4], &[2])
    };
    let rt = ghostlab::util::runtime::multi_thread().unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let job = job(dir.path());
        let fake: Arc<dyn Llm> = Arc::new(FakeLlm::answering(instant).labelled("fake-instant"));
        let (secs, turns) = timed(ctx(job.clone(), Arc::new(LlmEmulator::new(fake.clone())), Arc::new(LlmJudge::new(fake.clone()))), n_a, 5, 8, dir.path()).await;
        println!("(a) harness overhead: {n_a} cases x 5 turns, parallel 8: {secs:.2} s, {:.0} turns/s, {:.3} ms per turn", turns as f64 / secs, secs * 1000.0 / turns as f64);

        let script = r#"{"version":1,"entries":[],"script":[{"when":{"system_contains":"You are talking"},"reply":{"text":"{\"message\":\"next\",\"status\":\"continue\",\"refused\":null}"}}]}"#;
        let path = dir.path().join("emulator.json");
        std::fs::write(&path, script).unwrap();
        let server = start(Cassette::load(&path).unwrap(), ServerOptions { port: 0, latency: Duration::from_millis(100) }).await.unwrap();
        let role = ghostlab::spec::ModelRole { provider: ghostlab::spec::ModelProvider::Openai, model: Some("scripted".into()), base_url: Some(server.base_url()), ..Default::default() };
        let slow = ghostlab::llm::from_role(&role, dir.path()).unwrap();
        println!("(c) parallel scaling, emulator behind a model server adding 100 ms per answer, 3 turns per case:");
        for &w in waves {
            let mut base = None;
            for &p in levels {
                let n = (p * w).max(8);
                let (secs, _) = timed(ctx(job.clone(), Arc::new(LlmEmulator::new(slow.clone())), Arc::new(LlmJudge::new(fake.clone()))), n, 3, p, dir.path()).await;
                let rate = n as f64 / secs;
                let single = *base.get_or_insert(rate);
                println!("    {w} waves, parallel {p:>2}: {n:>3} cases in {secs:6.2} s = {rate:6.2} cases/s, {:.2} of ideal ({p} x single)", rate / (single * p as f64));
            }
        }
        server.shutdown().await;
    });
    if full {
        keep_workspace_bench(9, 2000)
    } else {
        keep_workspace_bench(2, 100)
    }
}
