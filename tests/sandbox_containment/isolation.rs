//! Probes of the `isolated` root filesystem, staged inputs, the MCP relay, per-session limits
//! and cleanup, as a table: each entry is a name, what is expected and a check that runs it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::future::LocalBoxFuture;
use ghostlab::sandbox::{ExecOptions, ExecOutput, Role, Sandbox, SandboxPolicy, Session};

use super::{Row, sh, short, summary};

/// What every isolation probe can use.
pub struct Ctx {
    /// The job's folder (the user's checkout).
    pub checkout: PathBuf,
    /// A world-readable host folder outside the job, with `canary.txt` (0644) and a 0777
    /// listening unix socket `host.sock`.
    pub outside: PathBuf,
    pub secret: String,
    pub sandbox: Sandbox,
    pub bridge: PathBuf,
    pub job_file: PathBuf,
}

type Check = for<'a> fn(&'a Ctx, &'static str) -> LocalBoxFuture<'a, Row>;

/// The table: probe name and its check.
pub const PROBES: &[(&str, Check)] = &[
    ("canary 0644 in a host folder outside the job is absent", |c, n| {
        Box::pin(outside_canary(c, n))
    }),
    ("job folder: non-input files absent, inputs present", |c, n| {
        Box::pin(job_folder(c, n))
    }),
    ("/home /root /opt /srv /mnt /media /var absent", |c, n| {
        Box::pin(host_folders(c, n))
    }),
    ("only the sandbox's processes in /proc", |c, n| {
        Box::pin(own_processes(c, n))
    }),
    ("workspace symlink to a host file carries no content", |c, n| {
        Box::pin(symlink_out(c, n))
    }),
    ("host unix socket outside the job unreachable", |c, n| {
        Box::pin(host_socket(c, n))
    }),
    ("/dev/shm does not persist across sessions", |c, n| {
        Box::pin(dev_shm(c, n))
    }),
    ("/etc is the generated minimal one", |c, n| Box::pin(minimal_etc(c, n))),
    ("/tmp is a size-limited tmpfs", |c, n| Box::pin(tmp_bounded(c, n))),
    ("HOME and TMPDIR: writing beyond the bound fails", |c, n| {
        Box::pin(scratch_bounded(c, n))
    }),
    ("MCP server's environ/mem unreadable by the agent", |c, n| {
        Box::pin(mcp_secrets(c, n))
    }),
    ("a busy neighbour does not exhaust this session's processes", |c, n| {
        Box::pin(neighbour(c, n))
    }),
    ("SIGTERM removes the session folder and cgroups", |c, n| {
        Box::pin(sigterm_cleanup(c, n))
    }),
    ("after SIGKILL the session is removed without a next start", |c, n| {
        Box::pin(sigkill_sweep(c, n))
    }),
];

/// A row whose verdict is PASS exactly when the expected property `holds`.
fn held(probe: &str, expected: &'static str, observed: String, holds: bool) -> Row {
    Row {
        probe: probe.to_string(),
        expected,
        observed,
        verdict: if holds { "PASS" } else { "FAIL" },
    }
}

/// Runs every probe of the table.
pub async fn rows(ctx: &Ctx) -> Vec<Row> {
    let mut out = Vec::new();
    for (name, check) in PROBES {
        out.push(check(ctx, name).await);
    }
    out
}

async fn exec(s: &Session, script: &str) -> ExecOutput {
    s.exec(&sh(script), &ExecOptions::default(), None).await.unwrap()
}

async fn one_shot(ctx: &Ctx, script: &str) -> ExecOutput {
    let s = ctx.sandbox.session(Role::Agent).await.unwrap();
    let o = exec(&s, script).await;
    s.delete().await.unwrap();
    o
}

async fn outside_canary(ctx: &Ctx, name: &'static str) -> Row {
    let p = ctx.outside.join("canary.txt");
    let o = one_shot(ctx, &format!("test -e {0} && echo EXISTS; cat {0}", p.display())).await;
    let t = o.stdout_text();
    held(
        name,
        "absent",
        summary(&o),
        !t.contains("EXISTS") && !t.contains(&ctx.secret),
    )
}

async fn job_folder(ctx: &Ctx, name: &'static str) -> Row {
    let co = ctx.checkout.display();
    let o = one_shot(
        ctx,
        &format!(
            "test -e {co}/secret-canary.txt && echo CANARY; test -e {co}/job.yaml && echo JOBYAML; cat {co}/AGENTS.md"
        ),
    )
    .await;
    let t = o.stdout_text();
    let ok = !t.contains("CANARY") && !t.contains("JOBYAML") && t.contains("You are a probe agent.");
    held(name, "absent", summary(&o), ok)
}

async fn host_folders(ctx: &Ctx, name: &'static str) -> Row {
    let o = one_shot(
        ctx,
        "for d in /home /root /opt /srv /mnt /media /var /boot; do test -e $d && echo PRESENT:$d; done; echo checked",
    )
    .await;
    let t = o.stdout_text();
    held(
        name,
        "absent",
        summary(&o),
        !t.contains("PRESENT") && t.contains("checked"),
    )
}

async fn own_processes(ctx: &Ctx, name: &'static str) -> Row {
    let o = one_shot(
        ctx,
        "n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo procs=$n; test -r /proc/1/environ && tr '\\0' '\\n' < /proc/1/environ | grep -c . ",
    )
    .await;
    let t = o.stdout_text();
    let n: u32 = t
        .lines()
        .find_map(|l| l.strip_prefix("procs="))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(999);
    // bwrap's init, sh, and the loop's subshells: a handful, never the host's hundreds.
    held(
        name,
        "denied",
        short(&format!("{n} processes visible; {}", summary(&o))),
        n <= 6,
    )
}

async fn symlink_out(ctx: &Ctx, name: &'static str) -> Row {
    let o = one_shot(ctx, "cat link-outside; cat link-canary").await;
    let t = o.stdout_text();
    held(name, "denied", summary(&o), !t.contains(&ctx.secret))
}

async fn host_socket(ctx: &Ctx, name: &'static str) -> Row {
    let sock = ctx.outside.join("host.sock");
    let o = one_shot(
        ctx,
        &format!(
            "test -e {0} && echo VISIBLE; curl -sS --max-time 3 --unix-socket {0} http://x/",
            sock.display()
        ),
    )
    .await;
    let t = o.stdout_text();
    held(
        name,
        "denied",
        summary(&o),
        !t.contains("VISIBLE") && !t.contains("HOST-SOCKET") && o.status != 0,
    )
}

async fn dev_shm(ctx: &Ctx, name: &'static str) -> Row {
    let a = ctx.sandbox.session(Role::Agent).await.unwrap();
    let w = exec(
        &a,
        "echo persisted > /dev/shm/ghostlab-shm && cat /dev/shm/ghostlab-shm",
    )
    .await;
    let again = exec(&a, "cat /dev/shm/ghostlab-shm").await;
    a.delete().await.unwrap();
    let o = one_shot(ctx, "cat /dev/shm/ghostlab-shm").await;
    let wrote = w.stdout_text().contains("persisted");
    let ok = wrote && !o.stdout_text().contains("persisted") && !again.stdout_text().contains("persisted");
    held(
        name,
        "denied",
        short(&format!(
            "written: {wrote}; next command: {}; next session: {}",
            summary(&again),
            summary(&o)
        )),
        ok,
    )
}

async fn minimal_etc(ctx: &Ctx, name: &'static str) -> Row {
    let o = one_shot(
        ctx,
        "ls /etc | tr '\\n' ' '; id -un; test -e /etc/shadow && echo SHADOW",
    )
    .await;
    let t = o.stdout_text();
    let ok = !t.contains("SHADOW") && t.contains("passwd") && !t.contains("ssh") && !t.contains("sudoers");
    held(name, "minimal", summary(&o), ok)
}

async fn tmp_bounded(ctx: &Ctx, name: &'static str) -> Row {
    let o = one_shot(ctx, "df -k /tmp | tail -1").await;
    let kb: u64 = o
        .stdout_text()
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX);
    let limit = ghostlab::sandbox::bwrap::TMPFS_BYTES / 1024;
    held(
        name,
        "bounded",
        format!("/tmp size {kb} KiB (limit {limit} KiB)"),
        kb <= limit,
    )
}

/// HOME and TMPDIR bounded at 8 MiB each, 16 MB written to each: as root (tmpfs) the write
/// fails inside and the host folder never holds it; otherwise (measured) the next command is
/// refused with "HOME exceeded".
async fn scratch_bounded(ctx: &Ctx, name: &'static str) -> Row {
    use ghostlab::sandbox::scratch::{ScratchBound, is_scratch_mount, usage};
    let bound: u64 = 8 << 20;
    let mut policy = ctx.sandbox.policy().clone();
    policy.limits.scratch_bytes = bound;
    let logs = tempfile::tempdir().unwrap();
    let sb = Sandbox::open_with(policy, logs.path().to_path_buf(), Some(ctx.bridge.clone()))
        .await
        .unwrap();
    let mut observed = Vec::new();
    let mut holds = true;
    for var in ["HOME", "TMPDIR"] {
        let s = sb.session(Role::Agent).await.unwrap();
        let kind = s.scratch_bound();
        let host = if var == "HOME" {
            s.home_dir().to_path_buf()
        } else {
            s.dir().join("tmp")
        };
        // 1 MB files: the suite's policy caps each file at 1 MiB (RLIMIT_FSIZE).
        let write = format!(
            "i=0; while [ $i -lt 16 ]; do head -c 1000000 /dev/zero > \"${var}/fill$i\" || exit 3; i=$((i+1)); done; echo WROTE"
        );
        let first = s.exec(&sh(&write), &ExecOptions::default(), None).await;
        let host_bytes = usage(&host);
        let second = s.exec(&sh("echo next"), &ExecOptions::default(), None).await;
        let ok = match kind {
            ScratchBound::Tmpfs => {
                let wrote = first
                    .as_ref()
                    .map(|o| o.stdout_text().contains("WROTE"))
                    .unwrap_or(true);
                // The host folder is a tmpfs mount, so the host disk holds none of it.
                !wrote && is_scratch_mount(&host) && host_bytes <= bound && second.is_ok()
            }
            ScratchBound::Measured => {
                let refused = matches!(&first, Err(e) if e.to_string().contains(&format!("{var} exceeded {bound}")));
                refused && second.is_err()
            }
        };
        // Measured (no tmpfs): the bound also holds while one long command runs. A slow
        // writer (16 × 1 MB, 0.2 s apart) is stopped part-way, not after the whole 16 MB.
        let ok = ok
            && match kind {
                ScratchBound::Tmpfs => true,
                ScratchBound::Measured => {
                    let slow = sb.session(Role::Agent).await.unwrap();
                    let host = if var == "HOME" {
                        slow.home_dir().to_path_buf()
                    } else {
                        slow.dir().join("tmp")
                    };
                    // Shell builtins only (printf, arithmetic): no fork, so the probe does not
                    // depend on the process limit the other probes share.
                    let write = format!(
                        "i=0; while [ $i -lt 16 ]; do printf '%1000000s' x > \"${var}/slow$i\" || exit 3; \
                     j=0; while [ $j -lt 150000 ]; do j=$((j+1)); done; i=$((i+1)); done; echo WROTE"
                    );
                    let run = slow.exec(&sh(&write), &ExecOptions::default(), None).await;
                    let held_bytes = usage(&host);
                    let stopped = matches!(&run, Err(e) if e.to_string().contains(&format!("{var} exceeded {bound}")));
                    observed.push(format!(
                        "{var} slow writer: {}, host {} KiB",
                        run.as_ref().map(summary).unwrap_or_else(|e| e.to_string()),
                        held_bytes >> 10
                    ));
                    slow.delete().await.unwrap();
                    stopped && held_bytes <= bound + (4 << 20)
                }
            };
        observed.push(format!(
            "{var} ({kind:?}): first {}, host {} KiB, next {}",
            first.as_ref().map(summary).unwrap_or_else(|e| e.to_string()),
            host_bytes >> 10,
            if second.is_ok() { "ran" } else { "refused" }
        ));
        holds &= ok;
        s.delete().await.unwrap();
        holds &= !host.exists();
    }
    held(name, "bounded", short(&observed.join("; ")), holds)
}

async fn mcp_secrets(ctx: &Ctx, name: &'static str) -> Row {
    use ghostlab::spec::resolved::{McpTransport, ResolvedMcp};
    let mcp_secret = format!("mcp-secret-{:016x}", rand::random::<u64>());
    let marker = format!("ghostlab-mcp-probe-{:08x}", rand::random::<u32>());
    let server = ResolvedMcp {
        name: "probe".into(),
        transport: McpTransport::Stdio {
            command: vec!["sh".into(), "-c".into(), "sleep 6".into(), marker.clone()],
            cwd: None,
            env: [("PROBE_TOKEN".to_string(), mcp_secret.clone())].into_iter().collect(),
        },
        enabled: true,
        timeout_ms: None,
        oauth: None,
        origin: (PathBuf::from("probe"), "probe".into()),
    };
    let session = std::sync::Arc::new(ctx.sandbox.session(Role::Agent).await.unwrap());
    let relay = ghostlab::run::environment::mcp_relay::McpRelay::start(
        &session,
        std::slice::from_ref(&server),
        ghostlab::run::environment::mcp_relay::relay_scope(session.scope(), session.policy().allowlist()),
    )
    .unwrap()
    .expect("bubblewrap sessions relay stdio servers");
    let cmd = shell_words::join(relay.command_for("probe").unwrap());
    // The agent starts the server the way OpenCode would, then hunts for its secret.
    let script = format!(
        "(sleep 4 | {cmd}) & sleep 1.5; for p in /proc/[0-9]*; do cat $p/environ; head -c 4096 $p/mem; done 2>/dev/null | tr '\\0' '\\n' | grep -c {mcp_secret}; true"
    );
    let probe = tokio::spawn({
        let session = session.clone();
        async move { exec(&session, &script).await }
    });
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let server_ran = super::host_has_process_with_arg(&marker);
    let o = probe.await.unwrap();
    relay.stop();
    drop(relay);
    let found: u32 = o
        .stdout_text()
        .trim()
        .lines()
        .last()
        .and_then(|l| l.parse().ok())
        .unwrap_or(99);
    if let Ok(s) = std::sync::Arc::try_unwrap(session) {
        s.delete().await.unwrap();
    }
    held(
        name,
        "denied",
        format!("server ran in its own sandbox: {server_ran}; secret seen by agent: {found} times"),
        server_ran && found == 0,
    )
}

async fn neighbour(ctx: &Ctx, name: &'static str) -> Row {
    // SAFETY: trivial getter.
    if unsafe { libc::geteuid() } != 0 {
        return Row {
            probe: name.into(),
            expected: "isolated",
            observed: "non-root: no per-session cgroup; RLIMIT_NPROC is per uid (documented gap)".into(),
            verdict: "N/A",
        };
    }
    let busy = ctx.sandbox.session(Role::Agent).await.unwrap();
    let calm = ctx.sandbox.session(Role::Judge).await.unwrap();
    let hog = tokio::spawn(async move {
        let o = exec(
            &busy,
            "for i in $(seq 1 80); do sleep 4 & done 2>/dev/null; wait; echo done",
        )
        .await;
        busy.delete().await.unwrap();
        o
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let o = exec(&calm, "for i in 1 2 3 4 5; do sleep 0.1 & done; wait; echo calm-ok").await;
    calm.delete().await.unwrap();
    let h = hog.await.unwrap();
    held(
        name,
        "isolated",
        short(&format!("neighbour: {}; busy hit {:?}", summary(&o), h.limit_hit)),
        o.stdout_text().contains("calm-ok") && h.limit_hit.is_some(),
    )
}

/// Session folders whose owner file names `pid`.
fn sessions_of(pid: u32) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(std::env::temp_dir()) else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("ghostlab-sandbox-"))
                && std::fs::read_to_string(p.join("owner.pid"))
                    .map(|o| o.split_whitespace().next() == Some(&pid.to_string()))
                    .unwrap_or(false)
        })
        .collect()
}

fn start_exec(ctx: &Ctx) -> std::process::Child {
    std::process::Command::new(&ctx.bridge)
        .args(["sandbox", "exec", "--job"])
        .arg(&ctx.job_file)
        .args(["--", "sleep", "60"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

async fn wait_for_session(pid: u32) -> Vec<PathBuf> {
    // Opening a sandbox may first run a short-lived probe session: the session under test is
    // the one still there half a second after it was seen.
    for _ in 0..100 {
        let seen = sessions_of(pid);
        if !seen.is_empty() {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let still: Vec<PathBuf> = sessions_of(pid).into_iter().filter(|d| seen.contains(d)).collect();
            if !still.is_empty() {
                return still;
            }
            continue;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Vec::new()
}

fn cgroups_named(id_part: &str) -> usize {
    ["/sys/fs/cgroup", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory"]
        .iter()
        .filter_map(|b| std::fs::read_dir(b).ok())
        .flat_map(|d| d.filter_map(Result::ok))
        .filter(|e| e.file_name().to_string_lossy().contains(id_part))
        .count()
}

fn session_id(dir: &Path) -> String {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let rest = name.trim_start_matches("ghostlab-sandbox-");
    rest.splitn(3, '-').take(2).collect::<Vec<_>>().join("-")
}

async fn sigterm_cleanup(ctx: &Ctx, name: &'static str) -> Row {
    let mut child = start_exec(ctx);
    let mut dirs = wait_for_session(child.id()).await;
    let mut ids: Vec<String> = dirs.iter().map(|d| session_id(d)).collect();
    // SAFETY: trivial getter.
    let root = unsafe { libc::geteuid() } == 0;
    let mut cg_before = 0;
    for _ in 0..100 {
        cg_before = ids.iter().map(|i| cgroups_named(i)).sum();
        // As root the session gets its cgroups once its folder is filled; wait for them.
        if !root || cg_before > 0 {
            break;
        }
        // Under load the probe session can outlive wait_for_session's half second: when the
        // session seen is gone, look again for the live one.
        if !dirs.iter().any(|d| d.exists()) {
            dirs = sessions_of(child.id());
            ids = dirs.iter().map(|d| session_id(d)).collect();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let left = dirs.iter().filter(|d| d.exists()).count();
    let cg_after: usize = ids.iter().map(|i| cgroups_named(i)).sum();
    held(
        name,
        "removed",
        format!(
            "{} session(s), exit {:?}; folders left {left}; cgroups {cg_before} -> {cg_after}",
            dirs.len(),
            status.code()
        ),
        !dirs.is_empty() && left == 0 && cg_after == 0 && (cg_before > 0 || !root),
    )
}

async fn sigkill_sweep(ctx: &Ctx, name: &'static str) -> Row {
    let mut child = start_exec(ctx);
    let dirs = wait_for_session(child.id()).await;
    let ids: Vec<String> = dirs.iter().map(|d| session_id(d)).collect();
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let _ = child.wait();
    // No other ghostlab starts: the killed process's reaper must clean up on its own.
    let mut left = dirs.len();
    for _ in 0..100 {
        left = dirs.iter().filter(|d| d.exists()).count();
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let cgroups: usize = ids.iter().map(|i| cgroups_named(i)).sum();
    let doctor = std::process::Command::new(&ctx.bridge).arg("doctor").output().unwrap();
    let listed = dirs
        .iter()
        .any(|d| String::from_utf8_lossy(&doctor.stdout).contains(&d.display().to_string()));
    held(
        name,
        "removed",
        format!(
            "{} session(s); left 5 s after SIGKILL: {left}, cgroups {cgroups}; doctor lists them: {listed}",
            dirs.len()
        ),
        !dirs.is_empty() && left == 0 && cgroups == 0 && !listed,
    )
}

/// A policy check that needs no sandbox: the default memory cap applies when job.yaml sets none.
pub fn default_memory_row(policy_without_memory: &SandboxPolicy) -> Row {
    let m = policy_without_memory.limits.memory_bytes;
    held(
        "default memory cap when job.yaml sets none",
        "capped",
        format!("{m:?} bytes"),
        m == Some(ghostlab::sandbox::policy::DEFAULT_MEMORY),
    )
}
