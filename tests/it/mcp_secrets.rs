//! Secrets given as `${VAR}` references (stdio env, remote headers) reach only the server:
//! never inventory.json, contract.json, job.yaml, the stderr logs, or the terminal.

use assert_cmd::Command;
use ghostlab::mcp::inventory::{Inventory, ServerStatus};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::server_everything;

const SECRET: &str = "sk-ghostlab-test-7f3a9c1e55";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir`, as text.
fn all_text(dir: &Path) -> Vec<(PathBuf, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().to_path_buf(),
                String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned(),
            )
        })
        .collect()
}

#[test]
fn secrets_stay_out_of_every_artifact_log_and_message() {
    let js = server_everything::script();
    if !js.exists() {
        ghostlab::util::skip::skipped(&format!("SKIPPED: {} is not installed (tools/npm)", js.display()));
        return;
    }
    let http = server_everything::start("streamableHttp", Duration::from_secs(15));
    let sse = server_everything::start("sse", Duration::from_secs(15));
    let (http_port, sse_port) = (http.port, sse.port);
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.yaml");
    let leaky = root().join("tests/fixtures/mcp/leaky.mjs");
    std::fs::write(
        &job,
        format!(
            r#"version: 1
agent:
  id: secrets
  inputs:
    mcps:
      - server: remote-http
        url: http://127.0.0.1:{http_port}/mcp
        transport: streamable-http
        headers: {{ Authorization: "Bearer ${{GL_TEST_TOKEN}}" }}
        timeout: 10000
      - server: remote-sse
        url: http://127.0.0.1:{sse_port}/sse
        transport: sse
        headers: {{ Authorization: "Bearer ${{GL_TEST_TOKEN}}" }}
        timeout: 10000
      - server: leaky
        command: [node, "{}"]
        environment: {{ NOTES_API_TOKEN: "${{GL_TEST_TOKEN}}" }}
        timeout: 5000
      - server: unset
        url: http://127.0.0.1:{http_port}/mcp
        transport: streamable-http
        headers: {{ Authorization: "Bearer ${{GL_TEST_NEVER_SET}}" }}
"#,
            leaky.display()
        ),
    )
    .unwrap();
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["discover", "--job"])
        .arg(&job)
        .env("GL_TEST_TOKEN", SECRET)
        .env_remove("GL_TEST_NEVER_SET")
        .timeout(Duration::from_secs(40))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        !stdout.contains(SECRET) && !stderr.contains(SECRET),
        "secret on the terminal: {stderr}"
    );

    let inv =
        Inventory::from_json(&std::fs::read_to_string(dir.path().join(".ghostlab/inventory.json")).unwrap()).unwrap();
    let by_name = |n: &str| inv.servers.iter().find(|s| s.name == n).unwrap();
    assert_eq!(
        by_name("remote-http").status,
        ServerStatus::Ok,
        "{:?}",
        by_name("remote-http").error
    );
    assert_eq!(by_name("remote-http").tools.len(), 13);
    assert_eq!(by_name("remote-http").transport, "streamable-http");
    assert_eq!(
        by_name("remote-sse").status,
        ServerStatus::Ok,
        "{:?}",
        by_name("remote-sse").error
    );
    assert_eq!(by_name("remote-sse").transport, "sse");
    let leaky = by_name("leaky");
    assert_eq!(leaky.status, ServerStatus::Error);
    let err = leaky.error.as_deref().unwrap();
    assert!(err.contains("auth failed for ***"), "{err}");
    let unset = by_name("unset").error.as_deref().unwrap();
    assert!(
        unset.contains("GL_TEST_NEVER_SET") && unset.contains("Authorization"),
        "{unset}"
    );

    let files = all_text(dir.path());
    assert!(files.iter().any(|(p, _)| p.ends_with("mcp-leaky.stderr.log")));
    for (path, text) in &files {
        assert!(!text.contains(SECRET), "secret written to {}", path.display());
    }
    let log = files.iter().find(|(p, _)| p.ends_with("mcp-leaky.stderr.log")).unwrap();
    assert!(log.1.contains("connecting with token ***"), "{}", log.1);
    assert!(std::fs::read_to_string(&job).unwrap().contains("${GL_TEST_TOKEN}"));
}
