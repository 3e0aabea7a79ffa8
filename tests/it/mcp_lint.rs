//! `ghostlab lint` offline on saved inventories: exit codes per `--fail-on` and the JSON
//! contract (SARIF: tests/it/sarif_github.rs).

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
