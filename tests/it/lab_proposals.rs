//! The proposer's real work on a copy of examples/release-bot: imports, drafts, previews,
//! safe defaults, flag overrides, the redacted preview and honest hints.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

use futures::future::BoxFuture;
use ghostlab::lab::{
    CatalogError, ConfiguredModels, GenerateRequest, Generator, GeneratorError, ModelCatalog, Proposal, Seeds, StepId,
    StepProposer,
};
use ghostlab::spec::Job;

fn example_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    crate::common::copy_release_bot(dir.path());
    let job = dir.path().join("job.yaml");
    (dir, job)
}

/// A fake generator for proposals that never generate: it refuses, naming itself.
struct FakeGeneratorThatRefuses;

impl Generator for FakeGeneratorThatRefuses {
    fn generate(
        &self,
        r: GenerateRequest,
        _: CancellationToken,
    ) -> BoxFuture<'static, Result<serde_json::Value, GeneratorError>> {
        Box::pin(async move {
            Err(GeneratorError::Backend(
                format!("fake generator: {:?} is not generated in this test", r.kind).into(),
            ))
        })
    }
}

fn proposer(job: &Path, seeds: Seeds) -> StepProposer {
    StepProposer {
        job_file: job.to_path_buf(),
        seeds,
        models: Arc::new(ConfiguredModels),
        generator: Arc::new(FakeGeneratorThatRefuses),
    }
}

async fn propose(p: &StepProposer, step: StepId, hint: Option<&str>, job: &Job) -> Result<Proposal, String> {
    p.propose(
        step,
        hint.map(String::from),
        job.clone(),
        Default::default(),
        CancellationToken::new(),
    )
    .await
    .map_err(|e| e.to_string())
}

fn loaded(job: &Path) -> Job {
    ghostlab::spec::load_job(job).expect("example loads").job
}

#[tokio::test]
async fn source_imports_an_opencode_project_or_keeps_the_job() {
    let (dir, job) = example_copy();
    let p = proposer(&job, Seeds::default());
    let existing = propose(&p, StepId::Source, None, &Job::default())
        .await
        .expect("existing job");
    assert!(existing.text.contains("id: release-bot"), "{}", existing.text);
    assert!(existing.notes[0].contains("the existing"), "{:?}", existing.notes);

    let p = proposer(
        &job,
        Seeds {
            from: Some(dir.path().join("opencode.json")),
            ..Seeds::default()
        },
    );
    let imported = propose(&p, StepId::Source, None, &Job::default())
        .await
        .expect("import");
    assert!(imported.notes[0].contains("opencode.json"), "{:?}", imported.notes);
    let mut applied = Job::default();
    ghostlab::lab::apply::apply_answer(StepId::Source, &imported.text, &mut applied, &Default::default())
        .expect("the proposal is a valid answer");
    assert!(!applied.agent.runtime.instructions.is_empty());
}

#[tokio::test]
async fn purpose_keeps_the_users_words_and_drafts_only_without_them() {
    let (_dir, job_file) = example_copy();
    let mut job = loaded(&job_file);
    let p = proposer(&job_file, Seeds::default());
    let own = propose(&p, StepId::Purpose, None, &job).await.expect("purpose");
    assert_eq!(own.text, job.agent.description.clone().expect("description").trim());
    job.agent.description = None;
    let draft = propose(&p, StepId::Purpose, None, &job).await.expect("draft");
    assert!(draft.notes[0].contains("draft from ./AGENTS.md"), "{:?}", draft.notes);
    assert!(!draft.text.is_empty());
    let p = proposer(
        &job_file,
        Seeds {
            description: Some("Only my words.".into()),
            ..Seeds::default()
        },
    );
    assert_eq!(
        propose(&p, StepId::Purpose, None, &job).await.expect("seed").text,
        "Only my words."
    );
}

#[tokio::test]
async fn skills_are_previewed_and_missing_files_say_so() {
    let (dir, job_file) = example_copy();
    let mut job = loaded(&job_file);
    job.agent.runtime.instructions.push("./missing.md".into());
    let p = proposer(
        &job_file,
        Seeds {
            skills: vec![dir.path().join("skills/release-notes")],
            ..Seeds::default()
        },
    );
    let prop = propose(&p, StepId::Skills, None, &job).await.expect("skills");
    let notes = prop.notes.join("\n");
    assert!(notes.contains("./AGENTS.md: "), "{notes}");
    assert!(notes.contains("./missing.md: cannot read"), "{notes}");
    assert_eq!(
        prop.text.matches("./skills/release-notes").count(),
        1,
        "no duplicate skill: {}",
        prop.text
    );
}

#[tokio::test]
async fn safe_defaults_with_blast_radius_and_local_only_when_asked() {
    let (_dir, job_file) = example_copy();
    let mut job = loaded(&job_file);
    job.agent.runtime.permission = None;
    let p = proposer(&job_file, Seeds::default());
    let perms = propose(&p, StepId::Permissions, None, &job).await.expect("permissions");
    assert_eq!(
        perms.text,
        "bash: ask\nedit: allow\nexternal_directory: deny\nwebfetch: deny\n"
    );
    for tool in ["bash", "edit", "external_directory", "webfetch"] {
        assert!(
            perms.notes.iter().any(|n| n.starts_with(&format!("{tool}: "))),
            "{tool}"
        );
    }
    let sandbox = propose(&p, StepId::Sandbox, None, &job).await.expect("sandbox");
    assert!(sandbox.text.starts_with("backend: bubblewrap"), "{}", sandbox.text);
    let p = proposer(
        &job_file,
        Seeds {
            sandbox: Some(ghostlab::spec::SandboxBackend::Local),
            gates: vec![("pass_k".into(), "3:0.9".into())],
            ..Seeds::default()
        },
    );
    let local = propose(&p, StepId::Sandbox, None, &job).await.expect("local");
    assert!(local.text.starts_with("backend: local"));
    assert!(local.notes.iter().any(|n| n.contains("WARNING")));
    let gates = propose(&p, StepId::Gates, None, &job).await.expect("gates");
    assert!(
        gates.text.contains("pass_k:\n  k: 3\n  min_rate: 0.9"),
        "{}",
        gates.text
    );
    assert!(
        gates.text.contains("min_pass_rate: 0.8"),
        "the job's own gates are kept: {}",
        gates.text
    );
}

#[tokio::test]
async fn preview_is_redacted_and_read_only_and_hints_are_honest() {
    let (_dir, job_file) = example_copy();
    let mut job = loaded(&job_file);
    job.agent.description = Some("uses token ghp_abcdefghijklmnopqrstuvwxyz0123456789 by mistake".into());
    let p = proposer(&job_file, Seeds::default());
    let preview = propose(&p, StepId::Preview, None, &job).await.expect("preview");
    assert!(!preview.editable);
    assert!(
        !preview.text.contains("ghp_abcdefghijklmnopqrstuvwxyz"),
        "{}",
        preview.text
    );
    assert!(preview.text.contains("[REDACTED]"));
    let gates = propose(&p, StepId::Gates, Some("stricter"), &job).await.expect("gates");
    assert!(
        gates.notes.last().is_some_and(|n| n.contains("hint was not used")),
        "{:?}",
        gates.notes
    );
    let err = propose(&p, StepId::Profile, Some("x"), &job)
        .await
        .expect_err("the fake generator refuses");
    assert!(err.contains("fake generator"), "{err}");
}

/// Step 6 lists every discovered MCP tool with the risk labels the contract lint gave it and
/// the permission it really gets under the proposed map, flagging a changing tool that would
/// run without asking.
#[tokio::test]
async fn step_6_lists_discovered_tools_with_labels_and_effective_permissions() {
    use ghostlab::mcp::inventory::{Inventory, ServerInventory, ServerStatus, ToolEntry};
    let (dir, job_file) = example_copy();
    let mut job = loaded(&job_file);
    let tool = |name: &str, description: &str| ToolEntry {
        name: name.into(),
        title: None,
        description: Some(description.into()),
        input_schema: serde_json::json!({ "type": "object", "properties": {} }),
        output_schema: None,
        annotations: None,
        meta: None,
    };
    let inventory = Inventory {
        version: 1,
        generated_at: String::new(),
        servers: vec![ServerInventory {
            name: "release".into(),
            transport: "stdio".into(),
            status: ServerStatus::Ok,
            error: None,
            server_info: None,
            protocol_version: None,
            capabilities: None,
            instructions: None,
            tools: vec![
                tool("delete_tag", "Deletes a git tag from the remote."),
                tool("read_changelog", "Reads CHANGELOG.md."),
            ],
            resources: Vec::new(),
            resource_templates: Vec::new(),
            prompts: Vec::new(),
            elapsed_ms: 0,
        }],
    };
    let contract = ghostlab::mcp::contract::build_contract(&inventory);
    let state = dir.path().join(".ghostlab");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("contract.json"), serde_json::to_string(&contract).unwrap()).unwrap();
    job.capabilities.insert(
        "release".into(),
        ghostlab::spec::job::Capabilities {
            tools: vec!["delete_tag".into(), "read_changelog".into()],
            ..Default::default()
        },
    );
    let p = proposer(&job_file, Seeds::default());
    let perms = propose(&p, StepId::Permissions, None, &job).await.expect("permissions");
    let line = |id: &str| {
        perms
            .notes
            .iter()
            .find(|n| n.starts_with(&format!("tool {id} ")))
            .cloned()
            .unwrap_or_else(|| panic!("no line for {id}: {:#?}", perms.notes))
    };
    let delete = line("release_delete_tag");
    assert!(delete.contains("destructive"), "{delete}");
    assert!(delete.contains("→ allow (no key matches"), "{delete}");
    assert!(delete.contains("⚠ changes state without asking"), "{delete}");
    let read = line("release_read_changelog");
    assert!(read.contains("read-only") && !read.contains('⚠'), "{read}");

    // A key for the server's tools decides them, the last matching key winning.
    job.agent.runtime.permission = Some(ghostlab::spec::Permission::PerTool(
        [
            (
                "release_*".to_string(),
                ghostlab::spec::PermissionRule::Action(ghostlab::spec::Action::Ask),
            ),
            (
                "release_read_*".to_string(),
                ghostlab::spec::PermissionRule::Action(ghostlab::spec::Action::Allow),
            ),
        ]
        .into_iter()
        .collect(),
    ));
    let perms = propose(&p, StepId::Permissions, None, &job).await.expect("permissions");
    let find = |id: &str| {
        perms
            .notes
            .iter()
            .find(|n| n.starts_with(&format!("tool {id} ")))
            .unwrap()
            .clone()
    };
    assert!(find("release_delete_tag").contains("→ ask (by `release_*`)"));
    assert!(find("release_read_changelog").contains("→ allow (by `release_read_*`)"));
    assert!(!find("release_delete_tag").contains('⚠'));
}

/// Step 12 shows what the run really uses: the saved job resolved (instruction globs expanded,
/// reachable hosts), the opencode.json the agent gets, and what differs from the imported config
/// — paths only, never a value.
#[tokio::test]
async fn step_12_shows_the_resolved_config_and_its_difference_from_the_source() {
    let (dir, job_file) = example_copy();
    let job = loaded(&job_file);
    let source = dir.path().join("opencode.json");
    std::fs::write(
        &source,
        r#"{ "$schema": "https://opencode.ai/config.json", "model": "anthropic/claude-x",
             "share": "disabled", "permission": { "bash": "ask" } }"#,
    )
    .unwrap();
    let p = proposer(
        &job_file,
        Seeds {
            from: Some(source.clone()),
            ..Seeds::default()
        },
    );
    let preview = propose(&p, StepId::Preview, None, &job).await.expect("preview");
    let (yaml, emitted) = preview
        .text
        .split_once("# ── opencode.json as the agent gets it")
        .expect("the emitted config follows job.yaml");
    assert!(yaml.contains("version: 1"), "{yaml}");
    let json = emitted.split_once('\n').unwrap().1;
    let v: serde_json::Value = serde_json::from_str(json).expect("the emitted part is JSON");
    let instructions = v["instructions"].as_array().expect("instructions resolved");
    assert!(
        instructions.iter().all(|i| i.as_str().unwrap().starts_with('/')),
        "globs and relative paths resolved: {instructions:?}"
    );
    let notes = preview.notes.join("\n");
    assert!(
        notes.contains("Instructions: 2 entries in job.yaml resolve to 2 file(s): AGENTS.md, docs/release-policy.md"),
        "{notes}"
    );
    assert!(
        notes.contains("Sandbox: bubblewrap, network disabled; reachable: "),
        "{notes}"
    );
    assert!(notes.contains("MCP servers: release, filesystem"), "{notes}");
    assert!(notes.contains(&format!("Against {}", source.display())), "{notes}");
    assert!(notes.contains("  - $schema (not carried)"), "{notes}");
    assert!(notes.contains("  ~ model (changed)"), "{notes}");
    assert!(notes.contains("  + permission.edit (added)"), "{notes}");
    assert!(!notes.contains("claude-x"), "values are not shown: {notes}");

    // `allow` opens hosts only under `network: allowlist`: listed then, not before.
    let mut saved = job.clone();
    saved.sandbox.allow = vec!["docs.example.org:443".into()];
    ghostlab::spec::save_job(&job_file, &saved).unwrap();
    let notes = propose(&p, StepId::Preview, None, &saved)
        .await
        .unwrap()
        .notes
        .join("\n");
    assert!(
        !notes.contains("docs.example.org"),
        "disabled opens no allow entry: {notes}"
    );
    saved.sandbox.network = ghostlab::spec::NetworkMode::Allowlist;
    ghostlab::spec::save_job(&job_file, &saved).unwrap();
    let notes = propose(&p, StepId::Preview, None, &saved)
        .await
        .unwrap()
        .notes
        .join("\n");
    assert!(
        notes.contains("network allowlist; reachable: docs.example.org:443"),
        "{notes}"
    );
}

/// A fake catalog whose source is down: it refuses, naming the endpoint it could not reach.
struct FakeCatalogThatIsDown;

impl ModelCatalog for FakeCatalogThatIsDown {
    fn models(&self, _: Job) -> BoxFuture<'static, Result<Vec<String>, CatalogError>> {
        Box::pin(async {
            Err(CatalogError::Unavailable {
                catalog: "http://127.0.0.1:9/v1".into(),
                source: "connection refused".into(),
            })
        })
    }
}

/// A catalog that cannot list is not an empty list: Step 3 still proposes, and its notes say
/// why no configured model is offered (the old code dropped the error without a word).
#[tokio::test]
async fn a_catalog_that_cannot_list_says_why_in_step_3() {
    let dir = tempfile::tempdir().expect("tempdir");
    let job_file = dir.path().join("job.yaml");
    let mut p = proposer(&job_file, Seeds::default());
    p.models = Arc::new(FakeCatalogThatIsDown);
    let mut job = Job::default();
    job.agent.runtime.model = Some("openai/gpt-4.1".into());
    let model = propose(&p, StepId::Model, None, &job)
        .await
        .expect("the step still proposes");
    assert!(model.text.starts_with("openai/gpt-4.1\n"), "{}", model.text);
    assert!(
        model.notes.iter().any(|n| n
            == "The configured models could not be listed: cannot list models from http://127.0.0.1:9/v1: \
                connection refused"),
        "{:?}",
        model.notes
    );
    assert!(
        model.notes.iter().any(|n| n.starts_with("No configured models found")),
        "{:?}",
        model.notes
    );
}
