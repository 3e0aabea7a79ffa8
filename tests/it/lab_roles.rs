//! Ghostlab's own roles on real wire formats: the hint of "regenerate with hint" reaches the
//! proposer's request, and a full `lab --yes --proposer-model … --emulator-model …
//! --judge-model …` on the bundled example runs against scripted Anthropic and OpenAI servers
//! (profile, personas and scenarios are the scripted text, the emulator talks, the judge answers
//! every criterion, verdicts include PASS and FAIL, exit 1 when a gate fails).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ghostlab::generate::{OfflineProposer, PersonaSet, Proposer as _, ScenarioSet};
use ghostlab::lab::executors::PipelineGenerator;
use ghostlab::lab::{ConfiguredModels, Seeds, StepId, StepProposer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::scripted_llm::{ScriptedLlm, rule};

mod full_run;
use full_run::full_lab_run;

fn copy_dir(src: &Path, dst: &Path) {
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.expect("walk");
        let to = dst.join(entry.path().strip_prefix(src).expect("prefix"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &to).expect("copy");
        }
    }
}

/// The example with a mock agent (this test is about Ghostlab's roles, not the agent) and a
/// small dataset, saved as `source-job.yaml` for `--from`.
fn example() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/release-bot"),
        dir.path(),
    );
    let text = std::fs::read_to_string(dir.path().join("job.yaml"))
        .expect("job")
        .replace("backend: opencode", "backend: mock")
        .replace(
            "  judge: { provider: offline }\n",
            "  judge: { provider: offline }\n  personas: 1\n  scenarios_per_persona: 2\n",
        );
    let text =
        format!("{text}hosts:\n  mock:\n    replies: [\"I can help with releases.\", \"Here are the notes.\"]\n");
    std::fs::remove_file(dir.path().join("job.yaml")).expect("rm");
    let source = dir.path().join("source-job.yaml");
    std::fs::write(&source, text).expect("write");
    (dir, source)
}

/// What the scripted proposer answers: the offline artifacts of the same job with tell-tale
/// text, so the test can see that what was accepted came from the model.
async fn scripted_artifacts(source: &Path) -> (Value, Value, Value) {
    let loaded = ghostlab::spec::load_job(source).expect("source loads");
    let p = OfflineProposer;
    let mut profile = ghostlab::generate::pipeline::infer_profile(&loaded, &p)
        .await
        .expect("profile");
    profile.audience = "SCRIPTED-AUDIENCE maintainers of tinyqueue".into();
    let mut personas: PersonaSet = p.propose_personas(&profile, 1).await.expect("personas");
    for (i, persona) in personas.personas.iter_mut().enumerate() {
        persona.name = format!("SCRIPTED-PERSONA-{i}");
    }
    let mut scenarios: ScenarioSet = p.propose_scenarios(&profile, &personas, 2).await.expect("scenarios");
    for (i, s) in scenarios.scenarios.iter_mut().enumerate() {
        // The first scenario is the one the scripted judge fails.
        let tag = if i == 0 { "FAILME" } else { "PASSME" };
        s.goal = format!("SCRIPTED-GOAL-{i} {tag}: {}", s.goal);
        s.max_turns = 6;
        s.expected_outcome.must_include.clear();
        s.expected_outcome.expected_tool_calls.clear();
    }
    let v = |x: serde_json::Result<Value>| x.expect("serialize");
    (
        v(serde_json::to_value(&profile)),
        v(serde_json::to_value(&personas)),
        v(serde_json::to_value(&scenarios)),
    )
}

fn judgement(success: &str) -> String {
    let evidence = json!(["e0", "e1", "e2", "e3", "e4", "e5"]);
    let mut criteria = Vec::new();
    for i in 1..=12 {
        criteria.push(json!({"id": format!("s{i}"), "holds": success, "evidence": evidence, "rationale": "scripted"}));
        criteria.push(json!({"id": format!("f{i}"), "holds": "no", "evidence": evidence, "rationale": "scripted"}));
    }
    json!({ "criteria": criteria }).to_string()
}

/// Every role's answers, keyed by what its prompt says.
fn script(profile: &Value, personas: &Value, scenarios: &Value) -> Vec<crate::scripted_llm::Rule> {
    vec![
        rule(&["You judge a conversation", "FAILME"], judgement("no")),
        rule(&["You judge a conversation"], judgement("yes")),
        rule(&["Infer the purpose profile"], profile.to_string()),
        rule(&["Propose exactly"], personas.to_string()),
        rule(&["scenarios per persona"], scenarios.to_string()),
        rule(
            &["Speak only as yourself", "Here are the notes"],
            json!({"message": "Thanks, that is what I needed.", "status": "goal_reached", "refused": null}).to_string(),
        ),
        rule(
            &["Speak only as yourself"],
            json!({"message": "SCRIPTED-USER: please draft the notes for 1.3.0", "status": "continue", "refused": null})
                .to_string(),
        ),
    ]
}

#[tokio::test]
async fn the_hint_reaches_the_proposers_request_and_offline_says_it_cannot_use_one() {
    let (dir, source) = example();
    let (profile, personas, scenarios) = scripted_artifacts(&source).await;
    let server = ScriptedLlm::start(script(&profile, &personas, &scenarios));
    let mut job = ghostlab::spec::load_job(&source).expect("loads").job;
    job.generation.proposer = ghostlab::lab::role_models::role_from_choice("openai/gpt-4.1-mini").unwrap();
    job.generation.proposer.base_url = Some(server.url.clone());
    let proposer = StepProposer {
        job_file: dir.path().join("job.yaml"),
        seeds: Seeds::default(),
        models: Arc::new(ConfiguredModels),
        generator: Arc::new(PipelineGenerator),
    };
    let artifacts = [(StepId::Profile, profile.clone())].into_iter().collect();
    let hint = "HINT-include-a-night-shift-release-manager";
    let proposal = proposer
        .propose(
            StepId::Personas,
            Some(hint.into()),
            job.clone(),
            artifacts,
            CancellationToken::new(),
        )
        .await
        .expect("personas from the scripted model");
    assert!(proposal.text.contains("SCRIPTED-PERSONA-0"), "{}", proposal.text);
    assert!(proposal.notes.iter().any(|n| n.contains("Regenerated with hint")));
    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    let user = seen[0].body["messages"][1]["content"]
        .as_str()
        .expect("task")
        .to_string();
    assert!(user.contains(hint), "the hint is in the model request: {user}");

    // The offline proposer cannot read a hint, and the note says so instead of pretending.
    job.generation.proposer = Default::default();
    let artifacts = [(StepId::Profile, profile)].into_iter().collect();
    let proposal = proposer
        .propose(
            StepId::Personas,
            Some(hint.into()),
            job,
            artifacts,
            CancellationToken::new(),
        )
        .await
        .expect("offline personas");
    assert!(
        proposal.notes.iter().any(|n| n.contains("hint was not used")),
        "{:?}",
        proposal.notes
    );
    assert!(!proposal.notes.iter().any(|n| n.contains("Regenerated with hint")));
}

#[tokio::test(flavor = "multi_thread")]
async fn lab_yes_with_every_role_on_anthropic_messages() {
    full_lab_run("anthropic", "claude-haiku-4-5", "ANTHROPIC_API_KEY", "0.95", false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn lab_yes_with_every_role_on_openai_chat_exits_0_when_every_gate_is_met() {
    full_lab_run("openai", "gpt-4.1-mini", "OPENAI_API_KEY", "0.5", true).await;
}

#[tokio::test]
async fn step_2_drafts_the_purpose_with_the_proposer_model_when_there_is_one() {
    let (dir, source) = example();
    let mut loaded = ghostlab::spec::load_job(&source).expect("loads");
    loaded.job.agent.description = None;
    // The scripted model answers with a profile inferred without a description (so its
    // evidence points into the instructions), carrying a purpose of its own words.
    let mut profile = ghostlab::generate::pipeline::infer_profile(&loaded, &OfflineProposer)
        .await
        .expect("profile");
    profile.purpose = "SCRIPTED-PURPOSE: helps tinyqueue maintainers cut safe releases".into();
    let server = ScriptedLlm::start(vec![rule(
        &["Infer the purpose profile"],
        serde_json::to_string(&profile).expect("json"),
    )]);
    let mut job = loaded.job.clone();
    job.generation.proposer = ghostlab::lab::role_models::role_from_choice("openai/gpt-4.1-mini").unwrap();
    job.generation.proposer.base_url = Some(server.url.clone());
    let proposer = StepProposer {
        job_file: dir.path().join("job.yaml"),
        seeds: Seeds::default(),
        models: Arc::new(ConfiguredModels),
        generator: Arc::new(PipelineGenerator),
    };
    let draft = proposer
        .propose(
            StepId::Purpose,
            None,
            job.clone(),
            Default::default(),
            CancellationToken::new(),
        )
        .await
        .expect("a draft");
    assert_eq!(draft.text, profile.purpose);
    assert!(
        draft.notes[0].contains("Drafted by the proposer model"),
        "{:?}",
        draft.notes
    );
    assert!(
        draft.notes.iter().any(|n| n.starts_with("Evidence: ")),
        "{:?}",
        draft.notes
    );
    assert_eq!(server.requests().len(), 1);

    // The person's own words are never replaced, and without a model the offline draft stays.
    let mut described = job.clone();
    described.agent.description = Some("My words.".into());
    let kept = proposer
        .propose(
            StepId::Purpose,
            None,
            described,
            Default::default(),
            CancellationToken::new(),
        )
        .await
        .expect("kept");
    assert_eq!(kept.text, "My words.");
    job.generation.proposer = Default::default();
    let offline = proposer
        .propose(StepId::Purpose, None, job, Default::default(), CancellationToken::new())
        .await
        .expect("offline draft");
    assert!(offline.notes[0].starts_with("A draft from"), "{:?}", offline.notes);
    assert_eq!(server.requests().len(), 1, "no model call for either");
}

/// Headless: a role model outside the authenticated list (here OpenAI, which the person's
/// OpenCode lists but no key the roles may use covers) stops the wizard at Step 3 with exit 2
/// and the list. The person's `opencode` is a FAKE script answering only `opencode models`.
#[test]
fn a_role_flag_outside_the_authenticated_list_exits_2_with_the_list() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, _) = example();
    let fake = dir.path().join("fake-opencode");
    std::fs::write(
        &fake,
        "#!/bin/sh\n# FAKE opencode for a Ghostlab test\n[ \"$1\" = models ] || exit 1\n\
         printf 'anthropic/claude-haiku-4-5\\nopenai/gpt-4.1\\n'\n",
    )
    .expect("fake");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let run = |judge: &str| {
        assert_cmd::Command::cargo_bin("ghostlab")
            .expect("binary")
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .env("GHOSTLAB_OPENCODE_BIN", &fake)
            .env("GHOSTLAB_KEYRING", "keyutils")
            .env("ANTHROPIC_API_KEY", "sk-ant-fake-not-secret")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GHOSTLAB_OPENAI_BASE_URL")
            .env_remove("GHOSTLAB_OPENAI_API_KEY")
            .args(["lab", "--yes", "--from", "source-job.yaml", "--sandbox", "local"])
            .args(["--judge-model", judge])
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .expect("run")
    };
    let out = run("openai/gpt-4.1");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--judge-model openai/gpt-4.1: not a model Ghostlab's roles can use now"),
        "{stderr}"
    );
    assert!(
        stderr.contains("anthropic/claude-haiku-4-5"),
        "the list is shown: {stderr}"
    );
    assert!(!stderr.contains("sk-ant-fake"), "{stderr}");
}
