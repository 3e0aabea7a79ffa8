//! The opencode.json Ghostlab emits: valid against the vendored OpenCode schema subset,
//! accepted by the real pinned OpenCode CLI, and free of expanded secrets.

use crate::common;

use assert_cmd::Command;
use common::{example_job, opencode};
use serde_json::Value;

const CANARY: &str = "canary-secret-4f1d9a";

fn emit_example(out: &std::path::Path) -> Value {
    let status = Command::cargo_bin("ghostlab")
        .unwrap()
        .env("RELEASE_TOKEN", CANARY)
        .args(["emit", "--job"])
        .arg(example_job())
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let text = std::fs::read_to_string(out.join("opencode.json")).unwrap();
    assert!(!text.contains(CANARY), "secret value leaked into opencode.json");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn emitted_config_matches_vendored_schema_and_keeps_references() {
    let out = tempfile::tempdir().unwrap();
    let cfg = emit_example(out.path());
    let errors = crate::common::schema_errors("opencode-config.subset", &cfg);
    assert!(
        errors.is_empty(),
        "emitted config drifts from the vendored schema: {errors:?}"
    );
    assert_eq!(
        cfg["mcp"]["release"]["environment"]["RELEASE_TOKEN"],
        "{env:RELEASE_TOKEN}"
    );
    assert_eq!(cfg["mcp"]["filesystem"]["type"], "local");
    assert_eq!(cfg["agent"]["release"]["permission"]["edit"], "allow");
    assert!(
        cfg["agent"]["release"]["prompt"]
            .as_str()
            .unwrap()
            .starts_with("{file:/")
    );
}

#[test]
fn real_opencode_cli_accepts_the_emitted_config() {
    let out = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    emit_example(out.path());
    let result = opencode(home.path())
        .current_dir(out.path())
        .args(["debug", "config"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(
        result.status.success(),
        "opencode rejected the config: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    let resolved: Value = serde_json::from_str(&stdout).expect("opencode printed its resolved config as JSON");
    // OpenCode read our prompt file and kept both MCP servers and the agent's permissions.
    assert!(
        resolved["agent"]["release"]["prompt"]
            .as_str()
            .unwrap()
            .contains("release agent for tinyqueue")
    );
    // OpenCode resolves `{env:…}` itself at run time and masks it when printing.
    assert!(resolved["mcp"]["release"]["environment"]["RELEASE_TOKEN"].is_string());
    assert!(!stdout.contains(CANARY));
    assert!(resolved["mcp"]["filesystem"].is_object());
    assert_eq!(resolved["default_agent"], "release");
}

#[test]
fn real_opencode_cli_rejects_a_broken_config() {
    // Negative control: proves the acceptance test above can fail.
    let out = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut cfg = emit_example(out.path());
    cfg["agent"]["release"]["temperature"] = Value::String("hot".into());
    std::fs::write(out.path().join("opencode.json"), cfg.to_string()).unwrap();
    let result = opencode(home.path())
        .current_dir(out.path())
        .args(["debug", "config"])
        .output()
        .unwrap();
    assert!(!result.status.success());
    assert!(String::from_utf8_lossy(&result.stderr).contains("agent.release.temperature"));
}
