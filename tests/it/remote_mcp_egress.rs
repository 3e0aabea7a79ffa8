//! Declared remote MCP servers stay reachable from inside the sandbox in every network mode
//! the harness enforces — under the default `disabled` they are the only hosts opened
//! (seed 001 §4) — through the real binary, bubblewrap and the egress proxy.

use crate::common;

use assert_cmd::Command;
use std::io::{Read, Write};
use std::net::TcpListener;

fn bwrap_works() -> Result<(), String> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let p = rt.block_on(ghostlab::sandbox::doctor::probe_bubblewrap());
    if p.works { Ok(()) } else { Err(p.detail) }
}

/// A local HTTP server answering `ok-<tag>` to anything: stands in for a streamable-HTTP MCP host.
fn http_server(tag: &'static str) -> u16 {
    http_server_on("127.0.0.1:0", tag).unwrap()
}

/// [`http_server`] on `addr`; `None` when the address cannot be bound (no IPv6 here).
fn http_server_on(addr: &str, tag: &'static str) -> Option<u16> {
    let l = TcpListener::bind(addr).ok()?;
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let body = format!("ok-{tag}");
            let _ = write!(
                c,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Some(port)
}

fn job(dir: &std::path::Path, mcps: &str, sandbox: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    let path = dir.join("job.yaml");
    std::fs::write(
        &path,
        format!(
            "version: 1\nagent:\n  id: remote-probe\n  workspace: ./ws\n  inputs:\n    mcps:\n{mcps}sandbox:\n  backend: bubblewrap\n  timeout: 30s\n{sandbox}"
        ),
    )
    .unwrap();
    path
}

/// Runs `curl` for each port inside the sandbox; one line per port: the body, or `fail`.
fn reach(job: &std::path::Path, ports: &[u16]) -> (Vec<String>, String) {
    let urls: Vec<String> = ports.iter().map(|p| format!("http://127.0.0.1:{p}/mcp")).collect();
    reach_urls(job, &urls)
}

/// Runs `curl` for each URL inside the sandbox; one line per URL: the body, or `fail`.
fn reach_urls(job: &std::path::Path, urls: &[String]) -> (Vec<String>, String) {
    let script = urls
        .iter()
        .map(|u| format!("curl -gsS --max-time 5 '{u}' 2>/dev/null | grep -q '^ok-' && curl -gsS --max-time 5 '{u}' || printf fail; echo"))
        .collect::<Vec<_>>()
        .join("; ");
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["sandbox", "exec", "--job"])
        .arg(job)
        .args(["--", "sh", "-c"])
        .arg(script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines = stdout.lines().map(str::to_string).collect();
    (lines, format!("{out:?}"))
}

fn skip_without_bwrap() -> bool {
    match bwrap_works() {
        Ok(()) => false,
        Err(why) => {
            ghostlab::util::skip::skipped(&format!("SKIPPED: bubblewrap cannot start here: {why}"));
            true
        }
    }
}

#[test]
fn under_disabled_a_declared_remote_mcp_host_is_the_only_one_opened() {
    if skip_without_bwrap() {
        return;
    }
    let (mcp, other) = (http_server("mcp"), http_server("other"));
    let d = tempfile::tempdir().unwrap();
    let mcps = format!(
        "      - server: remote\n        url: http://127.0.0.1:{mcp}/mcp\n        transport: streamable-http\n"
    );
    let j = job(d.path(), &mcps, "  network: disabled\n");
    let (lines, debug) = reach(&j, &[mcp, other]);
    assert_eq!(lines, ["ok-mcp", "fail"], "{debug}");
    // The session log records what the deny-all opened.
    let log = std::fs::read_to_string(common::session_log(&d.path().join(".ghostlab/sandbox"), "agent")).unwrap();
    assert!(log.contains(&format!("127.0.0.1:{mcp}")), "{log}");
}

#[test]
fn sse_servers_and_urls_with_credentials_open_only_their_host_and_port() {
    if skip_without_bwrap() {
        return;
    }
    let (sse, plain, other) = (http_server("sse"), http_server("plain"), http_server("other"));
    let d = tempfile::tempdir().unwrap();
    // Userinfo in the URL and a query string never widen what is opened.
    let mcps = format!(
        "      - server: events\n        url: http://127.0.0.1:{sse}/sse\n        transport: sse\n      - server: plain\n        url: http://someone:pw@127.0.0.1:{plain}/mcp?x=1\n"
    );
    let j = job(d.path(), &mcps, "");
    let (lines, debug) = reach(&j, &[sse, plain, other]);
    assert_eq!(lines, ["ok-sse", "ok-plain", "fail"], "{debug}");
}

#[test]
fn under_allowlist_declared_remote_hosts_join_the_users_list() {
    if skip_without_bwrap() {
        return;
    }
    let (mcp, listed, other) = (http_server("mcp"), http_server("listed"), http_server("other"));
    let d = tempfile::tempdir().unwrap();
    let mcps = format!("      - server: remote\n        url: http://127.0.0.1:{mcp}/mcp\n");
    let j = job(
        d.path(),
        &mcps,
        &format!("  network: allowlist\n  allow: [\"127.0.0.1:{listed}\"]\n"),
    );
    let (lines, debug) = reach(&j, &[mcp, listed, other]);
    assert_eq!(lines, ["ok-mcp", "ok-listed", "fail"], "{debug}");
}

#[test]
fn a_disabled_remote_server_opens_nothing_in_any_mode() {
    if skip_without_bwrap() {
        return;
    }
    let (on, off) = (http_server("on"), http_server("off"));
    for network in ["  network: disabled\n", ""] {
        let d = tempfile::tempdir().unwrap();
        let mcps = format!(
            "      - server: on\n        url: http://127.0.0.1:{on}/mcp\n      - server: off\n        url: http://127.0.0.1:{off}/mcp\n        enabled: false\n"
        );
        let j = job(d.path(), &mcps, network);
        let (lines, debug) = reach(&j, &[on, off]);
        assert_eq!(lines, ["ok-on", "fail"], "{network:?}: {debug}");
    }
}

#[test]
fn a_local_stdio_server_opens_nothing_under_disabled() {
    if skip_without_bwrap() {
        return;
    }
    let other = http_server("other");
    let d = tempfile::tempdir().unwrap();
    let mcps = format!("      - server: local\n        command: [node, ./server.mjs, \"http://127.0.0.1:{other}/\"]\n");
    let j = job(d.path(), &mcps, "  network: disabled\n");
    let (lines, debug) = reach(&j, &[other]);
    assert_eq!(lines, ["fail"], "{debug}");
}

/// A server on the user's machine declared as `localhost` or `[::1]`: exactly that host:port
/// is opened — the same port under another loopback name, and another loopback port, stay shut.
#[test]
fn a_loopback_server_named_localhost_or_ipv6_opens_only_that_name_and_port() {
    if skip_without_bwrap() {
        return;
    }
    let (mcp, other) = (http_server("mcp"), http_server("other"));
    let d = tempfile::tempdir().unwrap();
    let mut mcps = format!("      - server: named\n        url: http://localhost:{mcp}/mcp\n");
    let v6 = http_server_on("[::1]:0", "v6");
    if let Some(v6) = v6 {
        mcps.push_str(&format!("      - server: six\n        url: http://[::1]:{v6}/mcp\n"));
    }
    let j = job(d.path(), &mcps, "  network: disabled\n");
    let mut urls = vec![
        format!("http://localhost:{mcp}/mcp"),
        format!("http://127.0.0.1:{mcp}/mcp"),
        format!("http://localhost:{other}/mcp"),
    ];
    let mut want = vec!["ok-mcp", "fail", "fail"];
    if let Some(v6) = v6 {
        urls.extend([format!("http://[::1]:{v6}/mcp"), format!("http://[::1]:{other}/mcp")]);
        want.extend(["ok-v6", "fail"]);
    }
    let (lines, debug) = reach_urls(&j, &urls);
    assert_eq!(lines, want, "{debug}");
}
