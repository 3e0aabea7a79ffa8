//! Containment suite: real bubblewrap, every probe expected to be denied (a few controls are
//! expected to be allowed), printed as a table. When bwrap cannot start here, every probe is
//! reported SKIPPED with the reason — never passed.
//!
//! Run with `cargo test --test sandbox_containment -- --nocapture` to see the table. As root,
//! the suite runs twice: as root, and re-executed as the unprivileged uid 65534 (the
//! `containment_suite_as_non_root` test), so both ways Ghostlab can be run are probed.

#[path = "sandbox_containment/host_reach.rs"]
mod host_reach;
#[path = "sandbox_containment/isolation.rs"]
mod isolation;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ghostlab::sandbox::doctor::probe_bubblewrap;
use ghostlab::sandbox::{ExecOptions, ExecOutput, Role, Sandbox, SandboxPolicy};

const SECRET_VAR: &str = "GHOSTLAB_TEST_SECRET_CANARY";
const ALLOWED_VAR: &str = "GHOSTLAB_TEST_ALLOWED";

struct Row {
    probe: String,
    expected: &'static str,
    observed: String,
    verdict: &'static str,
}

fn row(probe: &str, expected: &'static str, observed: String, contained: bool) -> Row {
    let ok = if expected == "denied" { contained } else { !contained };
    Row {
        probe: probe.to_string(),
        expected,
        observed,
        verdict: if ok { "PASS" } else { "FAIL" },
    }
}

fn table(rows: &[Row]) -> String {
    let w0 = rows.iter().map(|r| r.probe.len()).max().unwrap_or(5).max(5);
    let w2 = rows.iter().map(|r| r.observed.len()).max().unwrap_or(8).max(8);
    let mut s = format!(
        "| {:w0$} | {:8} | {:w2$} | {:7} |\n",
        "probe", "expected", "observed", "verdict"
    );
    s.push_str(&format!(
        "|{}|{}|{}|{}|\n",
        "-".repeat(w0 + 2),
        "-".repeat(10),
        "-".repeat(w2 + 2),
        "-".repeat(9)
    ));
    for r in rows {
        s.push_str(&format!(
            "| {:w0$} | {:8} | {:w2$} | {:7} |\n",
            r.probe, r.expected, r.observed, r.verdict
        ));
    }
    s
}

fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 70 {
        format!("{}…", one.chars().take(70).collect::<String>())
    } else {
        one
    }
}

fn summary(o: &ExecOutput) -> String {
    let body = if o.stdout.is_empty() {
        o.stderr_text()
    } else {
        o.stdout_text()
    };
    short(&format!("exit {}: {}", o.status, body.trim()))
}

/// An HTTP server on 127.0.0.1 answering every request with `body`.
fn http_server(body: &'static str) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let resp = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = c.write_all(resp.as_bytes());
        }
    });
    port
}

fn host_has_process_with_arg(arg: &str) -> bool {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .any(|c| c.split(|b| *b == 0).any(|a| a == arg.as_bytes()))
}

struct Fixture {
    checkout: PathBuf,
    _checkout_guard: tempfile::TempDir,
    outside: PathBuf,
    _outside_guard: tempfile::TempDir,
    _outside_socket: Option<std::os::unix::net::UnixListener>,
    home_dir: Option<tempfile::TempDir>,
    /// The /home folder holding `canary.txt`, planted here or by the root parent.
    planted_home: Option<PathBuf>,
    root_canary: Option<PathBuf>,
    secret: String,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some(p) = &self.root_canary
            && std::env::var_os("GHOSTLAB_CONTAINMENT_ROOT_CANARY").is_none()
        {
            let _ = std::fs::remove_file(p);
        }
        self.home_dir.take();
    }
}

const PROBE_NAMES: &[&str] = &[
    "read a canary in a host home (/home)",
    "read a canary in /root",
    "list /root/.ssh",
    "read /etc/shadow",
    "read a canary in the user's checkout",
    "write into the original workspace",
    "write outside the workspace (/usr, /etc, checkout)",
    "append to a read-only input (AGENTS.md)",
    "write into the host's /tmp",
    "remount a read-only path rw",
    "mount a tmpfs",
    "connect to a host loopback listener",
    "reach a host unix socket under /run",
    "resolve DNS (and the lookup is recorded)",
    "AF_INET connect out (refused and recorded by the network watch)",
    "create a netlink socket (seccomp)",
    "see a host process in /proc",
    "signal a host process",
    "read the host's /proc/1/environ",
    "ptrace (strace)",
    "create a nested user namespace",
    "keyring access (keyctl)",
    "escape via symlinks planted in the workspace",
    "inherit a secret env var",
    "allowlisted + explicit env vars arrive (control)",
    "fork bomb stays within the process limit",
    "disk fill stays within the file-size limit",
    "memory hog stays within the memory limit",
    "CPU burn stopped by the CPU limit",
    "wall-clock timeout kills the whole tree",
    "processes left running are gone after delete",
    "reach a non-allowlisted host via the proxy",
    "CONNECT tunnel to a non-allowlisted host",
    "bypass the proxy with a direct connection",
    "reach the allowlisted host via the proxy (control)",
    "denied egress recorded (log + denials())",
];

/// Where fixtures live: `GHOSTLAB_CONTAINMENT_BASE` (set for the non-root re-run), else the
/// target's temp folder.
fn base_dir() -> PathBuf {
    std::env::var_os("GHOSTLAB_CONTAINMENT_BASE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")))
}

fn setup() -> Fixture {
    let base = base_dir();
    std::fs::create_dir_all(&base).unwrap();
    let guard = tempfile::Builder::new()
        .prefix("containment-checkout-")
        .tempdir_in(&base)
        .unwrap();
    let checkout = guard.path().to_path_buf();
    use std::os::unix::fs::PermissionsExt;
    // The checkout must be traversable by the unprivileged sandbox user, as a normal one is.
    std::fs::set_permissions(&checkout, std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret = std::env::var("GHOSTLAB_CONTAINMENT_SECRET")
        .unwrap_or_else(|_| format!("canary-{:016x}", rand::random::<u64>()));
    // A world-readable host folder that is not part of the job: in isolated mode it must not
    // exist inside at all.
    let outside_guard = tempfile::Builder::new()
        .prefix("containment-outside-")
        .tempdir_in(&base)
        .unwrap();
    let outside = outside_guard.path().to_path_buf();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(outside.join("canary.txt"), format!("OUTSIDE-{secret}\n")).unwrap();
    std::fs::set_permissions(outside.join("canary.txt"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let outside_socket = std::os::unix::net::UnixListener::bind(outside.join("host.sock")).ok();
    let _ = std::fs::set_permissions(outside.join("host.sock"), std::fs::Permissions::from_mode(0o777));
    if let Some(l) = &outside_socket {
        let l = l.try_clone().unwrap();
        std::thread::spawn(move || {
            for mut c in l.incoming().flatten() {
                let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nHOST-SOCKET");
            }
        });
    }
    std::fs::write(checkout.join("AGENTS.md"), "You are a probe agent.\n").unwrap();
    std::fs::write(checkout.join("secret-canary.txt"), format!("CHECKOUT-{secret}\n")).unwrap();
    std::fs::create_dir_all(checkout.join("ws")).unwrap();
    std::fs::write(checkout.join("ws/file.txt"), "original\n").unwrap();
    std::os::unix::fs::symlink("/etc/shadow", checkout.join("ws/link-shadow")).unwrap();
    std::os::unix::fs::symlink(checkout.join("secret-canary.txt"), checkout.join("ws/link-canary")).unwrap();
    std::os::unix::fs::symlink(outside.join("canary.txt"), checkout.join("ws/link-outside")).unwrap();
    std::fs::write(
        checkout.join("job.yaml"),
        "version: 1\nagent:\n  id: probe\n  runtime:\n    instructions: [./AGENTS.md]\n  workspace: ./ws\n\
         sandbox:\n  backend: bubblewrap\n  network: disabled\n  env_allowlist: [GHOSTLAB_TEST_ALLOWED]\n\
         \x20 processes: 40\n  file_size: 1MiB\n  memory: 256MiB\n  timeout: 20s\n  cpu: 1\n",
    )
    .unwrap();
    // The non-root re-run gets the canaries its root parent planted (it cannot plant them).
    let (home_dir, planted_home) = match std::env::var_os("GHOSTLAB_CONTAINMENT_HOME_CANARY") {
        Some(p) => (None, Some(PathBuf::from(p))),
        None => {
            let h = tempfile::Builder::new()
                .prefix("ghostlab-canary-")
                .tempdir_in("/home")
                .ok();
            if let Some(h) = &h {
                std::fs::write(h.path().join("canary.txt"), format!("HOME-{secret}\n")).unwrap();
            }
            let p = h.as_ref().map(|h| h.path().to_path_buf());
            (h, p)
        }
    };
    let root_canary = match std::env::var_os("GHOSTLAB_CONTAINMENT_ROOT_CANARY") {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            let p = PathBuf::from(format!("/root/.ghostlab-canary-{:08x}", rand::random::<u32>()));
            std::fs::write(&p, format!("ROOT-{secret}\n")).ok().map(|_| p)
        }
    };
    Fixture {
        checkout,
        _checkout_guard: guard,
        outside,
        _outside_guard: outside_guard,
        _outside_socket: outside_socket,
        planted_home,
        home_dir,
        root_canary,
        secret,
    }
}

fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
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
        let rows: Vec<Row> = PROBE_NAMES
            .iter()
            .map(|p| Row {
                probe: p.to_string(),
                expected: "denied",
                observed: short(&format!("bwrap cannot start: {}", probe.detail)),
                verdict: "SKIPPED",
            })
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
    let bridge = PathBuf::from(env!("CARGO_BIN_EXE_ghostlab"));
    let sandbox = Sandbox::open_with(policy.clone(), logs.path().to_path_buf(), Some(bridge.clone()))
        .await
        .unwrap();
    let s = sandbox.session(Role::Agent).await.unwrap();
    let opts = ExecOptions::default();
    let run = |script: String| {
        let s = &s;
        let opts = &opts;
        async move { s.exec(&sh(&script), opts, None).await.unwrap() }
    };
    let mut rows = Vec::new();
    let secret = fx.secret.clone();
    let co = fx.checkout.display().to_string();

    // Host homes and root's files.
    match &fx.planted_home {
        Some(h) => {
            let o = run(format!("cat {}/canary.txt", h.display())).await;
            rows.push(row(
                PROBE_NAMES[0],
                "denied",
                summary(&o),
                !o.stdout_text().contains(&secret),
            ));
        }
        None => rows.push(Row {
            probe: PROBE_NAMES[0].into(),
            expected: "denied",
            observed: "cannot create a canary under /home on this host".into(),
            verdict: "SKIPPED",
        }),
    }
    let rc = fx
        .root_canary
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "/root/.x".into());
    let o = run(format!("cat {rc}; ls -A /root")).await;
    rows.push(row(
        PROBE_NAMES[1],
        "denied",
        summary(&o),
        !o.stdout_text().contains(&secret) && o.stdout.is_empty(),
    ));
    let o = run("ls -la /root/.ssh && cat /root/.ssh/*".into()).await;
    rows.push(row(
        PROBE_NAMES[2],
        "denied",
        summary(&o),
        o.status != 0 && o.stdout.is_empty(),
    ));
    let o = run("cat /etc/shadow".into()).await;
    rows.push(row(
        PROBE_NAMES[3],
        "denied",
        summary(&o),
        !o.stdout_text().contains("root:"),
    ));
    let o = run(format!("cat {co}/secret-canary.txt; ls {co}")).await;
    rows.push(row(
        PROBE_NAMES[4],
        "denied",
        summary(&o),
        !o.stdout_text().contains(&secret),
    ));

    // Writes.
    let o = run(format!(
        "echo pwned > {co}/ws/file.txt; echo pwned > {co}/ws/new.txt; echo pwned > file.txt"
    ))
    .await;
    let orig = std::fs::read_to_string(fx.checkout.join("ws/file.txt")).unwrap();
    let contained = orig == "original\n" && !fx.checkout.join("ws/new.txt").exists();
    rows.push(row(
        PROBE_NAMES[5],
        "denied",
        format!("host file unchanged: {contained}; {}", summary(&o)),
        contained,
    ));
    let o = run(format!(
        "touch /usr/ghostlab-pwned /etc/ghostlab-pwned {co}/ghostlab-pwned"
    ))
    .await;
    let contained = !Path::new("/usr/ghostlab-pwned").exists()
        && !Path::new("/etc/ghostlab-pwned").exists()
        && !fx.checkout.join("ghostlab-pwned").exists();
    rows.push(row(PROBE_NAMES[6], "denied", summary(&o), contained));
    let o = run(format!("echo pwned >> {co}/AGENTS.md")).await;
    let unchanged = std::fs::read_to_string(fx.checkout.join("AGENTS.md")).unwrap() == "You are a probe agent.\n";
    rows.push(row(PROBE_NAMES[7], "denied", summary(&o), unchanged && o.status != 0));
    let tmp_name = format!("/tmp/ghostlab-pwned-{:08x}", rand::random::<u32>());
    let o = run(format!("echo pwned > {tmp_name} && echo wrote-inside-tmpfs")).await;
    rows.push(row(
        PROBE_NAMES[8],
        "denied",
        format!("host file exists: {}; {}", Path::new(&tmp_name).exists(), summary(&o)),
        !Path::new(&tmp_name).exists(),
    ));
    let o = run(format!(
        "mount -o remount,rw /usr; mount -o remount,bind,rw {co}/AGENTS.md && echo x >> {co}/AGENTS.md"
    ))
    .await;
    let unchanged = std::fs::read_to_string(fx.checkout.join("AGENTS.md")).unwrap() == "You are a probe agent.\n";
    rows.push(row(PROBE_NAMES[9], "denied", summary(&o), unchanged && o.status != 0));
    let o = run("mount -t tmpfs none /sandbox/tmp".into()).await;
    rows.push(row(PROBE_NAMES[10], "denied", summary(&o), o.status != 0));

    // Network with `network: disabled`.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let lport = listener.local_addr().unwrap().port();
    let hit = Arc::new(AtomicBool::new(false));
    let hit2 = hit.clone();
    std::thread::spawn(move || {
        if listener.accept().is_ok() {
            hit2.store(true, Ordering::SeqCst);
        }
    });
    let o = run(format!("curl -sS --max-time 3 http://127.0.0.1:{lport}/")).await;
    rows.push(row(
        PROBE_NAMES[11],
        "denied",
        summary(&o),
        o.status != 0 && !hit.load(Ordering::SeqCst),
    ));
    let sock_path = format!("/run/ghostlab-test-{:08x}.sock", rand::random::<u32>());
    let unix = std::os::unix::net::UnixListener::bind(&sock_path).ok();
    let o = run(format!(
        "ls -la {sock_path} && curl -sS --max-time 3 --unix-socket {sock_path} http://x/"
    ))
    .await;
    rows.push(row(PROBE_NAMES[12], "denied", summary(&o), o.status != 0));
    drop(unix);
    let _ = std::fs::remove_file(&sock_path);
    let recorded = |host: &str| s.denials().iter().any(|d| d.host == host);
    let o = run("getent hosts example.com || getent hosts deb.debian.org".into()).await;
    let lookup = ghostlab::sandbox::watch_network::NAME_LOOKUP;
    rows.push(row(
        PROBE_NAMES[13],
        "denied",
        format!("{}; recorded: {}", summary(&o), recorded(lookup)),
        o.status != 0 && o.stdout.is_empty() && recorded(lookup),
    ));
    // Internet sockets exist (the namespace has only `lo`) so the watch sees where a connect
    // goes: it must be refused and recorded.
    let o = run(
        r#"perl -e 'use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n"; connect($s, pack_sockaddr_in(80, inet_aton("203.0.113.5"))) or die "connect: $!\n"; print "connected\n"'"#
            .into(),
    )
    .await;
    rows.push(row(
        PROBE_NAMES[14],
        "denied",
        format!("{}; recorded: {}", summary(&o), recorded("203.0.113.5")),
        !o.stdout_text().contains("connected") && recorded("203.0.113.5"),
    ));
    let o = run(r#"perl -e 'socket(my $s, 16, 3, 0) or die "netlink: $!\n"; print "created\n"'"#.into()).await;
    rows.push(row(
        PROBE_NAMES[15],
        "denied",
        summary(&o),
        !o.stdout_text().contains("created"),
    ));

    // Host processes.
    let mut host_sleep = std::process::Command::new("sleep").arg("3141").spawn().unwrap();
    let hpid = host_sleep.id();
    let o = run(format!("ls /proc/{hpid} >/dev/null 2>&1 && echo PID''VISIBLE; for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done")).await;
    let text = o.stdout_text();
    rows.push(row(
        PROBE_NAMES[16],
        "denied",
        short(&format!(
            "host pid visible: {}; sleep 3141 listed: {}",
            text.contains("PIDVISIBLE"),
            text.contains("sleep 3141")
        )),
        !text.contains("PIDVISIBLE") && !text.contains("sleep 3141"),
    ));
    let o = run(format!("kill -9 {hpid}")).await;
    std::thread::sleep(Duration::from_millis(100));
    let alive = host_sleep.try_wait().unwrap().is_none();
    rows.push(row(
        PROBE_NAMES[17],
        "denied",
        format!("host sleep alive: {alive}; {}", summary(&o)),
        alive,
    ));
    let _ = host_sleep.kill();
    let _ = host_sleep.wait();
    let host_env = std::fs::read("/proc/1/environ").unwrap_or_default();
    let host_vars: Vec<String> = host_env
        .split(|b| *b == 0)
        .filter(|v| v.len() > 3)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect();
    let o = run("tr '\\0' '\\n' < /proc/1/environ".into()).await;
    let text = o.stdout_text();
    let leaked = host_vars.iter().any(|v| text.lines().any(|l| l == v)) || text.contains(secret_env);
    rows.push(row(PROBE_NAMES[18], "denied", summary(&o), !leaked));
    let o = run("strace -f true".into()).await;
    rows.push(row(PROBE_NAMES[19], "denied", summary(&o), o.status != 0));
    let o = run("unshare -U true".into()).await;
    rows.push(row(PROBE_NAMES[20], "denied", summary(&o), o.status != 0));
    let o = run("keyctl show @s".into()).await;
    rows.push(row(PROBE_NAMES[21], "denied", summary(&o), o.status != 0));

    // Symlinks and environment.
    let o = run("cat link-shadow; cat link-canary".into()).await;
    let text = o.stdout_text();
    rows.push(row(
        PROBE_NAMES[22],
        "denied",
        summary(&o),
        !text.contains("root:") && !text.contains(&secret),
    ));
    let o = run("env".into()).await;
    let text = o.stdout_text();
    rows.push(row(
        PROBE_NAMES[23],
        "denied",
        short(&format!("{SECRET_VAR} present: {}", text.contains(secret_env))),
        !text.contains(secret_env) && !text.contains(SECRET_VAR),
    ));
    let mut eopts = ExecOptions::default();
    eopts.env.insert("GHOSTLAB_TEST_EXPLICIT".into(), "explicit-ok".into());
    let o = s.exec(&sh("env"), &eopts, None).await.unwrap();
    let text = o.stdout_text();
    let arrived =
        text.contains("GHOSTLAB_TEST_ALLOWED=allowed-ok") && text.contains("GHOSTLAB_TEST_EXPLICIT=explicit-ok");
    rows.push(row(
        PROBE_NAMES[24],
        "allowed",
        format!("both present: {arrived}"),
        !arrived,
    ));

    // Limits.
    let o = run("n=0; for i in $(seq 1 200); do sleep 2 & n=$((n+1)); done; echo started=$n".into()).await;
    let all = format!("{}{}", o.stdout_text(), o.stderr_text());
    let hit = all.contains("fork") || all.contains("Resource temporarily unavailable");
    rows.push(row(
        PROBE_NAMES[25],
        "denied",
        short(&format!("{}; limit {:?}", summary(&o), o.limit_hit)),
        hit && !all.contains("started=200"),
    ));
    let o = run("head -c 8M /dev/zero > big".into()).await;
    let size = std::fs::metadata(s.workspace_dir().join("big"))
        .map(|m| m.len())
        .unwrap_or(0);
    rows.push(row(
        PROBE_NAMES[26],
        "denied",
        format!("file {} bytes, limit {:?}", size, o.limit_hit),
        size <= 1 << 20 && o.limit_hit.is_some(),
    ));
    let o = run(r#"perl -e '$x = "a" x (400 * 1024 * 1024); print "allocated\n"'"#.into()).await;
    rows.push(row(
        PROBE_NAMES[27],
        "denied",
        short(&format!("{}; limit {:?}", summary(&o), o.limit_hit)),
        !o.stdout_text().contains("allocated"),
    ));
    let o = run("while :; do :; done".into()).await;
    rows.push(row(
        PROBE_NAMES[28],
        "denied",
        format!("exit {}, limit {:?}", o.status, o.limit_hit),
        o.limit_hit == Some("cpu time (RLIMIT_CPU)"),
    ));
    let topts = ExecOptions {
        timeout: Some(Duration::from_secs(1)),
        ..ExecOptions::default()
    };
    let t0 = Instant::now();
    let o = s.exec(&sh("sleep 2718 & sleep 2718"), &topts, None).await.unwrap();
    let took = t0.elapsed();
    std::thread::sleep(Duration::from_millis(200));
    let left = host_has_process_with_arg("2718");
    rows.push(row(
        PROBE_NAMES[29],
        "denied",
        format!(
            "timed_out {} after {:.1}s; leftovers: {left}",
            o.timed_out,
            took.as_secs_f64()
        ),
        o.timed_out && took < Duration::from_secs(5) && !left,
    ));
    s.flush_log().unwrap();
    let log_text = std::fs::read_to_string(s.log_path()).unwrap_or_default();
    s.delete().await.unwrap();

    // Processes left running are gone after delete.
    let s3 = sandbox.session(Role::Judge).await.unwrap();
    let mut child = s3
        .command(&["sleep".to_string(), "1618".to_string()], &ExecOptions::default())
        .unwrap()
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = host_has_process_with_arg("1618");
    let s3_dir = s3.dir().to_path_buf();
    s3.delete().await.unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(3), child.wait()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = host_has_process_with_arg("1618");
    rows.push(row(
        PROBE_NAMES[30],
        "denied",
        format!(
            "running before delete: {before}; after: {after}; dir removed: {}",
            !s3_dir.exists()
        ),
        before && !after && !s3_dir.exists(),
    ));

    // Egress allowlist through the proxy.
    let allowed_port = http_server("ALLOWED-BODY");
    let denied_port = http_server("DENIED-BODY");
    let mut p2 = policy.clone();
    p2.network = ghostlab::sandbox::NetworkPolicy::Allowlist(vec![
        ghostlab::sandbox::HostPort::parse(&format!("127.0.0.1:{allowed_port}")).unwrap(),
    ]);
    let sb2 = Sandbox::open_with(p2, logs.path().to_path_buf(), Some(bridge))
        .await
        .unwrap();
    let s2 = sb2.session(Role::Emulator).await.unwrap();
    let run2 = |script: String| {
        let s2 = &s2;
        async move { s2.exec(&sh(&script), &ExecOptions::default(), None).await.unwrap() }
    };
    let o = run2(format!(
        "curl -sS --max-time 5 -w ' http=%{{http_code}}' http://127.0.0.1:{denied_port}/"
    ))
    .await;
    let text = o.stdout_text();
    rows.push(row(
        PROBE_NAMES[31],
        "denied",
        summary(&o),
        !text.contains("DENIED-BODY") && text.contains("http=403"),
    ));
    let o = run2(format!("curl -sS -p --max-time 5 http://127.0.0.1:{denied_port}/")).await;
    let all = format!("{}{}", o.stdout_text(), o.stderr_text());
    rows.push(row(
        PROBE_NAMES[32],
        "denied",
        summary(&o),
        !all.contains("DENIED-BODY") && o.status != 0,
    ));
    let o = run2(format!(
        "curl -sS --noproxy '*' --max-time 3 http://127.0.0.1:{allowed_port}/"
    ))
    .await;
    rows.push(row(
        PROBE_NAMES[33],
        "denied",
        summary(&o),
        !o.stdout_text().contains("ALLOWED-BODY"),
    ));
    let o = run2(format!("curl -sS --max-time 5 http://127.0.0.1:{allowed_port}/")).await;
    let ok = o.stdout_text().contains("ALLOWED-BODY");
    rows.push(row(PROBE_NAMES[34], "allowed", summary(&o), !ok));
    let denials = s2.denials();
    s2.flush_log().unwrap();
    let log2 = std::fs::read_to_string(s2.log_path()).unwrap_or_default();
    let recorded = denials.iter().filter(|d| d.port == denied_port).count() >= 2
        && log2.contains(&format!("egress DENIED CONNECT 127.0.0.1:{denied_port}"))
        && !denials.iter().any(|d| d.port == allowed_port);
    rows.push(row(
        PROBE_NAMES[35],
        "denied",
        format!("{} denials recorded, log lines present: {recorded}", denials.len()),
        recorded,
    ));
    s2.delete().await.unwrap();
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
