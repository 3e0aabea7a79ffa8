//! Sub-operations run in a scope narrowed from their session's sandbox (seed 004 §Scope):
//! discovery's servers cannot write the workspace, read undeclared credentials or reach a host
//! the job did not allow; a relayed MCP server gets its own HOME (not the agent's, which holds
//! its login), no agent config and no route to the agent's model endpoint. Each is checked
//! against the same probe run with the whole session, which sees all of it.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use assert_cmd::Command;
use ghostlab::sandbox::{Area, ExecOptions, HostPort, NetworkPolicy, Role, Sandbox, SandboxPolicy};
use ghostlab::spec::SandboxBackend;
use ghostlab::spec::resolved::{McpTransport, ResolvedMcp};

fn bwrap_runtime() -> Option<tokio::runtime::Runtime> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let p = rt.block_on(ghostlab::sandbox::doctor::probe_bubblewrap());
    if p.works {
        Some(rt)
    } else {
        ghostlab::util::skip::skipped(&format!("SKIPPED: bubblewrap cannot start here: {}", p.detail));
        None
    }
}

/// A local HTTP server answering `ok-<tag>`.
fn http_server(tag: &'static str) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
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
    port
}

fn local(port: u16) -> HostPort {
    HostPort::parse(&format!("127.0.0.1:{port}")).unwrap()
}

#[test]
fn discovery_runs_each_server_in_a_narrowed_scope() {
    if bwrap_runtime().is_none() {
        return;
    }
    let (allowed, remote) = (http_server("allowed"), http_server("remote"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp");
    std::fs::copy(fixtures.join("scope_probe.mjs"), dir.path().join("scope_probe.mjs")).unwrap();
    // A job input that is not the probe's: the whole session shows it, the probe's scope must not.
    std::fs::create_dir_all(dir.path().join("notes")).unwrap();
    std::fs::write(dir.path().join("notes/release-notes.md"), "notes").unwrap();
    let real = dir.path().canonicalize().unwrap();
    let (own, other) = (
        real.join("scope_probe.mjs").display().to_string(),
        real.join("notes/release-notes.md").display().to_string(),
    );
    let job = dir.path().join("job.yaml");
    std::fs::write(
        &job,
        format!(
            "version: 1\nagent:\n  id: scope\n  workspace: ./ws\n  inputs:\n    assets: [./notes/release-notes.md]\n    mcps:\n      - server: probe\n        command: [node, ./scope_probe.mjs]\n        environment: {{ GL_DECLARED: \"127.0.0.1:{allowed}\", GL_UNDECLARED: \"127.0.0.1:{remote}\", GL_OWN_INPUT: \"{own}\", GL_OTHER_INPUT: \"{other}\" }}\n        timeout: 20000\n      - server: remote\n        url: http://127.0.0.1:{remote}/mcp\n        timeout: 3000\nsandbox:\n  backend: bubblewrap\n  network: allowlist\n  allow: [\"127.0.0.1:{allowed}\"]\n  credentials:\n    env: [GL_JOB_SECRET]\n"
        ),
    )
    .unwrap();
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["discover", "--job"])
        .arg(&job)
        .env("GL_JOB_SECRET", "job-secret-value")
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let inventory =
        std::fs::read_to_string(dir.path().join(".ghostlab/inventory.json")).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    let v: serde_json::Value = serde_json::from_str(&inventory).unwrap();
    let probe = v["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "probe")
        .unwrap_or_else(|| panic!("{inventory}"));
    let seen = probe["tools"][0]["description"]
        .as_str()
        .unwrap_or_else(|| panic!("{inventory}\n{out:?}"));
    assert!(
        seen.contains("write=refused"),
        "the workspace is read-only in discovery: {seen}"
    );
    assert!(seen.contains("cred=absent"), "undeclared credentials stay out: {seen}");
    assert!(
        seen.contains("declared=reached"),
        "the job's allowed host stays reachable: {seen}"
    );
    assert!(
        !seen.contains("undeclared=reached"),
        "a remote MCP server's host is for the harness, not for a stdio server being listed: {seen}"
    );
    assert!(seen.contains("own=visible"), "the server sees its own script: {seen}");
    assert!(
        seen.contains("other=hidden"),
        "another input of the job is not the server's to see: {seen}"
    );
    // The session log names the scope each server ran in.
    let logs = dir.path().join(".ghostlab/logs");
    let text: String = std::fs::read_dir(&logs)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("sandbox-agent-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert!(text.contains("scope: workspace=ro"), "{text}");
}

/// What a process can do, one `key=value` line each.
const PROBE: &str = "if grep -q LOGIN-MARKER \"$HOME/auth.json\" 2>/dev/null; then echo home=shared; else echo home=private; fi; \
    if [ -e /sandbox/config ]; then echo config=visible; else echo config=hidden; fi; \
    if [ -e /run/ghostlab-mcp ]; then echo sockets=visible; else echo sockets=hidden; fi; \
    for p in $MODEL_PORT $SERVER_PORT; do r=$(curl -sS --max-time 5 http://127.0.0.1:$p/ 2>/dev/null | grep '^ok-'); echo \"net$p=${r:-fail}\"; done; \
    if touch /sandbox/workspace/relay-wrote 2>/dev/null; then echo workspace=writable; else echo workspace=read-only; fi";

#[test]
fn a_relayed_server_runs_in_the_relay_scope_not_the_agents_session() {
    let Some(rt) = bwrap_runtime() else { return };
    let (model, server) = (http_server("model"), http_server("server"));
    rt.block_on(async {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let mut policy = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        policy.workspace = Some(ws);
        policy.network = NetworkPolicy::Allowlist(vec![local(model), local(server)]);
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_ghostlab"));
        let sb = Sandbox::open_with(policy, tmp.path().join("logs"), Some(exe))
            .await
            .unwrap();
        let session = Arc::new(sb.session(Role::Agent).await.unwrap());
        // Stands in for the agent host's staged login.
        let login = session.home_dir().join("auth.json");
        std::fs::write(&login, "LOGIN-MARKER").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&login, std::fs::Permissions::from_mode(0o644)).unwrap();
        let env: indexmap::IndexMap<String, String> = [
            ("MODEL_PORT".to_string(), model.to_string()),
            ("SERVER_PORT".to_string(), server.to_string()),
        ]
        .into_iter()
        .collect();
        // The whole session (the agent's view) sees everything the probe looks for.
        let opts = ExecOptions {
            env: env.clone(),
            ..ExecOptions::default()
        };
        let argv = vec!["sh".to_string(), "-c".to_string(), PROBE.to_string()];
        let whole = session.exec(&argv, &opts, None).await.unwrap().stdout_text();
        for line in [
            "home=shared",
            "config=visible",
            "sockets=visible",
            &format!("net{model}=ok-model"),
            &format!("net{server}=ok-server"),
            "workspace=writable",
        ] {
            assert!(whole.lines().any(|l| l == line), "agent view lacks {line}: {whole}");
        }
        let mcp = ResolvedMcp {
            name: "probe".into(),
            transport: McpTransport::Stdio {
                command: argv.clone(),
                cwd: None,
                env,
            },
            enabled: true,
            timeout_ms: None,
            oauth: None,
            origin: (PathBuf::from("probe"), "probe".into()),
        };
        let scope = ghostlab::run::environment::mcp_relay::relay_scope(session.scope(), &[local(server)]);
        let relay = ghostlab::run::environment::mcp_relay::McpRelay::start(&session, std::slice::from_ref(&mcp), scope)
            .unwrap()
            .expect("bubblewrap sessions relay stdio servers");
        // Connect as the agent host would and read what the server reports.
        let mut conn = tokio::net::UnixStream::connect(session.mcp_socket_dir().join("0.sock"))
            .await
            .unwrap();
        let mut seen = String::new();
        tokio::time::timeout(
            Duration::from_secs(30),
            tokio::io::AsyncReadExt::read_to_string(&mut conn, &mut seen),
        )
        .await
        .expect("the relayed server answered")
        .unwrap();
        relay.stop();
        drop(relay);
        for line in [
            "home=private",
            "config=hidden",
            "sockets=hidden",
            &format!("net{model}=fail"),
            &format!("net{server}=ok-server"),
            "workspace=writable",
        ] {
            assert!(
                seen.lines().any(|l| l == line),
                "relayed server: expected {line}: {seen}"
            );
        }
        let log = std::fs::read_to_string(session.log_path()).unwrap();
        assert!(log.contains("scoped egress proxy"), "{log}");
        if let Ok(s) = Arc::try_unwrap(session) {
            s.delete().await.unwrap();
        }
    });
}

#[test]
fn a_scope_wider_than_its_session_or_a_backend_that_cannot_draw_it_is_refused() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let tmp = tempfile::tempdir().unwrap();
        let narrow = Sandbox::open(SandboxPolicy::minimal(SandboxBackend::Local), tmp.path().join("a"))
            .await
            .unwrap();
        let mut wide_policy = SandboxPolicy::minimal(SandboxBackend::Local);
        wide_policy.read_only.push(PathBuf::from("/opt"));
        wide_policy.network = NetworkPolicy::Allowlist(vec![local(1)]);
        let wide = Sandbox::open(wide_policy, tmp.path().join("b")).await.unwrap();
        let s = narrow.session(Role::Agent).await.unwrap();
        let w = wide.session(Role::Agent).await.unwrap();
        let argv = vec!["true".to_string()];
        // Another session's wider scope: refused, never granted.
        let err = s.command_in(&w.scope(), &argv, &ExecOptions::default()).unwrap_err();
        assert!(err.to_string().contains("must lie within"), "{err}");
        // Local cannot draw a private HOME: it refuses rather than run with the shared one.
        let err = s
            .command_in(&s.scope().hide(Area::Home), &argv, &ExecOptions::default())
            .unwrap_err();
        assert!(
            err.to_string().contains("cannot run a command in a narrowed scope"),
            "{err}"
        );
        // The whole session's own scope still runs.
        assert!(s.command_in(&s.scope(), &argv, &ExecOptions::default()).is_ok());
        s.delete().await.unwrap();
        w.delete().await.unwrap();
    });
}

/// Whether the relay closed `conn` at once (a refusal) rather than holding it open for a
/// server that waits for input.
async fn closed_at_once(conn: &mut tokio::net::UnixStream) -> bool {
    let mut buf = [0u8; 16];
    matches!(
        tokio::time::timeout(Duration::from_secs(3), tokio::io::AsyncReadExt::read(conn, &mut buf)).await,
        Ok(Ok(0)) | Ok(Err(_))
    )
}

#[test]
fn a_flood_of_connections_to_a_relayed_server_is_capped_logged_and_served_again_after() {
    let Some(rt) = bwrap_runtime() else { return };
    rt.block_on(async {
        let tmp = tempfile::tempdir().unwrap();
        let policy = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_ghostlab"));
        let sb = Sandbox::open_with(policy, tmp.path().join("logs"), Some(exe))
            .await
            .unwrap();
        let session = Arc::new(sb.session(Role::Agent).await.unwrap());
        // A server that waits for its input: each served connection holds one open.
        let mcp = ResolvedMcp {
            name: "waits".into(),
            transport: McpTransport::Stdio {
                command: vec!["sh".into(), "-c".into(), "cat >/dev/null".into()],
                cwd: None,
                env: Default::default(),
            },
            enabled: true,
            timeout_ms: None,
            oauth: None,
            origin: (PathBuf::from("probe"), "probe".into()),
        };
        let scope = ghostlab::run::environment::mcp_relay::relay_scope(session.scope(), &[]);
        let relay = ghostlab::run::environment::mcp_relay::McpRelay::start(&session, std::slice::from_ref(&mcp), scope)
            .unwrap()
            .expect("bubblewrap sessions relay stdio servers");
        let sock = session.mcp_socket_dir().join("0.sock");
        let cap = ghostlab::run::environment::mcp_relay::MAX_RELAYED;
        let mut held = Vec::new();
        for _ in 0..cap {
            held.push(tokio::net::UnixStream::connect(&sock).await.unwrap());
        }
        // Let the relay start every one before the flood.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut over = Vec::new();
        for _ in 0..20 {
            over.push(tokio::net::UnixStream::connect(&sock).await.unwrap());
        }
        for c in &mut over {
            assert!(closed_at_once(c).await, "a connection over the cap was served");
        }
        assert!(!closed_at_once(&mut held[0]).await, "a served connection was closed");
        // One ends: the next connection is served again.
        held.pop();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut again = tokio::net::UnixStream::connect(&sock).await.unwrap();
        assert!(!closed_at_once(&mut again).await, "not served again after the flood");
        relay.stop();
        drop((relay, held, again, over));
        // The log is written by its own thread: wait for the lines.
        let mut log = String::new();
        for _ in 0..50 {
            log = std::fs::read_to_string(session.log_path()).unwrap_or_default();
            if log.contains("refused over the cap") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(log.contains("MCP relay REFUSED connection: server `waits`"), "{log}");
        assert!(log.contains("20 connection(s) refused over the cap"), "{log}");
        assert_eq!(log.matches("started for a connection").count(), cap + 1, "{log}");
        if let Ok(s) = Arc::try_unwrap(session) {
            s.delete().await.unwrap();
        }
    });
}
