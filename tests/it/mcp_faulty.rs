//! Faulty MCP servers (tests/fixtures/mcp/*.mjs): each gives a clear error naming what the
//! server did within the timeout, none hangs, and a job mixing good and bad servers still
//! discovers the good ones.

use assert_cmd::Command;
use ghostlab::mcp::contract::build_contract;
use ghostlab::mcp::inventory::{Inventory, ServerInventory, ServerStatus, collect};
use ghostlab::mcp::{ConnectOptions, Endpoint, HostLauncher, LaunchSpec, McpError, connect};
use indexmap::IndexMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp")
        .join(name)
        .display()
        .to_string()
}

fn node(script: &str, extra: &[&str]) -> Endpoint {
    let mut argv = vec!["node".to_string(), fixture(script)];
    argv.extend(extra.iter().map(|s| s.to_string()));
    Endpoint::Stdio(LaunchSpec {
        argv,
        env: IndexMap::new(),
        cwd: None,
    })
}

fn opts(secs: u64, log: Option<PathBuf>) -> ConnectOptions {
    ConnectOptions {
        startup_timeout: Duration::from_secs(secs),
        request_timeout: Duration::from_secs(secs),
        stderr_log: log,
    }
}

/// Connects and lists; returns the entry or the error message.
async fn discover(endpoint: &Endpoint, o: &ConnectOptions) -> Result<ServerInventory, String> {
    let mut client = connect(endpoint, &HostLauncher, o).await.map_err(|e| e.to_string())?;
    let mut entry = ServerInventory::empty("t", endpoint.kind(), ServerStatus::Ok);
    let r = collect(&mut client, &mut entry).await;
    client.close().await;
    r.map(|()| entry).map_err(|e| e.to_string())
}

/// Processes whose argv holds `tag`.
fn processes_tagged(tag: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline"))
            && String::from_utf8_lossy(&cmd).contains(tag)
        {
            out.push(pid);
        }
    }
    out
}

#[tokio::test]
async fn exits_at_start_reports_exit_status_and_stderr() {
    let started = Instant::now();
    let err = discover(&node("exit_at_start.mjs", &[]), &opts(5, None))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert!(err.contains("initialize"), "{err}");
    assert!(err.contains("exit status: 3"), "{err}");
    assert!(err.contains("DATABASE_URL is not set"), "{err}");
    assert!(!err.contains("whole stderr"), "no log was kept, none is named: {err}");
}

#[tokio::test]
async fn a_failure_names_the_log_that_holds_the_whole_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mcp-dead.stderr.log");
    let err = discover(&node("exit_at_start.mjs", &[]), &opts(5, Some(log.clone())))
        .await
        .unwrap_err();
    assert!(
        err.contains(&format!("its whole stderr is in {}", log.display())),
        "{err}"
    );
    assert!(
        std::fs::read_to_string(&log)
            .unwrap()
            .contains("DATABASE_URL is not set")
    );
}

#[tokio::test]
async fn never_answering_initialize_times_out_and_kills_the_process_group() {
    let tag = format!("ghostlab-test-tag-{}", std::process::id());
    let started = Instant::now();
    let err = connect(&node("never_initialize.mjs", &[&tag]), &HostLauncher, &opts(2, None))
        .await
        .err()
        .expect("a server that never answers cannot connect");
    let took = started.elapsed();
    assert!(matches!(err, McpError::StartupTimeout { .. }), "{err}");
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(5),
        "took {took:?}"
    );
    assert!(
        err.to_string().contains("did not answer `initialize` within 2.0s"),
        "{err}"
    );
    // The grandchild carries the tag; killing only the direct child would leave it running.
    let mut left = processes_tagged(&tag);
    for _ in 0..20 {
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = processes_tagged(&tag);
    }
    left.retain(|p| *p != std::process::id());
    assert!(left.is_empty(), "processes of the group survived: {left:?}");
}

#[tokio::test]
async fn non_json_stdout_is_named_in_the_error() {
    let started = Instant::now();
    let err = discover(&node("non_json_stdout.mjs", &[]), &opts(2, None))
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(err.contains("non-JSON"), "{err}");
    assert!(err.contains("Starting notes server"), "{err}");
}

#[tokio::test]
async fn ten_mib_of_stderr_does_not_hang_and_is_logged_with_a_cap() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("flood.log");
    let started = Instant::now();
    let entry = discover(&node("stderr_flood.mjs", &[]), &opts(10, Some(log.clone())))
        .await
        .expect("the flooding server works once drained");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(entry.tools.len(), 1);
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size > 8_000_000 && size < 8_500_000, "log size {size}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.ends_with("further stderr drained and discarded]\n"));
}

#[tokio::test]
async fn crash_mid_call_reports_the_exit() {
    let mut client = connect(&node("crash_mid_call.mjs", &[]), &HostLauncher, &opts(5, None))
        .await
        .unwrap();
    assert_eq!(client.list_tools().await.unwrap().len(), 1);
    let started = Instant::now();
    let err = client.call_tool("read_note", None).await.unwrap_err().to_string();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(err.contains("tools/call"), "{err}");
    assert!(err.contains("exit status: 70"), "{err}");
    assert!(err.contains("panic: nil pointer"), "{err}");
    client.close().await;
}

#[tokio::test]
async fn a_schema_that_breaks_mcp_types_is_a_clear_list_error() {
    let err = discover(&node("malformed_schema.mjs", &["hard"]), &opts(5, None))
        .await
        .unwrap_err();
    assert!(err.contains("tools/list"), "{err}");
    assert!(err.contains("malformed result"), "{err}");
}

#[tokio::test]
async fn broken_schema_content_becomes_findings() {
    let entry = discover(&node("malformed_schema.mjs", &[]), &opts(5, None))
        .await
        .unwrap();
    let mut entry = entry;
    entry.name = "malformed".into();
    let inv = Inventory {
        version: 1,
        generated_at: String::new(),
        servers: vec![entry],
    };
    let contract = build_contract(&inv);
    let codes: Vec<&str> = contract.findings.iter().map(|f| f.code.as_str()).collect();
    for code in ["GL010", "GL028", "GL004", "GL005", "GL020", "GL021", "GL002"] {
        assert!(codes.contains(&code), "missing {code} in {codes:?}");
    }
    let delete = contract.tool("malformed", "deleteFile").unwrap();
    let labels: Vec<String> = delete.labels.iter().map(|l| format!("{:?}", l.label)).collect();
    assert!(labels.contains(&"Destructive".to_string()), "{labels:?}");
    assert!(labels.contains(&"CredentialBearing".to_string()), "{labels:?}");
}

#[test]
fn discover_on_a_mixed_job_keeps_the_good_servers() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.yaml");
    std::fs::write(
        &job,
        format!(
            "version: 1\nagent:\n  id: mixed\n  inputs:\n    mcps:\n{}",
            [
                ("good", "stderr_flood.mjs", 8000),
                ("dead", "exit_at_start.mjs", 3000),
                ("mute", "never_initialize.mjs", 2000),
                ("banner", "non_json_stdout.mjs", 2000),
                ("broken", "malformed_schema.mjs\", \"hard", 3000),
            ]
            .iter()
            .map(|(n, f, t)| format!(
                "      - server: {n}\n        command: [node, \"{}\"]\n        timeout: {t}\n",
                fixture(f)
            ))
            .collect::<String>()
        ),
    )
    .unwrap();
    let started = Instant::now();
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["discover", "--job"])
        .arg(&job)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // Concurrent: the slowest server bounds the run, not the sum of timeouts.
    assert!(took < Duration::from_secs(8), "took {took:?}");
    for name in ["good", "dead", "mute", "banner", "broken"] {
        assert!(stderr.contains(&format!("[{name}] starting (stdio)")), "{stderr}");
    }
    assert!(stderr.contains("[good] ok: 1 tools"), "{stderr}");
    assert!(stderr.contains("[dead] FAILED"), "{stderr}");
    let inv: Inventory =
        Inventory::from_json(&std::fs::read_to_string(dir.path().join(".ghostlab/inventory.json")).unwrap()).unwrap();
    let status: Vec<(&str, ServerStatus)> = inv.servers.iter().map(|s| (s.name.as_str(), s.status)).collect();
    assert_eq!(
        status,
        vec![
            ("good", ServerStatus::Ok),
            ("dead", ServerStatus::Error),
            ("mute", ServerStatus::Error),
            ("banner", ServerStatus::Error),
            ("broken", ServerStatus::Error),
        ]
    );
    for s in inv.servers.iter().filter(|s| s.status == ServerStatus::Error) {
        let e = s.error.as_deref().unwrap();
        assert!(e.starts_with(&format!("server `{}`: ", s.name)), "{e}");
    }
    let contract: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(".ghostlab/contract.json")).unwrap()).unwrap();
    assert_eq!(contract["version"], 1);
    let saved = ghostlab::spec::load_job(&job).unwrap();
    assert_eq!(saved.job.capabilities["good"].tools, vec!["read_note"]);
    assert!(!saved.job.capabilities.contains_key("dead"));
}
