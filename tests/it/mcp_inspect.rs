//! `ghostlab inspect` through the real binary: says it runs on the host, lists and calls.

use assert_cmd::Command;
use std::path::PathBuf;
use std::time::Duration;

#[test]
fn help_says_it_runs_on_the_host_unsandboxed() {
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["inspect", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("HOST") && help.contains("UNSANDBOXED"), "{help}");
}

#[test]
fn lists_and_calls_a_tool_as_json() {
    let js = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tools/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !js.exists() {
        ghostlab::util::skip::skipped(&format!("SKIPPED: {} is not installed (tools/npm)", js.display()));
        return;
    }
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args([
            "inspect",
            "--json",
            "--timeout",
            "20s",
            "--call",
            "get-sum",
            "--args",
            r#"{"a": 2, "b": 40}"#,
        ])
        .arg("--stdio")
        .arg("node")
        .arg(&js)
        .timeout(Duration::from_secs(40))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tools"].as_array().unwrap().len(), 13);
    assert_eq!(v["resourceTemplates"].as_array().unwrap().len(), 2);
    assert!(v["callResult"].to_string().contains("42"), "{}", v["callResult"]);
}

#[test]
fn bad_arguments_exit_2() {
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["inspect", "--call", "x", "--args", "[1]", "--stdio", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--args must be a JSON object"));
}
