//! `ghostlab sandbox exec`, `sandbox shell` argument handling and `ghostlab doctor` through the
//! real binary and real bubblewrap. Skipped (printed, not passed) when bwrap cannot start here.

use crate::common;
use common::session_log;

use assert_cmd::Command;
use std::io::{Read, Write};
use std::net::TcpListener;

fn bwrap_works() -> Result<(), String> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let p = rt.block_on(ghostlab::sandbox::doctor::probe_bubblewrap());
    if p.works { Ok(()) } else { Err(p.detail) }
}

/// Whether bubblewrap starts here; when it does not, the test is reported SKIPPED with why.
fn bwrap_starts_or_skip() -> bool {
    match bwrap_works() {
        Ok(()) => true,
        Err(why) => {
            ghostlab::util::skip::skipped(&format!("SKIPPED: bubblewrap cannot start here: {why}"));
            false
        }
    }
}

/// `ghostlab sandbox exec --job <job> -- <command…>`, ready for more settings.
fn sandbox_exec<S: AsRef<std::ffi::OsStr>>(job: &std::path::Path, command: &[S]) -> Command {
    let mut cmd = Command::cargo_bin("ghostlab").unwrap();
    cmd.args(["sandbox", "exec", "--job"]).arg(job).arg("--").args(command);
    cmd
}

fn job(dir: &std::path::Path, sandbox: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("ws/hello.txt"), "hello from the workspace\n").unwrap();
    let path = dir.join("job.yaml");
    std::fs::write(
        &path,
        format!("version: 1\nagent:\n  id: cli-probe\n  workspace: ./ws\nsandbox:\n{sandbox}"),
    )
    .unwrap();
    path
}

#[test]
fn exec_prints_output_and_exits_with_the_command_code() {
    if !bwrap_starts_or_skip() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let j = job(d.path(), "  backend: bubblewrap\n  timeout: 30s\n");
    let out = sandbox_exec(&j, &["sh", "-c", "cat hello.txt; pwd; echo to-stderr >&2; exit 7"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert!(
        stdout.contains("hello from the workspace\n/sandbox/workspace\n"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("to-stderr"));
    // The user's workspace is untouched and the role log exists.
    assert!(session_log(&d.path().join(".ghostlab/sandbox"), "agent").is_file());
}

#[test]
fn exec_with_allowlist_uses_the_real_bridge() {
    if !bwrap_starts_or_skip() {
        return;
    }
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut buf = [0u8; 2048];
            let _ = c.read(&mut buf);
            let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    let d = tempfile::tempdir().unwrap();
    let j = job(
        d.path(),
        &format!("  network: allowlist\n  allow: [\"127.0.0.1:{port}\"]\n"),
    );
    let script = format!(
        "curl -sS --max-time 5 http://127.0.0.1:{port}/; echo; curl -sS -o /dev/null -w '%{{http_code}}' --max-time 5 http://127.0.0.1:1/"
    );
    let out = sandbox_exec(&j, &["sh", "-c", &script]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("ok\n403"), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("egress denied GET 127.0.0.1:1"),
        "{out:?}"
    );
}

#[test]
fn bad_role_and_missing_job_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let j = job(d.path(), "  backend: bubblewrap\n");
    Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["sandbox", "exec", "--role", "boss", "--job"])
        .arg(&j)
        .args(["--", "true"])
        .assert()
        .code(2);
    Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["sandbox", "shell", "--job"])
        .arg(d.path().join("missing.yaml"))
        .assert()
        .code(2);
}

#[test]
fn doctor_reports_each_backend() {
    let out = Command::cargo_bin("ghostlab").unwrap().arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("bubblewrap: "), "{stdout}");
    assert!(stdout.contains("openshell: "), "{stdout}");
    assert!(stdout.contains("local: "), "{stdout}");
    match bwrap_works() {
        Ok(()) => {
            assert!(stdout.contains("bubblewrap: OK"), "{stdout}");
            assert_eq!(out.status.code(), Some(0));
        }
        Err(why) => {
            ghostlab::util::skip::skipped(&format!("SKIPPED the OK check: bubblewrap cannot start here: {why}"))
        }
    }
}

/// Where Ghostlab may not read the sandbox's memory (Yama, a security module; here the
/// test-hooks switch), the watch sees nothing: doctor says why and a run refuses to start,
/// naming the reason, instead of judging cases it cannot see.
#[test]
fn a_blind_watch_fails_doctor_and_refuses_a_run_with_the_reason() {
    if !bwrap_starts_or_skip() {
        return;
    }
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .arg("doctor")
        .env("GHOSTLAB_TEST_WATCH_BLIND", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("the sandbox's watch cannot see its processes: cannot read /proc/"),
        "{stdout}"
    );
    assert!(stdout.contains("ptrace_scope"), "doctor names the fix: {stdout}");
    assert_ne!(out.status.code(), Some(0));
    let d = tempfile::tempdir().unwrap();
    let j = job(d.path(), "  backend: bubblewrap\n  timeout: 30s\n");
    let out = sandbox_exec(&j, &["true"])
        .env("GHOSTLAB_TEST_WATCH_BLIND", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot see its processes"), "{stderr}");
    assert_ne!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn a_prepared_command_can_be_spawned_twice() {
    if !bwrap_starts_or_skip() {
        return;
    }
    use ghostlab::sandbox::{ExecOptions, Role, Sandbox, SandboxPolicy};
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let logs = tempfile::tempdir().unwrap();
        let policy = SandboxPolicy::minimal(ghostlab::spec::SandboxBackend::Bubblewrap);
        let sb = Sandbox::open(policy, logs.path().to_path_buf()).await.unwrap();
        let s = sb.session(Role::Agent).await.unwrap();
        let mut cmd = s
            .command(
                &["sh".into(), "-c".into(), "grep Seccomp: /proc/self/status".into()],
                &ExecOptions::default(),
            )
            .unwrap();
        for _ in 0..2 {
            let out = cmd.output().await.unwrap();
            assert!(out.status.success(), "{out:?}");
            assert!(String::from_utf8_lossy(&out.stdout).contains("Seccomp:\t2"), "{out:?}");
        }
        s.delete().await.unwrap();
    });
}
