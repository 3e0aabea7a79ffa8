//! schemas/summary.schema.json is current, real summary.json files (written by `test` and by
//! `merge`) validate against it, it refuses what is not a summary, and summaries written
//! before the numeric gate figures and `cost_unknown` still read.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(common::repo().join("schemas/summary.schema.json")).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_checked_in_schema_is_current() {
    let out = common::ghostlab_in(&common::repo(), 30)
        .args(["schema", "--kind", "summary", "--check", "schemas/summary.schema.json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "run `ghostlab schema --kind summary --write schemas/summary.schema.json`"
    );
}

#[test]
fn real_summaries_validate_and_carry_numbers_and_cost_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["CI is green. Shall I proceed?", "Done."]);
    let out = common::ghostlab_in(&dir, 120)
        .args(["test", "--job", "job.yaml", "--quiet", "--run", "shard"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = common::ghostlab_in(&dir, 120)
        .args(["merge", "--job", "job.yaml", "--out", "merged", "shard"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = validator();
    for run in ["shard", "merged"] {
        let doc = read(&dir.join(run).join("summary.json"));
        assert_eq!(errors(&v, &doc), Vec::<String>::new(), "{run}");
        for role in ["agent", "emulator", "judge"] {
            assert!(doc["usage"][role]["cost_unknown"].is_boolean(), "{run} {role}: {doc:#}");
        }
        let gate = |name: &str| {
            doc["gates"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["gate"] == name)
                .unwrap()
                .clone()
        };
        let min = gate("min_pass_rate");
        assert_eq!(
            (
                min["threshold"].as_f64(),
                min["unit"].as_str(),
                min["comparison"].as_str()
            ),
            (Some(0.8), Some("ratio"), Some(">="))
        );
        // The measured pass rate as a number (offline, evidence-settled cases can pass).
        let s = &doc["summary"];
        let rate = s["pass"].as_f64().unwrap() / s["trials"].as_f64().unwrap();
        assert!((min["value"].as_f64().unwrap() - rate).abs() < 1e-9, "{min} vs {rate}");
        // No contract: a count gate with a threshold and no measured value.
        let sec = gate("no_high_security_findings");
        assert_eq!(
            (sec["threshold"].as_f64(), sec["unit"].as_str()),
            (Some(0.0), Some("count"))
        );
        assert!(sec.get("value").is_none(), "{sec}");
    }
}

/// Turns a valid summary into an invalid one.
type Breaks = fn(&mut Value);

#[test]
fn the_schema_refuses_what_is_not_a_summary() {
    let v = validator();
    let good: Value = serde_json::from_str(include_str!("../fixtures/summary-v1-before-figures.json")).unwrap();
    assert_eq!(errors(&v, &good), Vec::<String>::new());
    let broken: [(&str, Breaks); 4] = [
        ("another version", |d| d["version"] = 2.into()),
        ("a gate threshold as text", |d| {
            d["gates"][0]["threshold"] = ">= 80%".into();
            d["gates"][0]["unit"] = "ratio".into();
            d["gates"][0]["comparison"] = ">=".into();
        }),
        ("an unknown unit", |d| {
            d["gates"][0]["threshold"] = 0.8.into();
            d["gates"][0]["unit"] = "percent".into();
            d["gates"][0]["comparison"] = ">=".into();
        }),
        ("a verdict that does not exist", |d| {
            d["cases"][0]["trials"][0] = "MAYBE".into()
        }),
    ];
    for (what, breaks) in broken {
        let mut doc = good.clone();
        breaks(&mut doc);
        assert!(!errors(&v, &doc).is_empty(), "{what} was accepted");
    }
}

#[test]
fn a_summary_written_before_the_figures_still_reads() {
    let old: ghostlab::run::suite::SuiteSummary =
        serde_json::from_str(include_str!("../fixtures/summary-v1-before-figures.json")).unwrap();
    assert!(old.gates.iter().all(|g| g.figures.is_none()));
    assert!(!old.usage.agent.cost_unknown);
}
