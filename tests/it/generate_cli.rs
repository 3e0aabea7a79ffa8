//! `ghostlab profile`, `generate` and `dataset` through the real binary, on a private copy of
//! examples/release-bot.

use crate::generate_support;

use assert_cmd::Command;
use generate_support::{edit_job, release_bot_copy};
use ghostlab::generate::dataset::{CaseStatus, Dataset, ScenarioSet};
use std::path::Path;

fn ghostlab() -> Command {
    let mut c = Command::cargo_bin("ghostlab").unwrap();
    c.env_remove("EDITOR").env_remove("VISUAL");
    c
}

fn job(dir: &Path) -> String {
    dir.join("job.yaml").display().to_string()
}

fn dataset(dir: &Path) -> Dataset {
    serde_json::from_str(&std::fs::read_to_string(dir.join(".ghostlab/dataset.json")).unwrap()).unwrap()
}

fn scenarios(dir: &Path) -> ScenarioSet {
    serde_json::from_str(&std::fs::read_to_string(dir.join(".ghostlab/scenarios.json")).unwrap()).unwrap()
}

#[test]
fn profile_writes_the_file_and_prints_where_things_came_from() {
    let (_tmp, dir) = release_bot_copy();
    let out = ghostlab().args(["profile", "--job", &job(&dir)]).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.contains("purpose (the description): Helps maintainers of tinyqueue"),
        "{stdout}"
    );
    assert!(stdout.contains("wf-prepare-release  prepare a release"), "{stdout}");
    assert!(stdout.contains("<- AGENTS.md § Rules"), "{stdout}");
    assert!(dir.join(".ghostlab/agent-profile.json").is_file());
}

#[test]
fn generate_then_curate_the_dataset() {
    let (_tmp, dir) = release_bot_copy();
    let out = ghostlab()
        .args(["generate", "--job", &job(&dir), "--personas", "3"])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.contains("3 persona(s)") && stdout.contains("pending"),
        "{stdout}"
    );
    let d = dataset(&dir);
    let first = d.cases[0].id.clone();
    let second = d.cases[1].id.clone();

    ghostlab()
        .args([
            "dataset",
            "approve",
            "--job",
            &job(&dir),
            &first,
            "--note",
            "looks right",
        ])
        .assert()
        .success();
    ghostlab()
        .args(["dataset", "reject", "--job", &job(&dir), &second])
        .assert()
        .success();
    let d = dataset(&dir);
    assert_eq!(d.cases[0].status, CaseStatus::Approved);
    assert_eq!(d.cases[0].note.as_deref(), Some("looks right"));
    assert_eq!(d.cases[1].status, CaseStatus::Rejected);

    let list = ghostlab()
        .args(["dataset", "list", "--job", &job(&dir)])
        .assert()
        .success();
    let listing = String::from_utf8(list.get_output().stdout.clone()).unwrap();
    let line = listing.lines().find(|l| l.starts_with(&first)).expect("case listed");
    assert!(
        line.contains(" approved ") && line.ends_with("[looks right]"),
        "{listing}"
    );
    assert!(listing.contains("out_of_scope"), "{listing}");

    // An unknown id changes nothing and exits 2.
    let before = std::fs::read(dir.join(".ghostlab/dataset.json")).unwrap();
    ghostlab()
        .args(["dataset", "approve", "--job", &job(&dir), &second, "no-such-case"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no case `no-such-case`"));
    assert_eq!(before, std::fs::read(dir.join(".ghostlab/dataset.json")).unwrap());

    // A second generate keeps the review of unchanged cases.
    ghostlab()
        .args(["generate", "--job", &job(&dir), "--personas", "3"])
        .assert()
        .success();
    assert_eq!(dataset(&dir).cases[0].status, CaseStatus::Approved);

    ghostlab()
        .args(["dataset", "approve", "--job", &job(&dir), "--all"])
        .assert()
        .success();
    assert!(dataset(&dir).cases.iter().all(|c| c.status == CaseStatus::Approved));
}

#[test]
fn edit_with_set_validates_and_returns_the_case_to_pending() {
    let (_tmp, dir) = release_bot_copy();
    ghostlab().args(["generate", "--job", &job(&dir)]).assert().success();
    let case = dataset(&dir).cases[0].id.clone();
    ghostlab()
        .args(["dataset", "approve", "--job", &job(&dir), &case])
        .assert()
        .success();
    ghostlab()
        .args(["dataset", "edit", "--job", &job(&dir), &case, "--set", "max_turns=3"])
        .args(["--set", r#"expected_outcome.must_include=["CHANGELOG"]"#])
        .assert()
        .success();
    let s = scenarios(&dir).scenarios.into_iter().find(|s| s.id == case).unwrap();
    assert_eq!(s.max_turns, 3);
    assert_eq!(s.expected_outcome.must_include, vec!["CHANGELOG"]);
    assert_eq!(dataset(&dir).cases[0].status, CaseStatus::Pending);

    let before = std::fs::read(dir.join(".ghostlab/scenarios.json")).unwrap();
    for bad in ["max_turns=lots", "kind=poem", "persona=nobody", "nmae=x", "id=other"] {
        ghostlab()
            .args(["dataset", "edit", "--job", &job(&dir), &case, "--set", bad])
            .assert()
            .code(2);
    }
    assert_eq!(
        before,
        std::fs::read(dir.join(".ghostlab/scenarios.json")).unwrap(),
        "a bad edit changed the file"
    );
}

#[test]
fn edit_in_the_editor_validates_the_result() {
    let (_tmp, dir) = release_bot_copy();
    ghostlab().args(["generate", "--job", &job(&dir)]).assert().success();
    let case = dataset(&dir).cases[0].id.clone();
    // A scripted "editor": sed rewrites the file the command opens.
    ghostlab()
        .env("EDITOR", r#"sed -i -e "s/\"max_turns\": [0-9]*/\"max_turns\": 9/""#)
        .args(["dataset", "edit", "--job", &job(&dir), &case])
        .assert()
        .success()
        .stdout(predicates::str::contains("back to pending"));
    let s = scenarios(&dir).scenarios.into_iter().find(|s| s.id == case).unwrap();
    assert_eq!(s.max_turns, 9);
    ghostlab()
        .env(
            "EDITOR",
            r#"sed -i -e "s/\"max_turns\": [0-9]*/\"max_turns\": \"many\"/""#,
        )
        .args(["dataset", "edit", "--job", &job(&dir), &case])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("max_turns"));
    ghostlab()
        .args(["dataset", "edit", "--job", &job(&dir), &case])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("EDITOR"));
}

#[test]
fn dataset_commands_before_generate_say_what_to_run() {
    let (_tmp, dir) = release_bot_copy();
    ghostlab()
        .args(["dataset", "list", "--job", &job(&dir)])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "dataset.json: missing; run `ghostlab generate",
        ));
}

#[test]
fn a_model_proposer_whose_endpoint_is_down_fails_clearly() {
    let (_tmp, dir) = release_bot_copy();
    edit_job(&dir, |t| {
        t.replace(
            "  proposer: { provider: offline }",
            "  proposer: { provider: openai, model: m, base_url: \"http://127.0.0.1:9/v1\" }",
        )
    });
    ghostlab()
        .env("GHOSTLAB_OPENAI_API_KEY", "test-key-not-secret")
        .env("GHOSTLAB_LLM_ATTEMPTS", "1")
        .args(["generate", "--job", &job(&dir)])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unavailable"));
    assert!(!dir.join(".ghostlab/dataset.json").exists());
}
