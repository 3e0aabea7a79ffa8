//! `ghostlab lint` offline on saved inventories: exit codes per `--fail-on`, JSON contract,
//! and SARIF validated against the vendored OASIS SARIF 2.1.0 schema.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp")
        .join(name)
}

fn lint(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .arg("lint")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn sarif_validator() -> jsonschema::Validator {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-04/schema#");
    jsonschema::draft4::new(&schema).expect("the SARIF schema compiles")
}

#[test]
fn fail_on_levels_decide_the_exit_code() {
    let flawed = fixture("inventory-flawed.json");
    let clean = fixture("inventory-clean.json");
    let (code, stdout, _) = lint(&["--inventory", flawed.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(stdout.contains("error GL017 notes add_note"), "{stdout}");
    assert_eq!(lint(&["--inventory", clean.to_str().unwrap()]).0, Some(0));
    assert_eq!(
        lint(&["--inventory", clean.to_str().unwrap(), "--fail-on", "note"]).0,
        Some(0)
    );

    // A server with warnings and notes only: passes at error, fails at warning.
    let dir = tempfile::tempdir().unwrap();
    let warn_only = dir.path().join("inv.json");
    let text = std::fs::read_to_string(&clean)
        .unwrap()
        .replace(", \"maxLength\": 64", "");
    let text = text.replace("IANA time zone name, e.g. Europe/Paris.", "");
    std::fs::write(&warn_only, text).unwrap();
    let p = warn_only.to_str().unwrap();
    assert_eq!(lint(&["--inventory", p]).0, Some(0));
    assert_eq!(lint(&["--inventory", p, "--fail-on", "warning"]).0, Some(1));
}

#[test]
fn json_output_is_a_versioned_contract() {
    let (code, stdout, _) = lint(&[
        "--inventory",
        fixture("inventory-flawed.json").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1));
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["version"], 1);
    let codes: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    for c in [
        "GL002", "GL003", "GL004", "GL006", "GL007", "GL008", "GL009", "GL010", "GL014", "GL015", "GL016", "GL017",
        "GL020", "GL021", "GL022", "GL023", "GL024", "GL026", "GL027", "GL029",
    ] {
        assert!(codes.contains(&c), "{c} not in {codes:?}");
    }
    let tool = &v["servers"][0]["tools"][1];
    assert_eq!(tool["name"], "deleteNote");
    assert_eq!(tool["effect"], "mutates-state");
    assert!(
        tool["labels"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["label"] == "destructive"
                && l["source"] == "heuristic"
                && l["evidence"] == "name word \"delete\"")
    );
}

#[test]
fn sarif_output_validates_against_the_sarif_2_1_0_schema() {
    let validator = sarif_validator();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out dir/lint.sarif");
    let inv = fixture("inventory-flawed.json");
    let (code, _, stderr) = lint(&[
        "--inventory",
        inv.to_str().unwrap(),
        "--format",
        "sarif",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() > 20);
    assert!(results.iter().any(|r| r["ruleId"] == "GL017" && r["level"] == "error"));
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    for r in results {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"]);
    }
    // The validator really checks: a wrong level and a missing message are rejected.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&broken));
    let mut broken = sarif;
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn unreadable_inventories_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("inv.json");
    std::fs::write(&p, r#"{"version": 7, "servers": []}"#).unwrap();
    let (code, _, stderr) = lint(&["--inventory", p.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("inv.json") && stderr.contains("version"), "{stderr}");
    std::fs::write(&p, "not json").unwrap();
    let (code, _, stderr) = lint(&["--inventory", p.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("not valid JSON"), "{stderr}");
}
