//! Discovery against the real, pinned npm servers (tools/npm, 2026.8.31) and the release-bot
//! example: counts and labels checked against what those servers really expose.

use assert_cmd::Command;
use ghostlab::mcp::contract::{Effect, LabelSource, RiskLabel, build_contract};
use ghostlab::mcp::inventory::{Inventory, ServerInventory, ServerStatus, collect};
use ghostlab::mcp::{ConnectOptions, Endpoint, HostLauncher, LaunchSpec, connect};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The server's entry point, or `None` (test prints why it is skipped) when tools/npm is absent.
fn npm_server(pkg: &str) -> Option<String> {
    let p = root()
        .join("tools/npm/node_modules/@modelcontextprotocol")
        .join(pkg)
        .join("dist/index.js");
    if p.exists() {
        Some(p.display().to_string())
    } else {
        ghostlab::util::skip::skipped(&format!("SKIPPED: {} is not installed (tools/npm)", p.display()));
        None
    }
}

async fn discover(argv: Vec<String>) -> ServerInventory {
    let endpoint = Endpoint::Stdio(LaunchSpec {
        argv,
        env: IndexMap::new(),
        cwd: None,
    });
    let opts = ConnectOptions {
        startup_timeout: Duration::from_secs(20),
        request_timeout: Duration::from_secs(20),
        stderr_log: None,
    };
    let mut client = connect(&endpoint, &HostLauncher, &opts).await.expect("server starts");
    let mut entry = ServerInventory::empty("s", "stdio", ServerStatus::Ok);
    collect(&mut client, &mut entry).await.expect("server lists");
    client.close().await;
    entry
}

fn inventory(name: &str, mut entry: ServerInventory) -> Inventory {
    entry.name = name.into();
    Inventory {
        version: 1,
        generated_at: String::new(),
        servers: vec![entry],
    }
}

#[tokio::test]
async fn server_everything_exposes_13_tools_7_resources_4_prompts() {
    let Some(js) = npm_server("server-everything") else {
        return;
    };
    let entry = discover(vec!["node".into(), js]).await;
    assert_eq!(
        entry.tools.len(),
        13,
        "{:?}",
        entry.tools.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
    assert_eq!(entry.resources.len(), 7);
    assert_eq!(entry.prompts.len(), 4);
    assert_eq!(entry.resource_templates.len(), 2);
    assert_eq!(entry.server_info.as_ref().unwrap()["name"], "mcp-servers/everything");
    assert!(entry.protocol_version.is_some());
    assert!(entry.declares("tools") && entry.declares("resources") && entry.declares("prompts"));
    let echo = entry.tools.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(echo.input_schema["required"][0], "message");

    let contract = build_contract(&inventory("everything", entry));
    let echo = contract.tool("everything", "echo").unwrap();
    assert_eq!(echo.effect, Effect::ReadOnly);
    assert_eq!(echo.labels[0].source, LabelSource::Annotation);
    let gzip = contract.tool("everything", "gzip-file-as-resource").unwrap();
    assert_eq!(gzip.effect, Effect::MutatesState);
    assert!(
        gzip.labels
            .iter()
            .any(|l| l.label == RiskLabel::ExternalNetwork && l.evidence == "openWorldHint=true")
    );
    // Its prompts leave arguments undocumented? Either way every finding names the server.
    assert!(contract.findings.iter().all(|f| f.server == "everything"));
}

#[tokio::test]
async fn server_filesystem_write_tools_mutate_and_read_tools_do_not() {
    let Some(js) = npm_server("server-filesystem") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let entry = discover(vec!["node".into(), js, dir.path().display().to_string()]).await;
    assert_eq!(
        entry.tools.len(),
        14,
        "{:?}",
        entry.tools.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
    assert!(!entry.declares("prompts"));
    let contract = build_contract(&inventory("fs", entry));
    for name in ["write_file", "edit_file", "create_directory", "move_file"] {
        let t = contract.tool("fs", name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(t.effect, Effect::MutatesState, "{name}: {:?}", t.labels);
        assert!(
            t.labels
                .iter()
                .any(|l| l.label == RiskLabel::MutatesState && l.source == LabelSource::Annotation)
        );
        assert!(!t.labels.iter().any(|l| l.label == RiskLabel::ReadOnly));
    }
    for name in [
        "read_text_file",
        "read_media_file",
        "read_multiple_files",
        "list_directory",
        "directory_tree",
        "search_files",
        "get_file_info",
        "list_allowed_directories",
    ] {
        let t = contract.tool("fs", name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(t.effect, Effect::ReadOnly, "{name}: {:?}", t.labels);
    }
    let write = contract.tool("fs", "write_file").unwrap();
    assert!(write.labels.iter().any(|l| l.label == RiskLabel::Destructive));
}

/// Copies examples/release-bot (its MCP servers run from its own folder), leaving the
/// repository's example untouched.
fn copy_release_bot(dst: &Path) -> PathBuf {
    let to = dst.join("examples/release-bot");
    std::fs::create_dir_all(&to).unwrap();
    crate::common::copy_release_bot(&to);
    to
}

#[test]
fn discover_on_the_release_bot_example() {
    if npm_server("server-filesystem").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let example = copy_release_bot(tmp.path());
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .current_dir(&example)
        // The example's release server declares RELEASE_TOKEN as a ${VAR}; a user exports it.
        .env("RELEASE_TOKEN", "example-token-for-tests")
        .args(["discover", "--job", "job.yaml", "--timeout", "20s"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("[release] ok: 4 tools"), "{stderr}");
    assert!(stderr.contains("[filesystem] ok: 14 tools"), "{stderr}");
    let state = example.join(".ghostlab");
    let inv = Inventory::from_json(&std::fs::read_to_string(state.join("inventory.json")).unwrap()).unwrap();
    assert_eq!(inv.servers.len(), 2);
    assert!(inv.servers.iter().all(|s| s.status == ServerStatus::Ok));
    let contract = build_contract(&inv);
    let publish = contract.tool("release", "publish_release").unwrap();
    assert!(publish.labels.iter().any(|l| l.label == RiskLabel::Destructive));
    assert!(publish.labels.iter().any(|l| l.label == RiskLabel::ExternalNetwork));
    assert_eq!(contract.tool("release", "ci_status").unwrap().effect, Effect::ReadOnly);
    let saved = ghostlab::spec::load_job(&example.join("job.yaml")).unwrap();
    assert_eq!(
        saved.job.capabilities["release"].tools,
        vec!["ci_status", "list_tags", "create_tag", "publish_release"]
    );
    assert_eq!(saved.job.capabilities["filesystem"].tools.len(), 14);
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("contract.json")).unwrap()).unwrap();
    assert_eq!(written["version"], 1);
    assert!(
        std::fs::read_to_string(root().join("examples/release-bot/job.yaml"))
            .unwrap()
            .contains("# Ghostlab job for the release-bot example")
    );
}

#[tokio::test]
async fn a_host_server_sees_only_the_inherited_environment_and_its_own_env() {
    let Some(js) = npm_server("server-everything") else {
        return;
    };
    let endpoint = Endpoint::Stdio(LaunchSpec {
        argv: vec!["node".into(), js],
        env: IndexMap::from([("GHOSTLAB_SERVER_SETTING".to_string(), "on".to_string())]),
        cwd: None,
    });
    let opts = ConnectOptions {
        startup_timeout: Duration::from_secs(20),
        request_timeout: Duration::from_secs(20),
        stderr_log: None,
    };
    let mut client = connect(&endpoint, &HostLauncher, &opts).await.unwrap();
    let result = client.call_tool("get-env", None).await.unwrap();
    client.close().await;
    let text = result["content"][0]["text"].as_str().unwrap();
    let env: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).unwrap();
    assert_eq!(env["GHOSTLAB_SERVER_SETTING"], "on");
    for key in env.keys() {
        assert!(
            key == "GHOSTLAB_SERVER_SETTING" || ghostlab::mcp::launcher::INHERITED_ENV.contains(&key.as_str()),
            "host variable {key} leaked into the server"
        );
    }
    assert!(!env.contains_key("CARGO_PKG_NAME"), "cargo's test environment leaked");
}
