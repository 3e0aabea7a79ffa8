//! End to end, offline: the real OpenCode CLI in bubblewrap on its BUILT-IN `openai` provider
//! (no provider block in the job), the key from `sandbox.credentials.env`. OpenCode 1.18.33
//! calls the OpenAI Responses API (`POST /v1/responses`, streamed), which the fake provider
//! speaks on a loopback TLS server the egress proxy's test-only resolver override sends
//! `api.openai.com:443` to (see `real_model.rs` for the mechanism).
//!
//! Also: the same provider answering HTTP 403 is reported as the provider refusing the
//! credential — not as a host the sandbox blocked (nothing was denied).

use crate::common;
use crate::fake_provider::{FakeProvider, Mode, TestCa, Wire};
use crate::real_model_support::{
    agent_allowlists, files_containing, logs_of, prepared, resolve_override, run_case, set_harness,
};

use common::{PREPARE_RELEASE as CASE, opencode_bin, trial_verdict};
use ghostlab::llm::cassette::Cassette;
use ghostlab::llm::model_server::{ServerOptions, start};
use std::path::PathBuf;

const CANARY: &str = "gl-canary-env-openai-e2e-7a3c51d0";
const MODELS: (&str, &str) = ("openai/gpt-4.1", "openai/gpt-4.1-mini");
const CREDENTIALS: &str = "  credentials:\n    env: [OPENAI_API_KEY]\n";

fn test_ca() -> Result<TestCa, String> {
    TestCa::generate(&["api.openai.com"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_openai_provider_on_the_responses_api_with_env_key() {
    opencode_bin();
    let ca = match test_ca() {
        Ok(ca) => ca,
        Err(e) => return ghostlab::util::skip::skipped(&e),
    };
    let agent_script = common::repo().join("examples/release-bot/cassettes/agent.json");
    let harness_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(harness_file.path(), crate::e2e_opencode::HARNESS_SCRIPT).unwrap();
    let (_tmp, dir) = prepared(&ca, MODELS, CREDENTIALS, "", &[("OPENAI_API_KEY", CANARY)]);
    let provider = FakeProvider::start(&ca, Wire::OpenAiResponses, &agent_script, CANARY, Mode::Script).await;
    let harness = start(Cassette::load(harness_file.path()).unwrap(), ServerOptions::default())
        .await
        .unwrap();
    set_harness(&dir, &harness.base_url());
    let (out, run, (samples, opencode_seen, argv_hits)) = run_case(
        &dir,
        vec![
            ("OPENAI_API_KEY", CANARY.into()),
            ("GHOSTLAB_TEST_EGRESS_RESOLVE", resolve_override(provider.port)),
        ],
        &[CANARY],
    )
    .await;
    harness.shutdown().await;
    let v = trial_verdict(&run, CASE);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}\nverdict: {v:#}\nprovider saw: {:#?}\nunmatched: {:?}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        provider.seen(),
        provider.unmatched()
    );
    // A real judged verdict: every criterion answered by the (scripted) judge.
    assert_eq!(v["verdict"], "PASS", "{v:#}");
    assert_eq!(v["criteria"].as_array().unwrap().len(), 8, "{v:#}");

    // The wire format OpenCode's built-in openai provider used, and the key it carried.
    let seen = provider.seen();
    assert!(seen.len() >= 4, "{seen:#?}");
    for s in &seen {
        assert_eq!(s.path, "/v1/responses", "{s:?}");
        assert_eq!(s.api_key.as_deref(), Some(CANARY), "{s:?}");
        for key in ["input", "stream", "model"] {
            assert!(s.keys.iter().any(|k| k == key), "no `{key}` in {s:?}");
        }
    }
    assert!(provider.unmatched().is_empty(), "{:?}", provider.unmatched());
    // The tool calls went round trip: the MCP tool's result, then the file read, then the edit.
    for tool in ["release_ci_status", "filesystem_read_text_file", "edit"] {
        assert!(
            seen.iter().any(|s| s.summary.contains(tool)),
            "no result of `{tool}` in {seen:#?}"
        );
    }
    let events = std::fs::read_to_string(run.join(format!("cases/{CASE}/trial-1/events.jsonl"))).unwrap();
    assert!(
        events.contains("\"tool\":\"edit\"") && events.contains("1.3.0"),
        "the agent's edit is not in the events:\n{events}"
    );

    // Exactly the provider's host was allowlisted, and reached through the override.
    let logs = logs_of(&run);
    let lists = agent_allowlists(&logs);
    assert!(!lists.is_empty(), "{logs}");
    for l in &lists {
        assert_eq!(l, "api.openai.com:443", "{logs}");
    }
    assert!(logs.contains("egress TEST RESOLVE api.openai.com:443"), "{logs}");
    assert!(!logs.contains("egress DENIED"), "{logs}");

    // The key: on no argv, in no file of the job folder (run folder, logs, generated config).
    assert!(
        samples > 10 && opencode_seen > 0,
        "argv sampling saw no agent run ({samples} samples)"
    );
    assert!(argv_hits.is_empty(), "the canary on an argv: {argv_hits:?}");
    assert_eq!(files_containing(&dir, CANARY), Vec::<PathBuf>::new(), "canary in files");

    // Provenance: the host with its reason, the credential's kind, no login mounted.
    let providers: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("providers.json")).unwrap()).unwrap();
    assert_eq!(
        providers["credentials"][0]["kind"]["name"], "OPENAI_API_KEY",
        "{providers:#}"
    );
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    for row in [
        "openai → api.openai.com:443 (default host of @ai-sdk/openai)",
        "openai: environment variable OPENAI_API_KEY",
        "OpenCode auth mounted | false",
    ] {
        assert!(report.contains(row), "missing `{row}` in:\n{report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_answering_403_is_a_credential_refusal_not_a_blocked_host() {
    opencode_bin();
    let ca = match test_ca() {
        Ok(ca) => ca,
        Err(e) => return ghostlab::util::skip::skipped(&e),
    };
    let agent_script = common::repo().join("examples/release-bot/cassettes/agent.json");
    let (_tmp, dir) = prepared(&ca, MODELS, CREDENTIALS, "", &[("OPENAI_API_KEY", CANARY)]);
    let provider = FakeProvider::start(&ca, Wire::OpenAiResponses, &agent_script, CANARY, Mode::Refuse(403)).await;
    let (out, run, _) = run_case(
        &dir,
        vec![
            ("OPENAI_API_KEY", CANARY.into()),
            ("GHOSTLAB_TEST_EGRESS_RESOLVE", resolve_override(provider.port)),
        ],
        &[CANARY],
    )
    .await;
    let v = trial_verdict(&run, CASE);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}\nverdict: {v:#}\nprovider saw: {:#?}\nlogs: {}",
        String::from_utf8_lossy(&out.stderr),
        provider.seen(),
        logs_of(&run)
    );
    assert_eq!(v["verdict"], "INFRA_ERROR", "{v:#}");
    let reasons = v["reasons"].to_string();
    assert!(
        reasons.contains("model provider `openai` (api.openai.com) answered HTTP 403")
            && reasons.contains("refused the credential"),
        "{reasons}\nprovider saw: {:#?}\nlogs: {}",
        provider.seen(),
        logs_of(&run)
    );
    assert!(!reasons.contains("network policy"), "{reasons}");
    assert_eq!(provider.seen().len(), 1, "{:#?}", provider.seen());
    assert_eq!(provider.seen()[0].api_key.as_deref(), Some(CANARY));
}
