//! Containment suite: real bubblewrap, every probe expected to be denied (a few controls are
//! expected to be allowed), printed as a table. When bwrap cannot start here, every probe is
//! reported SKIPPED with the reason — never passed.
//!
//! Run with `cargo test --test sandbox_containment -- --nocapture` to see the table. As root,
//! the suite runs twice: as root, and re-executed as the unprivileged uid 65534 (the
//! `containment_suite_as_non_root` test), so both ways Ghostlab can be run are probed.
//!
//! The probes are tables by family, one file each under `sandbox_containment/`: the agent
//! session's (host data, reach, limits), the allowlist proxy's, the isolated root's
//! (`isolation`) and the host's other doors (`host_reach`).

#[path = "sandbox_containment/agent_session.rs"]
mod agent_session;
#[path = "sandbox_containment/egress_allowlist.rs"]
mod egress_allowlist;
#[path = "sandbox_containment/fixture.rs"]
mod fixture;
#[path = "sandbox_containment/host_reach.rs"]
mod host_reach;
#[path = "sandbox_containment/isolation.rs"]
mod isolation;
#[path = "sandbox_containment/table.rs"]
mod table;

use std::path::PathBuf;

use agent_session::AgentCtx;
use agent_session::agent_limits::{LEFTOVERS_AFTER_DELETE, leftovers_after_delete};
use fixture::{Fixture, base_dir, host_has_process_with_arg, http_server, setup, sh};
use ghostlab::sandbox::doctor::probe_bubblewrap;
use ghostlab::sandbox::{Role, Sandbox, SandboxPolicy};
use table::{Row, row, short, skipped_row, summary, table};

const SECRET_VAR: &str = "GHOSTLAB_TEST_SECRET_CANARY";
const ALLOWED_VAR: &str = "GHOSTLAB_TEST_ALLOWED";

/// The names of the probes `run_all` runs itself, in the order of their rows.
fn probe_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = agent_session::probes().map(|(name, _)| *name).collect();
    names.push(LEFTOVERS_AFTER_DELETE);
    names.extend(egress_allowlist::NAMES);
    names
}

/// The two suites start and kill sessions, and a start sweeps sessions whose owner died: run
/// side by side, one would sweep what the other's SIGKILL probe left on purpose.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn containment_suite() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let secret_env = format!("env-canary-{:016x}", rand::random::<u64>());
    // SAFETY: set before any runtime or thread of this test binary's own exists in this test.
    unsafe {
        std::env::set_var(SECRET_VAR, &secret_env);
        std::env::set_var(ALLOWED_VAR, "allowed-ok");
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let probe = rt.block_on(probe_bubblewrap());
    if !probe.works {
        let rows: Vec<Row> = probe_names()
            .into_iter()
            .map(|p| skipped_row(p, short(&format!("bwrap cannot start: {}", probe.detail))))
            .collect();
        ghostlab::util::skip::skipped(&format!(
            "containment suite SKIPPED: {}\n{}",
            probe.detail,
            table(&rows)
        ));
        return;
    }
    let rows = rt.block_on(run_all(&secret_env));
    let t = table(&rows);
    println!("{t}");
    // N/A marks a documented gap of the current privileges (printed, not hidden).
    let failed: Vec<&Row> = rows
        .iter()
        .filter(|r| r.verdict != "PASS" && r.verdict != "N/A")
        .collect();
    assert!(rows.len() >= 20, "too few probes ran:\n{t}");
    assert!(failed.is_empty(), "containment probes failed:\n{t}");
}

async fn run_all(secret_env: &str) -> Vec<Row> {
    let fx = setup();
    let job = ghostlab::spec::load_job(&fx.checkout.join("job.yaml")).unwrap();
    let mut policy = SandboxPolicy::from_job(&job).unwrap();
    // A CPU budget below the wall-clock limit, so the CPU limit is what stops the burn.
    policy.limits.cpu_seconds = Some(2);
    let logs = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::open_with(policy.clone(), logs.path().to_path_buf(), Some(bridge_exe()))
        .await
        .unwrap();
    let agent = agent_ctx(&fx, &sandbox, secret_env).await;
    let mut rows = agent_session::rows(&agent).await;
    let log_text = agent.close().await;
    rows.push(leftovers_after_delete(&sandbox).await);
    rows.extend(egress_allowlist::rows(&policy, logs.path(), bridge_exe()).await);
    assert!(
        !log_text.contains(secret_env),
        "the session log must never contain an env value"
    );
    rows.push(isolation::default_memory_row(&{
        let mut j = job.clone();
        j.job.sandbox.memory = None;
        SandboxPolicy::from_job(&j).unwrap()
    }));
    let ctx = isolation::Ctx {
        checkout: fx.checkout.clone(),
        outside: fx.outside.clone(),
        secret: fx.secret.clone(),
        sandbox: sandbox.clone(),
        bridge: bridge_exe(),
        job_file: fx.checkout.join("job.yaml"),
    };
    rows.extend(isolation::rows(&ctx).await);
    rows.extend(host_reach::rows(&ctx).await);
    rows
}

/// An agent session of `sandbox`, aimed at the canaries of `fx`.
async fn agent_ctx(fx: &Fixture, sandbox: &Sandbox, secret_env: &str) -> AgentCtx {
    AgentCtx {
        session: sandbox.session(Role::Agent).await.unwrap(),
        checkout: fx.checkout.clone(),
        secret: fx.secret.clone(),
        secret_env: secret_env.to_string(),
        planted_home: fx.planted_home.clone(),
        root_canary: fx.root_canary.clone(),
    }
}

fn bridge_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ghostlab"))
}

/// As root, re-runs `containment_suite` as uid 65534 (a separate process of this test
/// binary), with canaries planted by root that the unprivileged run must not reach.
#[test]
fn containment_suite_as_non_root() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: trivial getter.
    if unsafe { libc::geteuid() } != 0 {
        println!("already non-root: `containment_suite` is the non-root run");
        return;
    }
    if std::env::var_os("GHOSTLAB_CONTAINMENT_NONROOT_CHILD").is_some() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::Builder::new()
        .prefix("ghostlab-containment-nonroot-")
        .tempdir()
        .unwrap();
    std::os::unix::fs::chown(base.path(), Some(65534), Some(65534)).unwrap();
    std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret = format!("canary-{:016x}", rand::random::<u64>());
    let home = tempfile::Builder::new()
        .prefix("ghostlab-canary-")
        .tempdir_in("/home")
        .ok();
    if let Some(h) = &home {
        std::fs::set_permissions(h.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(h.path().join("canary.txt"), format!("HOME-{secret}\n")).unwrap();
        std::fs::set_permissions(h.path().join("canary.txt"), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let root_canary = PathBuf::from(format!("/root/.ghostlab-canary-{:08x}", rand::random::<u32>()));
    std::fs::write(&root_canary, format!("ROOT-{secret}\n")).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut cmd = std::process::Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&exe)
        .args(["--exact", "containment_suite", "--nocapture", "--test-threads=1"])
        .env("GHOSTLAB_CONTAINMENT_NONROOT_CHILD", "1")
        .env("GHOSTLAB_CONTAINMENT_BASE", base.path())
        .env("GHOSTLAB_CONTAINMENT_SECRET", &secret)
        .env("GHOSTLAB_CONTAINMENT_ROOT_CANARY", &root_canary)
        .env("TMPDIR", base.path())
        .env("HOME", base.path());
    if let Some(h) = &home {
        cmd.env("GHOSTLAB_CONTAINMENT_HOME_CANARY", h.path());
    }
    let out = cmd.output();
    let _ = std::fs::remove_file(&root_canary);
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            ghostlab::util::skip::skipped(&format!("SKIPPED: cannot run setpriv to drop to uid 65534: {e}"));
            return;
        }
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("== containment suite as uid 65534 ==\n{text}");
    assert!(out.status.success(), "the non-root containment run failed:\n{text}");
    assert!(text.contains("| probe"), "the non-root run printed no table:\n{text}");
}
