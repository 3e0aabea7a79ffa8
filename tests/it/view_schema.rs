//! schemas/view.schema.json (what `ghostlab view --json` prints) is current, describes the run's
//! figures with the very definitions summary.json's schema uses (one vocabulary: `summary`,
//! `gates` with numeric thresholds and units, `case_id`, the verdict words), and refuses the
//! old shape (`cases`, `case`, `counts`). Real output is validated in tests/it/run_view_cli.rs.

use crate::common;

use serde_json::{Value, json};

/// Turns a valid document into one a consumer must refuse.
type Breaks = fn(&mut Value);

fn schema(kind: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(common::repo().join(format!("schemas/{kind}.schema.json"))).unwrap())
        .unwrap()
}

#[test]
fn the_checked_in_view_schema_is_current() {
    let out = common::ghostlab_in(&common::repo(), 30)
        .args(["schema", "--kind", "view", "--check", "schemas/view.schema.json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "run `ghostlab schema --kind view --write schemas/view.schema.json`"
    );
}

#[test]
fn view_and_summary_share_the_definitions_of_the_same_data() {
    let (view, summary) = (schema("view"), schema("summary"));
    for def in ["Summary", "GateResult", "GateUnit", "Comparison", "Verdict"] {
        assert!(view["$defs"][def].is_object(), "view.schema.json lacks {def}");
        assert_eq!(
            view["$defs"][def], summary["$defs"][def],
            "{def} differs between the schemas"
        );
    }
    let results = &view["$defs"]["RunResults"]["properties"];
    assert_eq!(results["summary"]["$ref"], "#/$defs/Summary");
    assert_eq!(results["gates"]["items"]["$ref"], "#/$defs/GateResult");
    assert_eq!(summary["properties"]["summary"]["$ref"], "#/$defs/Summary");
    // A case is `case_id` wherever it appears.
    assert!(summary["$defs"]["CaseTrials"]["properties"]["case_id"].is_object());
    for def in ["DumpRow", "TrialResult"] {
        let props = &view["$defs"][def]["properties"];
        assert!(props["case_id"].is_object() && props.get("case").is_none(), "{def}");
    }
}

#[test]
fn the_view_schema_refuses_the_old_words_and_text_gates() {
    let v = jsonschema::validator_for(&schema("view")).unwrap();
    let results = json!({
        "run_id": "r", "line": "1 case", "run_dir": "/x", "gates_met": false,
        "summary": {"cases": 1, "trials": 1, "pass": 0, "fail": 1, "inconclusive": 0, "infra_error": 0,
                    "pass_at_1": 0.0, "pass_hat_k": 0.0, "flaky_cases": []},
        "gates": [{"gate": "min_pass_rate", "required": ">= 80.0%", "actual": "0.0%", "met": false,
                   "threshold": 0.8, "value": 0.0, "unit": "ratio", "comparison": ">="}],
        "readiness": {"ready": false, "label": "NOT READY", "reasons": []},
        "trials": [{"case_id": "c", "trial": 1, "persona": "p", "scenario": "s", "verdict": "FAIL",
                    "duration_ms": 5, "first_failure": null, "by_evidence": false}],
        "reports": [], "report_error": null
    });
    let good = json!({
        "version": 2, "run_dir": "/x", "filter": {"verdict": null, "persona": null, "text": ""},
        "trials": [{"case_id": "c", "trial": 1, "persona": "p", "scenario": "s", "turns": 2,
                    "verdict": "FAIL", "duration_ms": 5, "first_failure": null, "by_evidence": false}],
        "results": results,
        "findings": {"decisions_file": "/x/job.decisions.json", "notes": [],
                     "items": [{"id": "workspace-added:c", "source": "verdict", "severity": null,
                                "case_id": "c", "trial": 1, "what": "1 file(s) added to the workspace (a)",
                                "standing": "decided",
                                "decision": {"decision": "waived", "who": "ana", "when": "2026-12-06T05:00:00Z",
                                             "reason": "fine"}}]}
    });
    let errors: Vec<String> = v
        .iter_errors(&good)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    let breaks: [(&str, Breaks); 7] = [
        ("version 1", |d| d["version"] = 1.into()),
        ("`cases` for the trials", |d| {
            let t = d.as_object_mut().unwrap().remove("trials").unwrap();
            d["cases"] = t;
        }),
        ("`counts` for the summary", |d| {
            let s = d["results"].as_object_mut().unwrap().remove("summary").unwrap();
            d["results"]["counts"] = s;
        }),
        ("`case` for the case id", |d| {
            let c = d["trials"][0].as_object_mut().unwrap().remove("case_id").unwrap();
            d["trials"][0]["case"] = c;
        }),
        ("a gate threshold as text", |d| {
            d["results"]["gates"][0]["threshold"] = ">= 80%".into()
        }),
        ("no findings", |d| {
            d.as_object_mut().unwrap().remove("findings");
        }),
        ("a standing the view does not know", |d| {
            d["findings"]["items"][0]["standing"] = "ignored".into()
        }),
    ];
    for (what, brk) in breaks {
        let mut doc = good.clone();
        brk(&mut doc);
        assert!(!v.is_valid(&doc), "{what} was accepted");
    }
}
