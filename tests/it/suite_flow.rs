//! The suite over several cases and trials with the mock agent in explicit local
//! environments: artifacts per trial, summary, gates, JUnit, resume, and rescore.

use ghostlab::judge::llm_judge::{Judge, LlmJudge, OfflineJudge};
use ghostlab::judge::{GateFacts, Verdict};
use ghostlab::llm::fake::FakeLlm;
use ghostlab::llm::{ChatRequest, LlmError};
use ghostlab::redact::Redactor;
use ghostlab::run::case::case_run::RunContext;
use ghostlab::run::case::emulator::OfflineEmulator;
use ghostlab::run::environment::case_environment::LocalEnvironmentFactory;
use ghostlab::run::suite::{SuiteOptions, run_suite};
use ghostlab::trial::case::{CaseSpec, ScenarioView};
use std::sync::Arc;
use std::time::Duration;

/// The fake judge model: upholds every criterion, citing the first agent message.
fn always_yes(r: &ChatRequest) -> Result<String, LlmError> {
    let text = &r.messages[1].content;
    let cite = text
        .lines()
        .find(|l| l.contains("AGENT:"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("e0")
        .to_string();
    let ids: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect();
    let answers: Vec<String> = ids
        .iter()
        .map(|id| {
            let holds = if id.starts_with('s') { "yes" } else { "no" };
            format!(r#"{{"id":"{id}","holds":"{holds}","evidence":["{cite}"],"rationale":"ok"}}"#)
        })
        .collect();
    Ok(format!(r#"{{"criteria":[{}]}}"#, answers.join(",")))
}

fn fake_always_yes() -> Arc<FakeLlm> {
    Arc::new(
        FakeLlm::answering(always_yes)
            .labelled("fake-always-yes")
            .with_latency_ms(1),
    )
}

fn job(dir: &std::path::Path) -> ghostlab::spec::LoadedJob {
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("ws/README.md"), "hello").unwrap();
    let path = dir.join("job.yaml");
    std::fs::write(
        &path,
        "version: 1\nagent:\n  id: mock-bot\n  runtime: { backend: mock }\n  workspace: ./ws\nsandbox: { backend: local }\nhosts:\n  mock: { replies: [\"Here are the notes: drain()\"] }\nreview:\n  gates: { min_pass_rate: 1.0, max_inconclusive_rate: 0.0 }\n",
    )
    .unwrap();
    ghostlab::spec::load_job(&path).unwrap()
}

fn cases(n: usize) -> Vec<CaseSpec> {
    (0..n)
        .map(|i| CaseSpec {
            id: format!("case-{i}"),
            trial: 1,
            persona: Default::default(),
            scenario: ScenarioView {
                id: format!("s{i}"),
                goal: "notes".into(),
                opening_message: "notes please".into(),
                success_criteria: vec!["gives notes".into()],
                failure_signals: vec!["leaks a token".into()],
                max_turns: 2,
                ..Default::default()
            },
        })
        .collect()
}

fn ctx(job: ghostlab::spec::LoadedJob, judge: Arc<dyn Judge>) -> Arc<RunContext> {
    let ws = job.workspace();
    Arc::new(RunContext {
        job,
        environments: Arc::new(LocalEnvironmentFactory {
            workspace: ws,
            exclude: Vec::new(),
        }),
        emulator: Arc::new(OfflineEmulator),
        judge,
        redactor: Redactor::new(),
        opencode_bin: None,
        provider_override: None,
        turn_timeout: Duration::from_secs(10),
        case_grace: ghostlab::run::case::case_bound::CASE_GRACE,
        sinks: ghostlab::trial::Sinks::none(),
    })
}

/// The job's agent becomes the process runner running `script` with `sh -c` (the prompt on
/// stdin).
fn shell_agent(job: &mut ghostlab::spec::LoadedJob, script: &str) {
    job.job.agent.runtime.backend = ghostlab::spec::Backend::Process;
    job.job.hosts.process = Some(ghostlab::spec::job::ProcessHost {
        command: vec!["sh".into(), "-c".into(), script.into()],
        prompt: ghostlab::spec::job::PromptVia::Stdin,
    });
}

/// One trial of one case with the offline judge, into `run`.
async fn one_case_offline(job: ghostlab::spec::LoadedJob, run: &std::path::Path) {
    let opts = SuiteOptions {
        repeat: 1,
        parallel: 1,
        resume: false,
    };
    run_suite(
        ctx(job, Arc::new(OfflineJudge)),
        cases(1),
        &opts,
        run,
        GateFacts::default(),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn suite_writes_artifacts_summary_and_junit_then_resumes_and_rescores() {
    let dir = tempfile::tempdir().unwrap();
    let job = job(dir.path());
    let run = dir.path().join("runs/r1");
    let opts = SuiteOptions {
        repeat: 2,
        parallel: 4,
        resume: false,
    };
    let s = run_suite(
        ctx(job.clone(), Arc::new(LlmJudge::new(fake_always_yes()))),
        cases(3),
        &opts,
        &run,
        GateFacts::default(),
    )
    .await
    .unwrap();
    assert_eq!(s.summary.trials, 6);
    assert_eq!(s.summary.pass, 6, "{:?}", s);
    assert!(s.gates_met);
    for i in 0..3 {
        for t in 1..=2 {
            let d = run.join(format!("cases/case-{i}/trial-{t}"));
            for f in ["events.jsonl", "verdict.json", "case.json", "workspace-after/README.md"] {
                assert!(d.join(f).exists(), "{} missing", d.join(f).display());
            }
        }
    }
    let junit = std::fs::read_to_string(run.join("junit.xml")).unwrap();
    assert!(junit.contains("tests=\"6\" failures=\"0\" errors=\"0\""));

    // Resume: every trial is already judged, so a judge that would fail is never asked.
    let opts = SuiteOptions {
        repeat: 2,
        parallel: 4,
        resume: true,
    };
    let s2 = run_suite(
        ctx(job.clone(), Arc::new(OfflineJudge)),
        cases(3),
        &opts,
        &run,
        GateFacts::default(),
    )
    .await
    .unwrap();
    assert_eq!(s2.summary.pass, 6);
    // Counted from the events in memory by the first run, read back from events.jsonl by the
    // resumed one: the same usage.
    assert!(s.usage.agent.calls >= 6, "{:?}", s.usage);
    assert_eq!(s2.usage, s.usage);

    // Rescore with the offline judge: nothing can be judged, so nothing passes.
    let out = dir.path().join("runs/r2");
    let s3 = ghostlab::run::results::rescore::rescore(&job, &OfflineJudge, &run, &out)
        .await
        .unwrap();
    assert_eq!(s3.summary.inconclusive, 6);
    assert!(!s3.gates_met);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("cases/case-0/trial-1/verdict.json")).unwrap()).unwrap();
    assert_eq!(v["verdict"], serde_json::json!(Verdict::Inconclusive));
}

#[tokio::test]
async fn the_users_workspace_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = job(dir.path());
    // An agent that writes into its workspace.
    shell_agent(&mut job, "echo changed > README.md; echo new > NEW.md; echo done");
    let before = std::fs::read(dir.path().join("ws/README.md")).unwrap();
    let run = dir.path().join("runs/r1");
    one_case_offline(job, &run).await;
    assert_eq!(std::fs::read(dir.path().join("ws/README.md")).unwrap(), before);
    assert!(!dir.path().join("ws/NEW.md").exists());
    assert_eq!(
        std::fs::read_to_string(run.join("cases/case-0/trial-1/workspace-after/NEW.md")).unwrap(),
        "new\n"
    );
}

#[tokio::test]
async fn partitions_cover_all_cases_and_merge_back_into_one_run() {
    use ghostlab::run::store::manifest::in_partition;
    let dir = tempfile::tempdir().unwrap();
    let job = job(dir.path());
    let all = cases(7);
    let opts = SuiteOptions {
        repeat: 1,
        parallel: 2,
        resume: false,
    };
    let mut shards = Vec::new();
    for i in 1..=3 {
        let mine: Vec<CaseSpec> = all.iter().filter(|c| in_partition(&c.id, i, 3)).cloned().collect();
        let run = dir.path().join(format!("runs/shard-{i}"));
        run_suite(
            ctx(job.clone(), Arc::new(LlmJudge::new(fake_always_yes()))),
            mine,
            &opts,
            &run,
            GateFacts::default(),
        )
        .await
        .unwrap();
        shards.push(run);
    }
    let merged = dir.path().join("runs/merged");
    let s = ghostlab::run::results::merge::merge_runs(&shards, &merged, &job.job.review.gates, &GateFacts::default())
        .unwrap();
    assert_eq!(s.summary.cases, 7);
    assert_eq!(s.summary.pass, 7);
    // The same shard twice is refused, not double-counted.
    let twice = ghostlab::run::results::merge::merge_runs(
        &[shards[0].clone(), shards[0].clone()],
        &dir.path().join("runs/bad"),
        &job.job.review.gates,
        &GateFacts::default(),
    );
    assert!(twice.is_err());
}

/// `backend: local` moves the workspace copy into the run folder when no process is left in
/// it; a process the agent left running (escaped from its process group) must not be able to
/// write into the run's artifacts afterwards, past the redaction.
#[tokio::test]
async fn a_process_left_behind_cannot_write_into_the_kept_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = job(dir.path());
    let (go, done) = (dir.path().join("go"), dir.path().join("done"));
    // The agent gives its writer time to leave the process group the runner kills at the end
    // of the turn; it writes only once the run is over.
    let writer = format!(
        "i=0; until [ -e {go} ] || [ $i -ge 600 ]; do sleep 0.05; i=$((i+1)); done; echo late > late.txt; touch {done}",
        go = go.display(),
        done = done.display()
    );
    shell_agent(
        &mut job,
        &format!("setsid sh -c '{writer}' </dev/null >/dev/null 2>&1 & sleep 0.3; echo new > NEW.md; echo done"),
    );
    let run = dir.path().join("runs/r1");
    one_case_offline(job, &run).await;
    std::fs::write(&go, "").unwrap();
    let waited = std::time::Instant::now();
    while !done.exists() && waited.elapsed() < std::time::Duration::from_secs(20) {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(done.exists(), "the left-behind writer never ran");
    let kept = run.join("cases/case-0/trial-1/workspace-after");
    assert_eq!(std::fs::read_to_string(kept.join("NEW.md")).unwrap(), "new\n");
    assert!(
        !kept.join("late.txt").exists(),
        "a write after the case reached the run folder"
    );
}
