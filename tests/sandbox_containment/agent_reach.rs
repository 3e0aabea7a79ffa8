//! What the agent must not reach beyond its files: the host's network with `network:
//! disabled`, host processes and kernel facilities, and the host's environment (symlinks out
//! of the workspace, secret env vars); controls show allowed env vars do arrive.

use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ghostlab::sandbox::ExecOptions;

use super::super::{Row, SECRET_VAR, row, sh, short, summary};
use super::{AgentCtx, Check, refused};

pub const PROBES: &[(&str, Check)] = &[
    ("connect to a host loopback listener", |c, n| {
        Box::pin(host_loopback(c, n))
    }),
    ("reach a host unix socket under /run", |c, n| {
        Box::pin(host_unix_socket(c, n))
    }),
    ("resolve DNS (and the lookup is recorded)", |c, n| {
        Box::pin(name_lookup(c, n))
    }),
    (
        "AF_INET connect out (refused and recorded by the network watch)",
        |c, n| Box::pin(inet_connect(c, n)),
    ),
    ("create a netlink socket (seccomp)", |c, n| Box::pin(netlink(c, n))),
    ("see a host process in /proc", |c, n| {
        Box::pin(host_process_visible(c, n))
    }),
    ("signal a host process", |c, n| Box::pin(host_process_signal(c, n))),
    ("read the host's /proc/1/environ", |c, n| Box::pin(host_environ(c, n))),
    ("ptrace (strace)", |c, n| Box::pin(refused(c, n, "strace -f true"))),
    ("create a nested user namespace", |c, n| {
        Box::pin(refused(c, n, "unshare -U true"))
    }),
    ("keyring access (keyctl)", |c, n| {
        Box::pin(refused(c, n, "keyctl show @s"))
    }),
    ("escape via symlinks planted in the workspace", |c, n| {
        Box::pin(symlinks_out(c, n))
    }),
    ("inherit a secret env var", |c, n| Box::pin(secret_env_var(c, n))),
    ("allowlisted + explicit env vars arrive (control)", |c, n| {
        Box::pin(allowed_env_vars(c, n))
    }),
];

async fn host_loopback(c: &AgentCtx, name: &'static str) -> Row {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let lport = listener.local_addr().unwrap().port();
    let hit = Arc::new(AtomicBool::new(false));
    let hit2 = hit.clone();
    std::thread::spawn(move || {
        if listener.accept().is_ok() {
            hit2.store(true, Ordering::SeqCst);
        }
    });
    let o = c.run(&format!("curl -sS --max-time 3 http://127.0.0.1:{lport}/")).await;
    row(
        name,
        "denied",
        summary(&o),
        o.status != 0 && !hit.load(Ordering::SeqCst),
    )
}

async fn host_unix_socket(c: &AgentCtx, name: &'static str) -> Row {
    let sock_path = format!("/run/ghostlab-test-{:08x}.sock", rand::random::<u32>());
    let unix = std::os::unix::net::UnixListener::bind(&sock_path).ok();
    let o = c
        .run(&format!(
            "ls -la {sock_path} && curl -sS --max-time 3 --unix-socket {sock_path} http://x/"
        ))
        .await;
    drop(unix);
    let _ = std::fs::remove_file(&sock_path);
    row(name, "denied", summary(&o), o.status != 0)
}

async fn name_lookup(c: &AgentCtx, name: &'static str) -> Row {
    let o = c.run("getent hosts example.com || getent hosts deb.debian.org").await;
    let lookup = ghostlab::sandbox::watch_network::NAME_LOOKUP;
    row(
        name,
        "denied",
        format!("{}; recorded: {}", summary(&o), c.recorded(lookup)),
        o.status != 0 && o.stdout.is_empty() && c.recorded(lookup),
    )
}

/// Internet sockets exist (the namespace has only `lo`) so the watch sees where a connect
/// goes: it must be refused and recorded.
async fn inet_connect(c: &AgentCtx, name: &'static str) -> Row {
    let o = c
        .run(r#"perl -e 'use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n"; connect($s, pack_sockaddr_in(80, inet_aton("203.0.113.5"))) or die "connect: $!\n"; print "connected\n"'"#)
        .await;
    row(
        name,
        "denied",
        format!("{}; recorded: {}", summary(&o), c.recorded("203.0.113.5")),
        !o.stdout_text().contains("connected") && c.recorded("203.0.113.5"),
    )
}

async fn netlink(c: &AgentCtx, name: &'static str) -> Row {
    let o = c
        .run(r#"perl -e 'socket(my $s, 16, 3, 0) or die "netlink: $!\n"; print "created\n"'"#)
        .await;
    row(name, "denied", summary(&o), !o.stdout_text().contains("created"))
}

/// A host process (`sleep 3141`) the probes look for, killed when dropped.
struct HostSleep(std::process::Child);

impl HostSleep {
    fn start() -> Self {
        Self(std::process::Command::new("sleep").arg("3141").spawn().unwrap())
    }
}

impl Drop for HostSleep {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn host_process_visible(c: &AgentCtx, name: &'static str) -> Row {
    let host_sleep = HostSleep::start();
    let hpid = host_sleep.0.id();
    let o = c
        .run(&format!("ls /proc/{hpid} >/dev/null 2>&1 && echo PID''VISIBLE; for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done"))
        .await;
    let text = o.stdout_text();
    row(
        name,
        "denied",
        short(&format!(
            "host pid visible: {}; sleep 3141 listed: {}",
            text.contains("PIDVISIBLE"),
            text.contains("sleep 3141")
        )),
        !text.contains("PIDVISIBLE") && !text.contains("sleep 3141"),
    )
}

async fn host_process_signal(c: &AgentCtx, name: &'static str) -> Row {
    let mut host_sleep = HostSleep::start();
    let o = c.run(&format!("kill -9 {}", host_sleep.0.id())).await;
    std::thread::sleep(Duration::from_millis(100));
    let alive = host_sleep.0.try_wait().unwrap().is_none();
    row(
        name,
        "denied",
        format!("host sleep alive: {alive}; {}", summary(&o)),
        alive,
    )
}

async fn host_environ(c: &AgentCtx, name: &'static str) -> Row {
    let host_env = std::fs::read("/proc/1/environ").unwrap_or_default();
    let host_vars: Vec<String> = host_env
        .split(|b| *b == 0)
        .filter(|v| v.len() > 3)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect();
    let o = c.run("tr '\\0' '\\n' < /proc/1/environ").await;
    let text = o.stdout_text();
    let leaked = host_vars.iter().any(|v| text.lines().any(|l| l == v)) || text.contains(&c.secret_env);
    row(name, "denied", summary(&o), !leaked)
}

async fn symlinks_out(c: &AgentCtx, name: &'static str) -> Row {
    let o = c.run("cat link-shadow; cat link-canary").await;
    let text = o.stdout_text();
    row(
        name,
        "denied",
        summary(&o),
        !text.contains("root:") && !text.contains(&c.secret),
    )
}

async fn secret_env_var(c: &AgentCtx, name: &'static str) -> Row {
    let o = c.run("env").await;
    let text = o.stdout_text();
    row(
        name,
        "denied",
        short(&format!("{SECRET_VAR} present: {}", text.contains(&c.secret_env))),
        !text.contains(&c.secret_env) && !text.contains(SECRET_VAR),
    )
}

async fn allowed_env_vars(c: &AgentCtx, name: &'static str) -> Row {
    let mut eopts = ExecOptions::default();
    eopts.env.insert("GHOSTLAB_TEST_EXPLICIT".into(), "explicit-ok".into());
    let o = c.session.exec(&sh("env"), &eopts, None).await.unwrap();
    let text = o.stdout_text();
    let arrived =
        text.contains("GHOSTLAB_TEST_ALLOWED=allowed-ok") && text.contains("GHOSTLAB_TEST_EXPLICIT=explicit-ok");
    row(name, "allowed", format!("both present: {arrived}"), !arrived)
}
