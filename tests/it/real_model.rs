//! End to end, offline: the real OpenCode CLI in bubblewrap uses its BUILT-IN `anthropic`
//! provider (no provider block in the job), with the key first from `sandbox.credentials.env`
//! and then only from an OpenCode login file staged through `opencode_auth: true`.
//!
//! api.anthropic.com is impersonated on loopback: the egress proxy's test-only resolver override
//! (`GHOSTLAB_TEST_EGRESS_RESOLVE`, read by the host-side proxy only) sends the allowed
//! `CONNECT api.anthropic.com:443` to a local TLS server (`fake_provider`) whose test CA the
//! sandbox trusts through `NODE_EXTRA_CA_CERTS`, set by this test through the job's
//! `env_allowlist` and an upload. The second built-in (`openai`, the small model) is resolved and
//! allowlisted; OpenCode never calls it in these runs (titles are suppressed). Its own wire
//! format end to end: `real_model_openai.rs`.
//!
//! Also: no credential → exit 2 within a second; a provider answering 401 → INFRA_ERROR naming
//! the provider, without retries.

use crate::common;
use crate::fake_provider::{FakeProvider, Mode, TestCa, Wire};
use crate::real_model_support::{
    ArgvSeen, agent_allowlists, files_containing, ghostlab, logs_of, prepared, resolve_override, run_case, set_harness,
};

use common::{PREPARE_RELEASE as CASE, opencode_bin, test_one_case_args, trial_verdict};
use ghostlab::llm::cassette::Cassette;
use ghostlab::llm::model_server::{ServerOptions, start};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ENV_CANARY: &str = "gl-canary-env-anthropic-5b1f0e77";
const OPENAI_CANARY: &str = "gl-canary-env-openai-0c4de291";
const LOGIN_CANARY: &str = "gl-canary-login-anthropic-93d2aa41";
const MODELS: (&str, &str) = ("anthropic/claude-sonnet-4-5", "openai/gpt-5-mini");
const CANARIES: &[&str] = &[ENV_CANARY, LOGIN_CANARY, OPENAI_CANARY];
const KEYS: &[(&str, &str)] = &[("ANTHROPIC_API_KEY", ENV_CANARY), ("OPENAI_API_KEY", OPENAI_CANARY)];

/// The impersonation below needs the egress resolver override, which only a build with the
/// `test-hooks` feature has (the crate's self dev-dependency turns it on for tests).
#[test]
fn the_test_build_has_the_egress_resolver_override() {
    // Checked when the tests compile: a test build without the feature does not build.
    const { assert!(ghostlab::sandbox::test_resolve::ENABLED) };
    assert_eq!(ghostlab::sandbox::test_resolve::VAR, "GHOSTLAB_TEST_EGRESS_RESOLVE");
}

/// What both runs share: the test CA, the scripted agent and the harness script's file.
struct Fixture {
    ca: TestCa,
    agent_script: PathBuf,
    harness_file: tempfile::NamedTempFile,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_anthropic_provider_with_env_key_then_with_opencode_login() {
    opencode_bin();
    let ca = match TestCa::generate(&["api.anthropic.com", "api.openai.com"]) {
        Ok(ca) => ca,
        Err(e) => return ghostlab::util::skip::skipped(&e),
    };
    let harness_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(harness_file.path(), crate::e2e_opencode::HARNESS_SCRIPT).unwrap();
    let fx = Fixture {
        ca,
        agent_script: common::repo().join("examples/release-bot/cassettes/agent.json"),
        harness_file,
    };
    key_from_the_environment(&fx).await;
    key_from_the_opencode_login_only(&fx).await;
}

/// Runs the case in `dir` against a fresh harness server, with `env` set.
async fn run_with_harness(
    fx: &Fixture,
    dir: &std::path::Path,
    env: Vec<(&'static str, String)>,
) -> (std::process::Output, PathBuf, ArgvSeen) {
    let harness = start(
        Cassette::load(fx.harness_file.path()).unwrap(),
        ServerOptions::default(),
    )
    .await
    .unwrap();
    set_harness(dir, &harness.base_url());
    let result = run_case(dir, env, CANARIES).await;
    harness.shutdown().await;
    result
}

/// Run 1: the key from `credentials.env`.
async fn key_from_the_environment(fx: &Fixture) {
    let (_tmp, dir) = prepared(
        &fx.ca,
        MODELS,
        "  credentials:\n    env: [ANTHROPIC_API_KEY, OPENAI_API_KEY]\n",
        "",
        KEYS,
    );
    let provider = FakeProvider::start(&fx.ca, Wire::Anthropic, &fx.agent_script, ENV_CANARY, Mode::Script).await;
    let env = vec![
        ("ANTHROPIC_API_KEY", ENV_CANARY.into()),
        ("OPENAI_API_KEY", OPENAI_CANARY.into()),
        ("GHOSTLAB_TEST_EGRESS_RESOLVE", resolve_override(provider.port)),
    ];
    let (out, run, (samples, opencode_seen, argv_hits)) = run_with_harness(fx, &dir, env).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v = trial_verdict(&run, CASE);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{stderr}\nverdict: {v:#}\nprovider saw: {:#?}\nunmatched: {:?}",
        provider.seen(),
        provider.unmatched()
    );
    assert_eq!(v["verdict"], "PASS", "{v:#}");
    assert_eq!(v["criteria"].as_array().unwrap().len(), 8);
    let seen = provider.seen();
    assert!(seen.len() >= 4, "{seen:#?}");
    for s in &seen {
        assert_eq!(s.path, "/v1/messages", "{s:?}");
        assert_eq!(s.api_key.as_deref(), Some(ENV_CANARY), "{s:?}");
    }
    assert!(provider.unmatched().is_empty(), "{:?}", provider.unmatched());
    assert!(
        seen.iter().any(|s| s.summary.contains("release_ci_status")),
        "{seen:#?}"
    );
    only_the_providers_hosts_were_reached(&logs_of(&run));
    assert!(
        samples > 10 && opencode_seen > 0,
        "argv sampling saw no agent run ({samples} samples)"
    );
    assert!(argv_hits.is_empty(), "a canary on an argv: {argv_hits:?}");
    for canary in [ENV_CANARY, OPENAI_CANARY] {
        assert_eq!(files_containing(&dir, canary), Vec::<PathBuf>::new(), "canary in files");
    }
    the_env_key_is_named_in_providers_and_report(&run);
}

/// Every agent session allowed the two built-in providers' hosts only; the impersonated one
/// was resolved by the test override; OpenCode's start-up install did not run.
fn only_the_providers_hosts_were_reached(logs: &str) {
    let lists = agent_allowlists(logs);
    assert!(!lists.is_empty(), "{logs}");
    for l in &lists {
        assert_eq!(l, "api.anthropic.com:443, api.openai.com:443", "{logs}");
    }
    assert!(logs.contains("egress TEST RESOLVE api.anthropic.com:443"), "{logs}");
    assert!(
        !logs.contains("registry.npmjs.org"),
        "OpenCode's start-up install still ran:\n{logs}"
    );
}

fn the_env_key_is_named_in_providers_and_report(run: &std::path::Path) {
    let providers: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("providers.json")).unwrap()).unwrap();
    assert_eq!(
        providers["credentials"][0]["kind"]["name"], "ANTHROPIC_API_KEY",
        "{providers:#}"
    );
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        report.contains("anthropic → api.anthropic.com:443 (default host of @ai-sdk/anthropic)"),
        "{report}"
    );
    assert!(
        report.contains("anthropic: environment variable ANTHROPIC_API_KEY"),
        "{report}"
    );
    assert!(report.contains("OpenCode auth mounted | false"), "{report}");
}

/// The user's OpenCode data folder with a login for anthropic, openai and an unused provider.
fn opencode_login() -> tempfile::TempDir {
    let user_data = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(user_data.path().join("opencode")).unwrap();
    std::fs::write(
        user_data.path().join("opencode/auth.json"),
        serde_json::json!({
            "anthropic": {"type": "api", "key": LOGIN_CANARY},
            "openai": {"type": "api", "key": OPENAI_CANARY},
            "groq": {"type": "api", "key": "gl-unused-provider-entry-1234"}
        })
        .to_string(),
    )
    .unwrap();
    user_data
}

/// Run 2: no key in the environment; only the user's OpenCode login, staged per session.
async fn key_from_the_opencode_login_only(fx: &Fixture) {
    let (_tmp2, dir2) = prepared(
        &fx.ca,
        MODELS,
        "  credentials:\n    opencode_auth: true\n",
        "  keep: true\n",
        KEYS,
    );
    let user_data = opencode_login();
    let provider2 = FakeProvider::start(&fx.ca, Wire::Anthropic, &fx.agent_script, LOGIN_CANARY, Mode::Script).await;
    let env = vec![
        ("XDG_DATA_HOME", user_data.path().to_string_lossy().into_owned()),
        ("GHOSTLAB_TEST_EGRESS_RESOLVE", resolve_override(provider2.port)),
    ];
    let (out, run2, (_, opencode_seen, argv_hits)) = run_with_harness(fx, &dir2, env).await;
    let v2 = trial_verdict(&run2, CASE);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}\nverdict: {v2:#}\nprovider saw: {:#?}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        provider2.seen()
    );
    assert_eq!(v2["verdict"], "PASS", "{v2:#}");
    let seen = provider2.seen();
    assert!(
        !seen.is_empty() && seen.iter().all(|s| s.api_key.as_deref() == Some(LOGIN_CANARY)),
        "{seen:#?}"
    );
    assert!(opencode_seen > 0 && argv_hits.is_empty(), "{argv_hits:?}");
    for canary in [LOGIN_CANARY, OPENAI_CANARY, "gl-unused-provider-entry-1234"] {
        assert_eq!(
            files_containing(&dir2, canary),
            Vec::<PathBuf>::new(),
            "canary in files"
        );
    }
    kept_sessions_hold_no_login(&logs_of(&run2));
    let report = std::fs::read_to_string(run2.join("report.md")).unwrap();
    assert!(report.contains("anthropic: OpenCode login (auth.json)"), "{report}");
    assert!(
        report.contains("OpenCode auth mounted | true (anthropic, openai for 1 session(s))"),
        "{report}"
    );
}

/// The session was kept (keep: true): its HOME is still there, its login file is not.
fn kept_sessions_hold_no_login(logs: &str) {
    let kept: Vec<PathBuf> = logs
        .lines()
        .filter_map(|l| l.split("KEPT at ").nth(1))
        .map(|rest| PathBuf::from(rest.split(" (keep").next().unwrap()))
        .collect();
    assert!(!kept.is_empty(), "{logs}");
    for k in &kept {
        assert!(k.is_dir(), "{}", k.display());
        let auth_files: Vec<_> = walkdir::WalkDir::new(k)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_name() == "auth.json")
            .map(|e| e.path().to_path_buf())
            .collect();
        assert!(auth_files.is_empty(), "login file left behind: {auth_files:?}");
        assert_eq!(files_containing(k, LOGIN_CANARY), Vec::<PathBuf>::new());
        let _ = std::fs::remove_dir_all(k);
    }
}

#[test]
fn without_a_credential_the_run_stops_in_under_a_second() {
    let ca = match TestCa::generate(&["api.anthropic.com"]) {
        Ok(ca) => ca,
        Err(e) => return ghostlab::util::skip::skipped(&e),
    };
    let (_tmp, dir) = prepared(&ca, MODELS, "", "", KEYS);
    let started = Instant::now();
    let out = ghostlab(&dir).args(test_one_case_args(CASE, false)).output().unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(took < Duration::from_secs(1), "took {took:?}");
    for needed in [
        "agent.runtime.model",
        "anthropic/claude-sonnet-4-5",
        "provider `anthropic`",
        "ANTHROPIC_API_KEY",
        "opencode auth login anthropic",
        "sandbox.credentials.env: [ANTHROPIC_API_KEY]",
        "sandbox.credentials.opencode_auth: true",
        "openai/gpt-5-mini",
    ] {
        assert!(stderr.contains(needed), "missing `{needed}` in:\n{stderr}");
    }
    assert!(
        !dir.join(".ghostlab/runs").exists() || std::fs::read_dir(dir.join(".ghostlab/runs")).unwrap().count() == 0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_answering_401_is_an_infra_error_naming_it() {
    opencode_bin();
    let ca = match TestCa::generate(&["api.anthropic.com", "api.openai.com"]) {
        Ok(ca) => ca,
        Err(e) => return ghostlab::util::skip::skipped(&e),
    };
    let agent_script = common::repo().join("examples/release-bot/cassettes/agent.json");
    let (_tmp, dir) = prepared(
        &ca,
        MODELS,
        "  credentials:\n    env: [ANTHROPIC_API_KEY, OPENAI_API_KEY]\n",
        "",
        KEYS,
    );
    let provider = FakeProvider::start(&ca, Wire::Anthropic, &agent_script, ENV_CANARY, Mode::Refuse(401)).await;
    let started = Instant::now();
    let (out, run, _) = run_case(
        &dir,
        vec![
            ("ANTHROPIC_API_KEY", ENV_CANARY.into()),
            ("OPENAI_API_KEY", OPENAI_CANARY.into()),
            ("GHOSTLAB_TEST_EGRESS_RESOLVE", resolve_override(provider.port)),
        ],
        CANARIES,
    )
    .await;
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = trial_verdict(&run, CASE);
    assert_eq!(v["verdict"], "INFRA_ERROR", "{v:#}");
    let reasons = v["reasons"].to_string();
    assert!(
        reasons.contains("model provider `anthropic` (api.anthropic.com) answered HTTP 401"),
        "{reasons}"
    );
    // One refused request: OpenCode did not retry, so nothing waited out a backoff (5xx and
    // refused connections are retried for ~74 s and would show here as several requests).
    assert_eq!(provider.seen().len(), 1, "{:#?}", provider.seen());
    // Wall-clock is only a loose bound: on a loaded shared machine a cold OpenCode start with
    // two MCP servers alone takes minutes.
    assert!(took < Duration::from_secs(400), "took {took:?}");
}

/// Step 3: the person's own OpenCode lists what they can use (without touching their OpenCode
/// data), and a headless `--model` outside that list fails with the list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_3_lists_the_users_opencode_models_and_refuses_another() {
    use ghostlab::lab::executors::{EndpointModels, PipelineGenerator};
    use ghostlab::lab::propose::StepProposer;
    use ghostlab::lab::seeds::Seeds;
    use ghostlab::lab::step::StepId;
    if std::env::var_os("GHOSTLAB_OPENCODE_BIN").is_none() {
        return ghostlab::util::skip::skipped("GHOSTLAB_OPENCODE_BIN is not set; Step 3 asks that OpenCode");
    }
    let home = std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let data = home.join(".local/share/opencode");
    let before = std::fs::metadata(&data).and_then(|m| m.modified()).ok();
    let dir = tempfile::tempdir().unwrap();
    let list = ghostlab::lab::usable_models::list_user_models(&opencode_bin(), dir.path())
        .await
        .unwrap();
    assert!(!list.is_empty(), "OpenCode lists its keyless provider at least");
    assert!(list.iter().all(|m| m.contains('/') && !m.contains(' ')), "{list:?}");
    assert_eq!(
        std::fs::metadata(&data).and_then(|m| m.modified()).ok(),
        before,
        "user data touched"
    );

    let proposer = StepProposer {
        job_file: dir.path().join("job.yaml"),
        seeds: Seeds {
            model: Some("nosuch-provider/never-model".into()),
            ..Seeds::default()
        },
        models: Arc::new(EndpointModels),
        generator: Arc::new(PipelineGenerator),
    };
    let err = proposer
        .propose(
            StepId::Model,
            None,
            ghostlab::spec::Job::default(),
            Default::default(),
            tokio_util::sync::CancellationToken::new(),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--model nosuch-provider/never-model") && err.contains(&list[0]),
        "{err}"
    );
}

/// A provider the static table does not know is resolved from OpenCode's own catalog, read
/// offline from the pinned binary (`opencode` Zen carries its URL there).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_provider_is_resolved_from_opencodes_catalog() {
    let bin = opencode_bin();
    let models = ghostlab::providers::catalog::lookup(&bin, "opencode").await.unwrap();
    let first = models.first().expect("the catalog lists opencode models").clone();
    assert!(!first.url.is_empty(), "{first:?}");
    let job = ghostlab::spec::LoadedJob {
        job: serde_json::from_value(
            serde_json::json!({"version": 1, "agent": {"id": "a", "runtime": {"model": first.id}}}),
        )
        .unwrap(),
        file: PathBuf::from("/x/job.yaml"),
        dir: PathBuf::from("/x"),
        mcps: Vec::new(),
    };
    let uses = ghostlab::providers::models_used(&job, None);
    let resolved = ghostlab::providers::endpoints::resolve(&job, None, &uses, Some(&bin))
        .await
        .unwrap();
    assert_eq!(resolved.len(), 1);
    let expected = ghostlab::spec::resolved::host_port(&first.url).unwrap();
    assert_eq!(resolved[0].hosts[0].to_string(), expected);
    assert_eq!(
        resolved[0].source,
        ghostlab::providers::EndpointSource::Catalog(first.url.clone())
    );
    // Without the binary the same job is refused with what to set instead.
    let err = ghostlab::providers::endpoints::resolve(&job, None, &uses, None)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("options.baseURL"), "{err}");
}
