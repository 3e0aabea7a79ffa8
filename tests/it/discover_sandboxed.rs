//! `ghostlab discover` starts local MCP servers inside the job's sandbox: a server that looks
//! for a file the test left on the host (named in its environment, which stages nothing) cannot see it under bubblewrap, and can with the explicit
//! `backend: local` (the control that shows the probe works).

use assert_cmd::Command;
use std::path::Path;
use std::time::Duration;

fn bwrap_works() -> Result<(), String> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let p = rt.block_on(ghostlab::sandbox::doctor::probe_bubblewrap());
    if p.works { Ok(()) } else { Err(p.detail) }
}

/// Discovers a job whose one server reports what it sees; returns the tool's description.
fn discovered_description(backend: &str, marker: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp");
    std::fs::copy(fixtures.join("where_am_i.mjs"), dir.path().join("where_am_i.mjs")).unwrap();
    let job = dir.path().join("job.yaml");
    std::fs::write(
        &job,
        format!(
            "version: 1\nagent:\n  id: where\n  workspace: ./ws\n  inputs:\n    mcps:\n      - server: where\n        command: [node, ./where_am_i.mjs]\n        environment: {{ GL_MARKER: \"{}\" }}\n        timeout: 20000\nsandbox:\n  backend: {backend}\n",
            marker.display()
        ),
    )
    .unwrap();
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["discover", "--job"])
        .arg(&job)
        .timeout(Duration::from_secs(90))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let inventory = std::fs::read_to_string(dir.path().join(".ghostlab/inventory.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&inventory).unwrap();
    v["servers"][0]["tools"][0]["description"]
        .as_str()
        .unwrap_or_else(|| panic!("{inventory}"))
        .to_string()
}

#[test]
fn a_discovered_server_runs_inside_the_sandbox_not_on_the_host() {
    if let Err(why) = bwrap_works() {
        ghostlab::util::skip::skipped(&format!("SKIPPED: bubblewrap cannot start here: {why}"));
        return;
    }
    let host = tempfile::tempdir().unwrap();
    let marker = host.path().join("host-only-marker");
    std::fs::write(&marker, "on the host").unwrap();
    let inside = discovered_description("bubblewrap", &marker);
    assert!(inside.contains("marker=absent"), "{inside}");
    let home = std::env::var("HOME").unwrap_or_default();
    assert!(
        !inside.contains(&format!("home={home} ")) && !inside.ends_with(&format!("home={home}")),
        "{inside}"
    );
    // The same probe on the host sees the marker: the probe itself works.
    let outside = discovered_description("local", &marker);
    assert!(outside.contains("marker=visible"), "{outside}");
}
