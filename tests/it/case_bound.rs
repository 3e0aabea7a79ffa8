//! The whole-case bound: an environment that stops answering in any phase after the agent's
//! commands (pulling results, fetching `sandbox.download` paths) ends the case as INFRA_ERROR
//! with the reason, within the bound, instead of a run that never finishes.

use futures::future::BoxFuture;
use ghostlab::judge::llm_judge::OfflineJudge;
use ghostlab::judge::{GateFacts, Verdict};
use ghostlab::redact::Redactor;
use ghostlab::run::case::case_run::RunContext;
use ghostlab::run::case::emulator::OfflineEmulator;
use ghostlab::run::environment::case_environment::{
    CaseEnvironment, EnvironmentError, EnvironmentFactory, LocalEnvironmentFactory, ServeLink, TransferError,
};
use ghostlab::run::environment::workspace_keep::KeepBy;
use ghostlab::run::suite::{SuiteOptions, run_suite};
use ghostlab::trial::case::{CaseSpec, ScenarioView};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq)]
enum Stuck {
    /// Never finishes bringing the workspace back.
    Pull,
    /// Never finishes a `sandbox.download` fetch.
    Fetch,
}

/// A FAKE environment: the explicit local one, except that one phase never answers.
struct FakeStuckEnvironments {
    inner: LocalEnvironmentFactory,
    stuck: Stuck,
}

struct FakeStuckEnvironment {
    inner: Box<dyn CaseEnvironment>,
    stuck: Stuck,
}

impl EnvironmentFactory for FakeStuckEnvironments {
    fn create<'a>(&'a self, case_id: &'a str) -> BoxFuture<'a, Result<Box<dyn CaseEnvironment>, EnvironmentError>> {
        Box::pin(async move {
            let inner = self.inner.create(case_id).await?;
            Ok(Box::new(FakeStuckEnvironment {
                inner,
                stuck: self.stuck,
            }) as Box<dyn CaseEnvironment>)
        })
    }
}

impl CaseEnvironment for FakeStuckEnvironment {
    fn backend(&self) -> String {
        self.inner.backend()
    }
    fn factory(&self) -> Arc<dyn ghostlab::run::environment::spawn::CommandFactory> {
        self.inner.factory()
    }
    fn workdir(&self) -> String {
        self.inner.workdir()
    }
    fn home(&self) -> String {
        self.inner.home()
    }
    fn home_host(&self) -> PathBuf {
        self.inner.home_host()
    }
    fn serve_link(&self) -> ServeLink {
        self.inner.serve_link()
    }
    fn config_dir_host(&self) -> PathBuf {
        self.inner.config_dir_host()
    }
    fn config_dir(&self) -> String {
        self.inner.config_dir()
    }
    fn map_path(&self, host: &Path) -> String {
        self.inner.map_path(host)
    }
    fn mcp_command(&self, server: &ghostlab::spec::resolved::ResolvedMcp) -> Option<Vec<String>> {
        self.inner.mcp_command(server)
    }
    fn final_workspace(&self) -> Option<PathBuf> {
        self.inner.final_workspace()
    }
    fn keep_final_workspace_by(&self) -> KeepBy {
        self.inner.keep_final_workspace_by()
    }
    fn denials(&self) -> Vec<ghostlab::run::environment::case_environment::EgressDenial> {
        self.inner.denials()
    }
    fn take_programs(&self) -> ghostlab::sandbox::watch_exec::CommandLog {
        self.inner.take_programs()
    }
    fn watch_fault(&self) -> Option<String> {
        self.inner.watch_fault()
    }
    fn scratch_dirs(&self) -> Vec<(String, PathBuf)> {
        self.inner.scratch_dirs()
    }
    fn push_prepared(&self) -> BoxFuture<'_, Result<(), TransferError>> {
        self.inner.push_prepared()
    }
    fn pull_results(&self) -> BoxFuture<'_, Result<(), TransferError>> {
        if self.stuck == Stuck::Pull {
            return Box::pin(std::future::pending());
        }
        self.inner.pull_results()
    }
    fn fetch<'a>(&'a self, inside: &'a str, local: &'a Path) -> BoxFuture<'a, Result<(), TransferError>> {
        if self.stuck == Stuck::Fetch {
            return Box::pin(std::future::pending());
        }
        self.inner.fetch(inside, local)
    }
    fn close(self: Box<Self>) -> BoxFuture<'static, ()> {
        self.inner.close()
    }
}

fn job(dir: &Path, extra_sandbox: &str) -> ghostlab::spec::LoadedJob {
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("ws/README.md"), "hello").unwrap();
    let path = dir.join("job.yaml");
    std::fs::write(
        &path,
        format!(
            "version: 1\nagent:\n  id: mock-bot\n  runtime: {{ backend: mock }}\n  workspace: ./ws\nsandbox: {{ backend: local{extra_sandbox} }}\nhosts:\n  mock: {{ replies: [\"done\"] }}\n"
        ),
    )
    .unwrap();
    ghostlab::spec::load_job(&path).unwrap()
}

fn one_case() -> Vec<CaseSpec> {
    vec![CaseSpec {
        id: "stuck".into(),
        trial: 1,
        persona: Default::default(),
        scenario: ScenarioView {
            id: "s".into(),
            goal: "notes".into(),
            opening_message: "notes please".into(),
            success_criteria: vec!["gives notes".into()],
            max_turns: 1,
            ..Default::default()
        },
    }]
}

/// Runs the case with a one-second turn timeout and grace: a bound of 1 + (2 + 2) * 1 = 5 s.
async fn run_stuck(stuck: Stuck, extra_sandbox: &str) -> (serde_json::Value, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let job = job(dir.path(), extra_sandbox);
    let ws = job.workspace();
    let ctx = Arc::new(RunContext {
        job,
        environments: Arc::new(FakeStuckEnvironments {
            inner: LocalEnvironmentFactory {
                workspace: ws,
                exclude: Vec::new(),
            },
            stuck,
        }),
        emulator: Arc::new(OfflineEmulator),
        judge: Arc::new(OfflineJudge),
        redactor: Redactor::new(),
        opencode_bin: None,
        provider_override: None,
        turn_timeout: Duration::from_secs(1),
        case_grace: Duration::from_secs(1),
        sinks: ghostlab::trial::Sinks::none(),
    });
    let run = dir.path().join("runs/r1");
    let opts = SuiteOptions {
        repeat: 1,
        parallel: 1,
        resume: false,
    };
    let started = Instant::now();
    let ran = tokio::time::timeout(
        Duration::from_secs(60),
        run_suite(ctx, one_case(), &opts, &run, GateFacts::default()),
    )
    .await
    .expect("the run ended within a minute")
    .unwrap();
    let took = started.elapsed();
    assert_eq!(ran.summary.infra_error, 1, "{ran:?}");
    assert_eq!(ran.summary.pass, 0);
    let verdict = std::fs::read_to_string(run.join("cases/stuck/trial-1/verdict.json")).unwrap();
    (serde_json::from_str(&verdict).unwrap(), took)
}

fn reason(v: &serde_json::Value) -> String {
    v.to_string()
}

#[tokio::test]
async fn an_environment_that_never_brings_results_back_ends_infra_error_at_the_bound() {
    let (v, took) = run_stuck(Stuck::Pull, "").await;
    assert_eq!(v["verdict"], serde_json::json!(Verdict::InfraError));
    let why = reason(&v);
    assert!(why.contains("did not finish within its bound of 5s"), "{why}");
    assert!(why.contains("talking to the agent"), "{why}");
    assert!(
        took >= Duration::from_secs(5) && took < Duration::from_secs(30),
        "{took:?}"
    );
}

#[tokio::test]
async fn a_download_that_never_ends_is_stopped_at_the_bound() {
    let (v, took) = run_stuck(Stuck::Fetch, ", download: [notes.md]").await;
    assert_eq!(v["verdict"], serde_json::json!(Verdict::InfraError));
    let why = reason(&v);
    assert!(why.contains("downloading `sandbox.download` paths"), "{why}");
    assert!(took < Duration::from_secs(30), "{took:?}");
}
