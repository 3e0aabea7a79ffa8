//! The OpenShell backend against a FAKE `openshell` CLI (tests/fixtures/openshell/fake-openshell,
//! which runs each sandbox as a bubblewrap session) and hand-written FAKE fixtures: command
//! building, env-file handling, stdin and exit codes, output parsing and the fail-closed probe. The live OpenShell path is NOT verified here (no gateway on this machine).

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
    }
    let mut policy = SandboxPolicy::minimal(SandboxBackend::Openshell);
    policy.workspace = Some(ws.clone());
    policy.image = Some("ghcr.io/example/tools:1".into());
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
        let sh = |script: &str| vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        let out = s
            .exec(&sh("cat; exit 3"), &ExecOptions::default(), Some(b"piped".to_vec()))
            .await
            .unwrap();
        assert_eq!(out.status, 3, "exit code passes through");
        assert_eq!(out.stdout_text(), "piped", "stdin passes through");
        // The credential reaches the command through the uploaded env file.
        let out = s
            .exec(
                &sh("printf %s \"$API_TOKEN\"; cat README.md"),
                &ExecOptions::default(),
                None,
            )
            .await
            .unwrap();
        assert_eq!(out.stdout_text(), "tok-secret-it's-42hello\n");
        // A plain per-command value travels as `--env`; a secret-named one is refused.
        let mut opts = ExecOptions::default();
        opts.env.insert("X".into(), "y".into());
        let out = s.exec(&sh("printf %s \"$X\""), &opts, None).await.unwrap();
        assert_eq!(out.stdout_text(), "y");
        opts.env.insert("OTHER_TOKEN".into(), "z".into());
        assert!(matches!(
            s.command(&["true".into()], &opts),
            Err(SandboxError::Policy(_))
        ));
        let logs_text = s.logs().await.unwrap();
        assert!(logs_text.contains("FAKE supervisor: exec sh"), "{logs_text}");
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
        assert!(create.contains("--from ghcr.io/example/tools:1"));
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
        // Deleted: the fake gateway holds no sandbox any more.
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);
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
