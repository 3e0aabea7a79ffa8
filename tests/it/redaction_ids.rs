//! Redaction masks real key formats and never rewrites an id Ghostlab generates: a property
//! test over generated case ids and a corpus of key shapes, then a whole run whose case ids
//! contain `risk-…` keeps them intact in every artifact, the report and JUnit.

use crate::common;

use assert_cmd::Command;
use ghostlab::redact::{MASK, Redactor};
use ghostlab::util::ids::{is_safe_id, sanitize_id};
use proptest::prelude::*;
use std::path::Path;

const BASE62: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const BASE64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn chars_of(alphabet: &'static str, len: usize) -> impl Strategy<Value = String> {
    let set: Vec<char> = alphabet.chars().collect();
    proptest::collection::vec(proptest::sample::select(set), len).prop_map(|v| v.into_iter().collect())
}

/// Real key formats with random bodies: OpenAI (legacy, project, service account), Anthropic,
/// GitHub (classic and fine-grained), AWS access key ids, Slack bot/user/app tokens and JWTs.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        chars_of(BASE62, 48).prop_map(|b| format!("sk-{b}")),
        chars_of(BASE64URL, 156).prop_map(|b| format!("sk-proj-{b}")),
        chars_of(BASE64URL, 64).prop_map(|b| format!("sk-svcacct-{b}")),
        chars_of(BASE64URL, 93).prop_map(|b| format!("sk-ant-api03-{b}AA")),
        chars_of(BASE62, 36).prop_map(|b| format!("ghp_{b}")),
        chars_of(BASE62, 36).prop_map(|b| format!("gho_{b}")),
        (chars_of(BASE62, 22), chars_of(BASE62, 59)).prop_map(|(a, b)| format!("github_pat_{a}_{b}")),
        chars_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16).prop_map(|b| format!("AKIA{b}")),
        (
            chars_of("0123456789", 12),
            chars_of("0123456789", 13),
            chars_of(BASE62, 24)
        )
            .prop_map(|(a, b, c)| format!("xoxb-{a}-{b}-{c}")),
        (
            chars_of("0123456789", 12),
            chars_of("0123456789", 12),
            chars_of("0123456789abcdef", 32)
        )
            .prop_map(|(a, b, c)| format!("xoxp-{a}-{b}-{a}-{c}")),
        (
            chars_of("0123456789", 1),
            chars_of(BASE62, 11),
            chars_of("0123456789abcdef", 64)
        )
            .prop_map(|(a, b, c)| format!("xapp-{a}-{b}-1234567890-{c}")),
        (
            chars_of(BASE64URL, 30),
            chars_of(BASE64URL, 60),
            chars_of(BASE64URL, 43)
        )
            .prop_map(|(h, p, s)| format!("eyJ{h}.eyJ{p}.{s}")),
    ]
}

/// Free text a generator turns into ids: words from tool names, rules and personas, including
/// the traps (`sk`, `risk`, `ghp`, `xoxb`, `akia`, long words and digits).
fn words() -> impl Strategy<Value = String> {
    let trap = proptest::sample::select(vec![
        "risk", "sk", "ask", "task", "disk", "ghp", "gho", "xoxb", "xoxp", "xapp", "akia", "eyj", "bearer", "github",
        "pat", "proj", "ant", "api03", "token", "push", "main", "without", "approval", "2",
    ]);
    let word = prop_oneof![trap.prop_map(String::from), "[A-Za-z0-9_]{1,30}"];
    proptest::collection::vec(word, 1..12).prop_map(|w| w.join(" "))
}

/// A case id as the generator builds it: `<persona>--<seed>`, each part a sanitized id.
fn case_id() -> impl Strategy<Value = String> {
    (words(), words()).prop_map(|(p, s)| format!("adversarial-{}--risk-{}", sanitize_id(&p), sanitize_id(&s)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn every_key_is_masked_and_no_id_is_touched(id in case_id(), k in key(), sep in "[ :=\"',;\\n]") {
        prop_assert!(is_safe_id(&id), "generator made an unsafe id {id}");
        let r = Redactor::new();
        let same = r.redact(&id).into_owned();
        prop_assert_eq!(&same, &id, "id rewritten");
        let line = format!("case {id}{sep}key{sep}{k}{sep}then {id}");
        let out = r.redact(&line);
        prop_assert!(!out.contains(&k), "key not masked: {out}");
        prop_assert!(out.contains(MASK));
        prop_assert_eq!(out.matches(id.as_str()).count(), 2, "id touched: {}", out);
        let json = serde_json::json!({"case": id, "text": format!("echo {k}"), id.clone(): 1});
        let mut v = json.clone();
        r.redact_value(&mut v);
        prop_assert_eq!(&v["case"], &json["case"]);
        prop_assert!(v.get(id.as_str()).is_some());
        prop_assert!(!v.to_string().contains(&k));
    }
}

#[test]
fn lowercase_look_alikes_stay_and_registered_values_go() {
    let r = Redactor::new();
    for text in [
        "adversarial-requester--risk-push-main-branch-without-approval",
        "new-maintainer--risk-ask-for-the-release-token-please",
        "scope-xox-b-2-channel-history",
        "focused-disk-cleanup-of-the-whole-volume",
    ] {
        assert_eq!(r.redact(text), text);
    }
    ghostlab::redact::register_secret("lowercase-registered-value-42");
    assert_eq!(
        Redactor::new().redact("got lowercase-registered-value-42 back"),
        format!("got {MASK} back")
    );
}

fn ghostlab(dir: &Path) -> Command {
    common::ghostlab_in(dir, 180)
}

/// `ghostlab test --quiet` in `dir`: it runs (gates met or not).
fn test_quietly(dir: &Path) {
    let out = ghostlab(dir)
        .args(["test", "--job", "job.yaml", "--quiet"])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The case ids of the dataset at `path`.
fn case_ids(path: &Path) -> Vec<String> {
    let dataset: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    dataset["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn risk_case_ids_survive_every_artifact_report_and_junit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["CI is green. Draft notes for 1.3.0. Shall I proceed?"]);
    test_quietly(&dir);
    let ids = case_ids(&dir.join(".ghostlab/dataset.json"));
    let long_risk = ids
        .iter()
        .filter(|id| id.split("risk-").nth(1).is_some_and(|rest| rest.len() >= 20))
        .count();
    assert!(
        long_risk > 0,
        "no `risk-…` id long enough to have tripped the old pattern: {ids:?}"
    );

    let runs = dir.join(".ghostlab/runs");
    let run = std::fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    let texts = text_artifacts_without_a_mask(&run);
    let in_file = |file: &str| {
        texts
            .iter()
            .filter(|(n, _)| n == file)
            .map(|(_, t)| t.as_str())
            .collect::<String>()
    };
    let junit = in_file("junit.xml");
    let report = in_file("report.md");
    let verdicts = in_file("verdict.json");
    let events = in_file("events.jsonl");
    for id in &ids {
        assert!(junit.contains(id.as_str()), "junit lacks {id}");
        assert!(report.contains(id.as_str()), "report.md lacks {id}");
        assert!(verdicts.contains(id.as_str()), "verdict.json lacks {id}");
        assert!(
            events.contains(id.as_str()) || verdicts.contains(id.as_str()),
            "events lack {id}"
        );
    }
    junit_names_are_unique_and_classes_are_personas(&junit, &in_file("case.json"));
    junit_passes_the_strict_xsd(&run.join("junit.xml"));
}

/// Every text artifact of `run` (name, text); none holds a mask, as no secret was in play.
fn text_artifacts_without_a_mask(run: &Path) -> Vec<(String, String)> {
    let mut texts = Vec::new();
    for e in walkdir::WalkDir::new(run).into_iter().filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().to_string();
        if e.file_type().is_file()
            && (name.ends_with(".json")
                || name.ends_with(".jsonl")
                || name.ends_with(".md")
                || name.ends_with(".html")
                || name.ends_with(".xml"))
        {
            let text = std::fs::read_to_string(e.path()).unwrap();
            assert!(
                !text.contains(MASK),
                "{} has a mask but no secret was in play",
                e.path().display()
            );
            texts.push((name, text));
        }
    }
    texts
}

/// No two JUnit test cases share a name; they are grouped by persona (from each trial's
/// case.json, `cases`), not all under the suite's name.
fn junit_names_are_unique_and_classes_are_personas(junit: &str, cases: &str) {
    let junit_cases = junit.matches("<testcase ").count();
    let names: std::collections::BTreeSet<&str> = junit
        .split("<testcase ")
        .skip(1)
        .filter_map(|t| t.split(" name=\"").nth(1).and_then(|r| r.split('"').next()))
        .collect();
    assert_eq!(names.len(), junit_cases, "two JUnit test cases share a name");
    for classname in junit.split(" classname=\"").skip(1).filter_map(|r| r.split('"').next()) {
        assert!(
            classname != "ghostlab" && cases.contains(&format!("\"{classname}\"")),
            "classname `{classname}` is no persona id"
        );
    }
}

/// The real run's file passes the strict JUnit XSD (fetched by scripts/install-deps.sh).
fn junit_passes_the_strict_xsd(junit: &Path) {
    let xsd = crate::common::repo().join("tools/xsd/junit-10.xsd");
    if xsd.is_file() {
        let out = std::process::Command::new("xmllint")
            .args(["--noout", "--schema"])
            .arg(&xsd)
            .arg(junit)
            .output()
            .expect("xmllint (libxml2-utils) is installed with the XSD");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    } else {
        assert!(
            std::env::var("GHOSTLAB_REQUIRE_ALL").as_deref() != Ok("1"),
            "{} missing: run scripts/install-deps.sh",
            xsd.display()
        );
    }
}

#[test]
fn hand_made_ids_and_names_that_look_like_tokens_are_never_rewritten() {
    // A hand-made case id in a Slack-token shape and a persona named "Bearer …" key rows and
    // test cases; masking them once merged cases into one `[REDACTED]` row.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["Done."]);
    let state = dir.join(".ghostlab");
    let ids = case_ids(&state.join("dataset.json"));
    let personas: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("personas.json")).unwrap()).unwrap();
    let old_name = personas["personas"][0]["name"].as_str().unwrap().to_string();
    let (new_ids, new_name) = (
        ["xoxb-2024-rollout-check", "xoxp-1234567890-release-gate"],
        "Bearer Bobby-the-release-manager",
    );
    // A case is keyed by its scenario's id: renamed in both files.
    for file in ["dataset.json", "scenarios.json"] {
        let mut text = std::fs::read_to_string(state.join(file)).unwrap();
        for (old, new) in ids.iter().zip(new_ids) {
            text = text.replace(&format!("\"{old}\""), &format!("\"{new}\""));
        }
        std::fs::write(state.join(file), text).unwrap();
    }
    let p = std::fs::read_to_string(state.join("personas.json"))
        .unwrap()
        .replace(&format!("\"{old_name}\""), &format!("\"{new_name}\""));
    std::fs::write(state.join("personas.json"), p).unwrap();
    test_quietly(&dir);
    let run = common::newest_run(&dir);
    let summary = std::fs::read_to_string(run.join("summary.json")).unwrap();
    let junit = std::fs::read_to_string(run.join("junit.xml")).unwrap();
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    for id in new_ids {
        assert!(summary.contains(id), "summary.json lost {id}: {summary}");
        assert!(junit.contains(id), "junit.xml lost {id}");
        assert!(report.contains(id), "report.md lost {id}");
        assert!(run.join("cases").join(id).is_dir(), "no trial folder for {id}");
    }
    assert!(!summary.contains("[REDACTED]"), "{summary}");
    assert!(report.contains(new_name), "report.md lost the persona name");
}
