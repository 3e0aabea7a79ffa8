//! The OpenShell backend against a FAKE `openshell` CLI (tests/fixtures/openshell/fake-openshell)
//! and hand-written FAKE fixtures: command building, env-file handling, output parsing and the
//! fail-closed probe. The live OpenShell path is NOT verified here (no gateway on this machine).

mod common;
use common::session_log;

use std::path::PathBuf;

use ghostlab::sandbox::{ExecOptions, HostPort, NetworkPolicy, Role, Sandbox, SandboxError, SandboxPolicy};
use ghostlab::spec::SandboxBackend;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openshell")
}

#[test]
fn openshell_backend_with_fake_cli() {
    let tmp = tempfile::tempdir().unwrap();
    let argv_log = tmp.path().join("argv.log");
    let root = tmp.path().join("fake-root");
    std::fs::create_dir_all(&root).unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("README.md"), "hello\n").unwrap();
    // SAFETY: this is the only test in this binary; no other thread reads the environment yet.
    unsafe {
        std::env::set_var("GHOSTLAB_OPENSHELL_BIN", fixtures().join("fake-openshell"));
        std::env::set_var("FAKE_OPENSHELL_LOG", &argv_log);
        std::env::set_var("FAKE_OPENSHELL_ROOT", &root);
        std::env::set_var("FAKE_OPENSHELL_STATUS", "connected");
        std::env::set_var("FAKE_OPENSHELL_EXEC_CODE", "3");
    }
    let mut policy = SandboxPolicy::minimal(SandboxBackend::Openshell);
    policy.workspace = Some(ws.clone());
    policy.image = Some("ghcr.io/example/agent-sandbox:1".into());
    policy.providers = vec!["copilot".into()];
    policy
        .env_values
        .insert("API_TOKEN".into(), "tok-secret-it's-42".into());
    policy.network = NetworkPolicy::Allowlist(vec![HostPort::parse("api.githubcopilot.com:443").unwrap()]);
    let logs = tmp.path().join("logs");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let sb = Sandbox::open_with(policy.clone(), logs.clone(), None).await.unwrap();
        let s = sb.session(Role::Agent).await.unwrap();
        let name = s.id().to_string();
        let out = s
            .exec(&["echo".into(), "hi".into()], &ExecOptions::default(), None)
            .await
            .unwrap();
        assert_eq!(out.status, 3, "exit code passes through");
        let text = out.stdout_text();
        assert!(text.starts_with("fake-exec: [sh] [-c]"), "{text}");
        assert!(text.ends_with("[ghostlab-env] [echo] [hi]\n"), "{text}");
        // Per-command env values cannot be passed without an argv: refused, not leaked.
        let mut opts = ExecOptions::default();
        opts.env.insert("X".into(), "y".into());
        assert!(matches!(
            s.command(&["true".into()], &opts),
            Err(SandboxError::Policy(_))
        ));
        let logs_text = s.logs().await.unwrap();
        assert!(logs_text.contains("proxy: DENY CONNECT example.org:443"));
        s.delete().await.unwrap();

        let calls = std::fs::read_to_string(&argv_log).unwrap();
        assert!(
            !calls.contains("tok-secret"),
            "a value reached an openshell argv:\n{calls}"
        );
        let lines: Vec<&str> = calls.lines().collect();
        assert_eq!(lines[0], "status");
        let create = lines.iter().find(|l| l.starts_with("sandbox create")).unwrap();
        assert!(create.contains(&format!("--name {name}")));
        assert!(create.contains("--from ghcr.io/example/agent-sandbox:1"));
        assert!(create.contains("--provider copilot"));
        assert!(!create.contains("--no-auto-providers"));
        assert!(create.contains(":/sandbox/workspace"));
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("sandbox upload {name} ")) && l.ends_with("/sandbox/.ghostlab/env"))
        );
        assert!(lines.iter().any(|l| l.starts_with(&format!(
            "sandbox exec -n {name} --workdir /sandbox/workspace --no-tty -- sh -c"
        ))));
        assert!(lines.contains(&format!("logs {name}").as_str()));
        assert_eq!(lines.last().copied(), Some(format!("sandbox delete {name}").as_str()));
        // The env file arrived in the (fake) sandbox with the value shell-quoted.
        let env = std::fs::read_to_string(root.join("sandbox/.ghostlab/env")).unwrap();
        assert!(env.contains("API_TOKEN='tok-secret-it'\\''s-42'"), "{env}");
        assert!(env.contains("HOME='/sandbox/home'"));
        let log = std::fs::read_to_string(session_log(&logs, "agent")).unwrap();
        assert!(!log.contains("tok-secret"), "a value reached the session log");

        // No gateway: a clear error, never a fallback.
        // SAFETY: single test; the runtime's threads do not read the environment.
        unsafe { std::env::set_var("FAKE_OPENSHELL_STATUS", "unreachable") };
        let err = Sandbox::open_with(policy.clone(), logs.clone(), None)
            .await
            .unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, SandboxError::Unavailable(_)), "{msg}");
        assert!(msg.contains("gateway unreachable"), "{msg}");
    });
}
