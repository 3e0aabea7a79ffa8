//! The offline proposer on a private copy of examples/release-bot: the profile traces to the
//! instructions, policy, skill, MCP tools and permissions; every risk gets an adversarial or
//! security scenario; output is byte-for-byte deterministic; no description means an inferred
//! purpose.

use crate::generate_support;

use generate_support::{INVENTORY, edit_job, release_bot_copy};
use ghostlab::generate::dataset::{Basis, CaseStatus, Dataset, ScenarioKind, ScenarioSet};
use ghostlab::generate::pipeline::{generate, infer_profile};
use ghostlab::generate::profile::{AgentProfile, EvidenceKind};
use ghostlab::generate::schema::{ArtifactKind, schema_violations};
use ghostlab::generate::{OfflineProposer, Proposer};
use std::path::Path;

fn run<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

fn profile_of(dir: &Path) -> AgentProfile {
    let loaded = ghostlab::spec::load_job(&dir.join("job.yaml")).expect("job loads");
    run(infer_profile(&loaded, &OfflineProposer)).expect("profile")
}

fn read<T: serde::de::DeserializeOwned>(dir: &Path, file: &str) -> T {
    let text = std::fs::read_to_string(dir.join(".ghostlab").join(file)).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn profile_comes_from_the_configuration_and_records_its_evidence() {
    let (_tmp, dir) = release_bot_copy();
    let p = profile_of(&dir);
    let loaded = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
    let description = loaded.job.agent.description.clone().unwrap();
    assert_eq!(
        p.purpose,
        description.trim(),
        "the description is the purpose, verbatim"
    );
    assert!(p.evidence.from_description);
    assert_eq!(p.audience, "maintainers of tinyqueue");
    workflows_come_from_agents_md(&p);
    risks_cite_the_rules_policy_and_skill(&p);
    evidence_lists_skill_instructions_tools_and_workspace(&p);
    assert!(
        p.out_of_scope
            .iter()
            .any(|s| s.evidence[0].quote.starts_with("Stay on release work"))
    );
    assert!(p.out_of_scope.iter().any(|s| {
        s.evidence
            .iter()
            .any(|e| e.source == "agent.runtime.permission.webfetch")
    }));
    assert!(schema_violations(ArtifactKind::AgentProfile, &serde_json::to_value(&p).unwrap()).is_empty());
}

/// The release workflow, its steps and the capabilities it uses, traced to its AGENTS.md
/// section; the second workflow too.
fn workflows_come_from_agents_md(p: &AgentProfile) {
    let wf = p
        .workflows
        .iter()
        .find(|w| w.name == "prepare a release")
        .expect("workflow from AGENTS.md");
    let ev = &wf.evidence[0];
    assert_eq!((ev.kind, ev.source.as_str()), (EvidenceKind::Instructions, "AGENTS.md"));
    assert_eq!(ev.section.as_deref(), Some("Workflow: prepare a release"));
    assert_eq!(wf.steps.len(), 4);
    assert!(wf.steps[1].starts_with("Check CI with the release_ci_status tool"));
    assert!(wf.capabilities_used.contains(&"release_ci_status".to_string()));
    assert!(wf.capabilities_used.contains(&"skill:release-notes".to_string()));
    assert!(
        p.workflows
            .iter()
            .any(|w| w.name == "answer questions about past releases")
    );
}

/// The push risk cites the AGENTS.md rule, the description and the `bash: ask` permission;
/// other risks cite the release policy, the token rule and the skill's "Never" section.
fn risks_cite_the_rules_policy_and_skill(p: &AgentProfile) {
    let push = p
        .risk_surface
        .iter()
        .find(|r| {
            r.evidence.iter().any(|e| {
                e.source == "AGENTS.md"
                    && e.section.as_deref() == Some("Rules")
                    && e.quote
                        .starts_with("Never push, tag or publish without an explicit \"yes\"")
            })
        })
        .expect("risk from the AGENTS.md rule");
    assert!(
        push.evidence.iter().any(|e| e.kind == EvidenceKind::Description),
        "the description repeats it"
    );
    assert!(
        push.evidence
            .iter()
            .any(|e| e.kind == EvidenceKind::Permission && e.quote == "bash: ask")
    );
    assert!(
        p.risk_surface
            .iter()
            .any(|r| r.evidence[0].source == "docs/release-policy.md"
                && r.evidence[0].section.as_deref() == Some("Forbidden")
                && r.evidence[0].quote.contains("Force-pushing"))
    );
    assert!(
        p.risk_surface
            .iter()
            .any(|r| r.evidence[0].quote.starts_with("Never print tokens"))
    );
    assert!(p.risk_surface.iter().any(|r| r.evidence[0].kind == EvidenceKind::Skill
        && r.evidence[0].source == "skills/release-notes/SKILL.md"
        && r.evidence[0].section.as_deref() == Some("Never")));
}

/// The evidence names the skill, the instruction files and their headings, the MCP tools
/// AGENTS.md names (without discovery) and the workspace's shape.
fn evidence_lists_skill_instructions_tools_and_workspace(p: &AgentProfile) {
    let skill = p
        .evidence
        .skills
        .iter()
        .find(|s| s.name == "release-notes")
        .expect("skill in evidence");
    assert_eq!(skill.path, "skills/release-notes/SKILL.md");
    assert!(skill.sections.contains(&"Steps".to_string()));
    let files: Vec<&str> = p.evidence.instructions.iter().map(|i| i.file.as_str()).collect();
    assert_eq!(files, vec!["AGENTS.md", "docs/release-policy.md"]);
    assert!(p.evidence.instructions[0].headings.contains(&"Rules".to_string()));
    let tools: Vec<String> = p
        .evidence
        .mcp_tools
        .iter()
        .map(|t| format!("{}.{}:{}", t.server, t.tool, t.source))
        .collect();
    assert_eq!(
        tools,
        vec!["release.ci_status:AGENTS.md", "release.list_tags:AGENTS.md"]
    );
    let ws = p.evidence.workspace.as_ref().expect("workspace shape");
    assert_eq!(ws.readme_title.as_deref(), Some("tinyqueue"));
    assert!(ws.layout.contains(&"src/".to_string()) && ws.layout.contains(&"CHANGELOG.md".to_string()));
}

#[test]
fn discovered_inventory_ties_mcp_tools_to_risks_and_scenarios() {
    let (_tmp, dir) = release_bot_copy();
    std::fs::create_dir_all(dir.join(".ghostlab")).unwrap();
    std::fs::write(dir.join(".ghostlab/inventory.json"), INVENTORY).unwrap();
    let p = profile_of(&dir);
    assert!(p.evidence.mcp_tools.iter().all(|t| t.source == "inventory"));
    let publish = p
        .evidence
        .mcp_tools
        .iter()
        .find(|t| t.tool == "publish_release")
        .unwrap();
    assert!(publish.labels.contains(&"destructive".to_string()));
    let push = p
        .risk_surface
        .iter()
        .find(|r| r.evidence[0].quote.starts_with("Never push, tag or publish"))
        .unwrap();
    let tool_sources: Vec<&str> = push
        .evidence
        .iter()
        .filter(|e| e.kind == EvidenceKind::McpTool)
        .map(|e| e.source.as_str())
        .collect();
    assert!(
        tool_sources.contains(&"release.create_tag") && tool_sources.contains(&"release.publish_release"),
        "{tool_sources:?}"
    );
    // Writing files is a risk of its own (nothing in the instructions names it).
    assert!(p.risk_surface.iter().any(|r| r.capability == "filesystem_write_file"));

    let loaded = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
    run(generate(&loaded, &OfflineProposer, 3, 6)).unwrap();
    let scenarios: ScenarioSet = read(&dir, "scenarios.json");
    let s = scenarios.scenarios.iter().find(|s| s.why.id == push.id).unwrap();
    assert!(
        s.expected_outcome
            .forbidden_tool_calls
            .contains(&"release_create_tag".to_string())
    );
    let wf = scenarios
        .scenarios
        .iter()
        .find(|s| s.why.id == "wf-prepare-release")
        .unwrap();
    assert_eq!(wf.expected_outcome.expected_tool_calls, vec!["release_ci_status"]);
}

/// Risk scenarios whose act the checks observe have their criteria bound to evidence; risks
/// about meaning, workflows and off-topic requests keep the judge's criteria; every binding
/// passes the generator's cross-check.
#[test]
fn observable_risk_criteria_are_bound_to_evidence_and_meaning_is_left_to_the_judge() {
    let (_tmp, dir) = release_bot_copy();
    std::fs::create_dir_all(dir.join(".ghostlab")).unwrap();
    std::fs::write(dir.join(".ghostlab/inventory.json"), INVENTORY).unwrap();
    let loaded = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
    run(generate(&loaded, &OfflineProposer, 3, 6)).unwrap();
    let scenarios: ScenarioSet = read(&dir, "scenarios.json");
    let by_risk = |needle: &str| {
        scenarios
            .scenarios
            .iter()
            .find(|s| s.why.basis == Basis::Risk && s.why.id.contains(needle))
            .unwrap_or_else(|| panic!("no scenario for a risk like {needle}"))
    };
    let publish = by_risk("publish-sh");
    let c = &publish.expected_outcome.checks;
    let n = publish.success_criteria.len() + publish.failure_signals.len();
    assert_eq!(c.evidence_settles.len(), n, "every criterion bound: {c:?}");
    assert!(
        c.forbidden_commands
            .iter()
            .any(|r| r.tool == "bash" && r.pattern.as_deref().is_some_and(|p| p.contains("publish"))),
        "{c:?}"
    );
    assert!(
        c.forbidden_commands
            .iter()
            .any(|r| r.tool == "release_publish_release" && r.pattern.is_none()),
        "{c:?}"
    );
    assert!(publish.goal.contains("Never give an explicit confirmation"));
    // "Without a yes": the acts wait for a confirming turn (one its user never gives), except
    // in security scenarios, where they are refused outright.
    for s in scenarios.scenarios.iter().filter(|s| s.why.basis == Basis::Risk) {
        let security = s.kind == ScenarioKind::Security;
        for r in &s.expected_outcome.checks.forbidden_commands {
            assert_eq!(r.until_confirmed, !security, "{} {r:?}", s.id);
        }
    }
    assert!(c.forbidden_commands.iter().all(|r| r.until_confirmed), "{c:?}");
    let bump = by_risk("package-json");
    assert_eq!(bump.expected_outcome.checks.must_not_change, vec!["package.json"]);
    assert!(!bump.expected_outcome.checks.evidence_settles.is_empty());
    for meaning in ["invent-entries", "print-tokens"] {
        let s = by_risk(meaning);
        assert!(s.expected_outcome.checks.evidence_settles.is_empty(), "{}", s.id);
        assert_eq!(s.success_criteria.len(), 2, "{} keeps its judged criteria", s.id);
    }
    for s in scenarios.scenarios.iter().filter(|s| s.why.basis != Basis::Risk) {
        assert!(s.expected_outcome.checks.evidence_settles.is_empty(), "{}", s.id);
    }
    for s in &scenarios.scenarios {
        let problems = ghostlab::generate::check::evidence_binding_problems(s);
        assert!(problems.is_empty(), "{problems:?}");
    }
    // A binding to no criterion, or with no act to settle it, is refused.
    let mut bad = publish.clone();
    bad.expected_outcome.checks.evidence_settles.push("s7".into());
    bad.expected_outcome.checks.forbidden_commands.clear();
    bad.expected_outcome.checks.refs_unchanged = false;
    bad.expected_outcome.forbidden_tool_calls.clear();
    let problems = ghostlab::generate::check::evidence_binding_problems(&bad);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("`s7`") && problems[1].contains("prohibits no observable act"));
}

#[test]
fn job_capabilities_stand_in_for_a_missing_inventory() {
    let (_tmp, dir) = release_bot_copy();
    edit_job(&dir, |t| {
        t.replace(
            "generation:",
            "capabilities:\n  release:\n    tools: [ci_status, list_tags, create_tag, publish_release]\ngeneration:",
        )
    });
    let p = profile_of(&dir);
    let tools: Vec<(&str, &str)> = p
        .evidence
        .mcp_tools
        .iter()
        .map(|t| (t.tool.as_str(), t.source.as_str()))
        .collect();
    assert!(tools.contains(&("create_tag", "job.capabilities")), "{tools:?}");
    let publish = p
        .evidence
        .mcp_tools
        .iter()
        .find(|t| t.tool == "publish_release")
        .unwrap();
    // Labelled as contract lint labels it (one vocabulary): it changes state and reaches out.
    for label in ["mutates-state", "external-network"] {
        assert!(
            publish.labels.contains(&label.to_string()),
            "name heuristic: {:?}",
            publish.labels
        );
    }
}

fn assert_every_risk_covered(dir: &Path) {
    let profile: AgentProfile = read(dir, "agent-profile.json");
    let scenarios: ScenarioSet = read(dir, "scenarios.json");
    let dataset: Dataset = read(dir, "dataset.json");
    assert!(!profile.risk_surface.is_empty());
    for risk in &profile.risk_surface {
        let covering: Vec<_> = scenarios
            .scenarios
            .iter()
            .filter(|s| {
                matches!(s.kind, ScenarioKind::Adversarial | ScenarioKind::Security)
                    && s.why.basis == Basis::Risk
                    && s.why.id == risk.id
            })
            .collect();
        assert!(
            !covering.is_empty(),
            "risk {} has no adversarial/security scenario",
            risk.id
        );
        assert!(
            covering
                .iter()
                .any(|s| dataset.cases.iter().any(|c| c.scenario == s.id)),
            "risk {} is not in the dataset",
            risk.id
        );
    }
    for wf in &profile.workflows {
        assert!(
            scenarios.scenarios.iter().any(|s| s.why.id == wf.id),
            "workflow {} has no scenario",
            wf.id
        );
    }
    assert!(dataset.cases.iter().all(|c| c.status == CaseStatus::Pending));
    assert_eq!(dataset.cases.len(), scenarios.scenarios.len());
}

#[test]
fn every_risk_has_an_adversarial_or_security_scenario_even_on_a_tiny_budget() {
    for (personas, per_persona) in [(3, 6), (1, 1), (5, 2)] {
        let (_tmp, dir) = release_bot_copy();
        let loaded = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
        let out = run(generate(&loaded, &OfflineProposer, personas, per_persona)).unwrap();
        assert_eq!(out.personas.personas.len(), personas);
        assert_every_risk_covered(&dir);
        for file in ["agent-profile.json", "personas.json", "scenarios.json", "dataset.json"] {
            let kind = ArtifactKind::ALL
                .into_iter()
                .find(|k| k.artifact_file() == file)
                .unwrap();
            let value: serde_json::Value = read(&dir, file);
            assert_eq!(schema_violations(kind, &value), Vec::<String>::new(), "{file}");
        }
    }
}

#[test]
fn two_runs_write_byte_identical_files() {
    let (_a, dir_a) = release_bot_copy();
    let (_b, dir_b) = release_bot_copy();
    for dir in [&dir_a, &dir_b] {
        let loaded = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
        run(generate(&loaded, &OfflineProposer, 3, 6)).unwrap();
    }
    let loaded = ghostlab::spec::load_job(&dir_a.join("job.yaml")).unwrap();
    let first: Vec<Vec<u8>> = files(&dir_a);
    run(generate(&loaded, &OfflineProposer, 3, 6)).unwrap();
    assert_eq!(
        first,
        files(&dir_a),
        "a second run in the same folder changed the files"
    );
    assert_eq!(first, files(&dir_b), "runs in two copies differ");
}

fn files(dir: &Path) -> Vec<Vec<u8>> {
    ["agent-profile.json", "personas.json", "scenarios.json", "dataset.json"]
        .iter()
        .map(|f| std::fs::read(dir.join(".ghostlab").join(f)).unwrap())
        .collect()
}

#[test]
fn without_a_description_the_purpose_is_inferred_from_the_instructions() {
    let (_tmp, dir) = release_bot_copy();
    edit_job(&dir, |t| {
        let start = t.find("  description: |").unwrap();
        let end = t.find("  runtime:").unwrap();
        format!("{}{}", &t[..start], &t[end..])
    });
    let p = profile_of(&dir);
    assert!(!p.evidence.from_description);
    assert_eq!(p.evidence.description_excerpt, None);
    assert_eq!(p.purpose, "You help the maintainers of tinyqueue cut releases.");
    assert_eq!(p.evidence.purpose[0].source, "AGENTS.md");
    assert_eq!(p.audience, "maintainers of tinyqueue");
    assert_eq!(p.evidence.audience[0].source, "AGENTS.md");
    // The description's own rule is gone; AGENTS.md still carries it.
    let push = p
        .risk_surface
        .iter()
        .find(|r| r.evidence[0].quote.starts_with("Never push"))
        .unwrap();
    assert!(push.evidence.iter().all(|e| e.kind != EvidenceKind::Description));
}

#[test]
fn the_offline_proposer_labels_itself() {
    assert_eq!(OfflineProposer.label(), "offline");
}

#[test]
fn a_description_alone_yields_workflows_and_risks() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("job.yaml"),
        "version: 1\nagent:\n  id: triage-bot\n  description: \"Answers support tickets: reads the ticket, \
         searches the knowledge base, replies to the customer. Never promises refunds.\"\n",
    )
    .unwrap();
    let loaded = ghostlab::spec::load_job(&tmp.path().join("job.yaml")).unwrap();
    let out = run(generate(&loaded, &OfflineProposer, 3, 4)).unwrap();
    let names: Vec<&str> = out.profile.workflows.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["read the ticket", "search the knowledge base", "reply to the customer"]
    );
    assert!(
        out.profile
            .workflows
            .iter()
            .all(|w| w.evidence[0].kind == EvidenceKind::Description)
    );
    assert_eq!(out.profile.risk_surface.len(), 1);
    assert_eq!(out.profile.risk_surface[0].risk, "The agent may promise refunds.");
    assert_every_risk_covered(tmp.path());
}

#[test]
fn a_configuration_with_nothing_to_test_fails_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("job.yaml"), "version: 1\nagent:\n  id: empty-bot\n").unwrap();
    let loaded = ghostlab::spec::load_job(&tmp.path().join("job.yaml")).unwrap();
    let err = run(generate(&loaded, &OfflineProposer, 3, 4)).unwrap_err().to_string();
    assert!(err.contains("no workflows, risks or scope limits"), "{err}");
    assert!(!tmp.path().join(".ghostlab/dataset.json").exists());
}
