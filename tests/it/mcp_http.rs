//! Streamable HTTP and legacy SSE against the real server-everything started on 127.0.0.1 by the
//! test, with headers resolved from `${VAR}` references; and a clear error for an unreachable
//! endpoint.

use ghostlab::mcp::inventory::{ServerInventory, ServerStatus, collect};
use ghostlab::mcp::{ConnectOptions, Endpoint, HostLauncher, McpError, connect};
use indexmap::IndexMap;
use std::time::{Duration, Instant};

use crate::common::server_everything::{self, ServerEverything};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn opts() -> ConnectOptions {
    ConnectOptions {
        startup_timeout: Duration::from_secs(10),
        request_timeout: Duration::from_secs(10),
        stderr_log: None,
    }
}

/// Starts server-everything in `mode` on a free port; `None` (skipped, printed) when absent.
fn start_everything(mode: &str) -> Option<ServerEverything> {
    let js = server_everything::script();
    if !js.exists() {
        ghostlab::util::skip::skipped(&format!("SKIPPED: {} is not installed (tools/npm)", js.display()));
        return None;
    }
    Some(server_everything::start(mode, Duration::from_secs(15)))
}

#[tokio::test]
async fn legacy_sse_lists_server_everything() {
    let Some(server) = start_everything("sse") else {
        return;
    };
    let port = server.port;
    let endpoint = Endpoint::Sse {
        url: format!("http://127.0.0.1:{port}/sse"),
        headers: IndexMap::from([("X-Ghostlab-Test".to_string(), "${CARGO_PKG_NAME}".to_string())]),
    };
    let mut client = connect(&endpoint, &HostLauncher, &opts())
        .await
        .expect("connects over SSE");
    let mut entry = ServerInventory::empty("everything", "sse", ServerStatus::Ok);
    collect(&mut client, &mut entry).await.expect("lists over SSE");
    let echo = client
        .call_tool("echo", serde_json::json!({"message": "over sse"}).as_object().cloned())
        .await
        .unwrap();
    client.close().await;
    assert_eq!(
        (entry.tools.len(), entry.resources.len(), entry.prompts.len()),
        (13, 7, 4)
    );
    assert!(echo.to_string().contains("over sse"), "{echo}");
}

#[tokio::test]
async fn streamable_http_lists_server_everything() {
    let Some(server) = start_everything("streamableHttp") else {
        return;
    };
    let port = server.port;
    // cargo sets CARGO_PKG_NAME for test processes: a real `${VAR}` resolved at connect time.
    let headers = IndexMap::from([("X-Ghostlab-Test".to_string(), "${CARGO_PKG_NAME}".to_string())]);
    let endpoint = Endpoint::StreamableHttp {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers,
    };
    let mut client = connect(&endpoint, &HostLauncher, &opts())
        .await
        .expect("connects over HTTP");
    let mut entry = ServerInventory::empty("everything", "streamable-http", ServerStatus::Ok);
    collect(&mut client, &mut entry).await.expect("lists over HTTP");
    let echo = client
        .call_tool("echo", serde_json::json!({"message": "hi"}).as_object().cloned())
        .await
        .unwrap();
    client.close().await;
    assert_eq!(entry.tools.len(), 13);
    assert_eq!(entry.resources.len(), 7);
    assert_eq!(entry.prompts.len(), 4);
    assert!(echo.to_string().contains("hi"), "{echo}");
}

#[tokio::test]
async fn missing_header_variable_is_named_without_connecting() {
    let endpoint = Endpoint::StreamableHttp {
        url: "http://127.0.0.1:9/mcp".into(),
        headers: IndexMap::from([(
            "Authorization".to_string(),
            "Bearer ${GHOSTLAB_SURELY_UNSET_VAR}".to_string(),
        )]),
    };
    let err = connect(&endpoint, &HostLauncher, &opts()).await.err().unwrap();
    assert!(matches!(err, McpError::Header(_)), "{err}");
    assert!(err.to_string().contains("GHOSTLAB_SURELY_UNSET_VAR") && err.to_string().contains("Authorization"));
}

#[tokio::test]
async fn unreachable_endpoint_fails_within_the_timeout() {
    let port = free_port();
    let endpoint = Endpoint::StreamableHttp {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers: IndexMap::new(),
    };
    let started = Instant::now();
    let err = connect(&endpoint, &HostLauncher, &opts()).await.err().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(11),
        "took {:?}",
        started.elapsed()
    );
    let msg = err.to_string();
    assert!(msg.contains("initialize") || msg.contains(&port.to_string()), "{msg}");
}
