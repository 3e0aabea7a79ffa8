//! Probes of the ways a sandboxed process could reach the host without a path to it:
//! descriptors inherited from whatever started Ghostlab, the host's session keyring, calls that
//! take a sibling's descriptors or memory, exhausting the egress proxy, what an MCP server's
//! command brings along, and storage the sandbox can fill.
//!
//! They use only the public API that existed before these were closed, so the same table runs
//! against the old code and shows each probe failing there.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use futures::future::LocalBoxFuture;
use ghostlab::sandbox::{ExecOptions, ExecOutput, Role};

use super::isolation::Ctx;
use super::{Row, sh, short, summary};

#[path = "host_files.rs"]
mod host_files;
#[path = "host_reach_flood.rs"]
mod host_reach_flood;
#[path = "host_reach_mcp.rs"]
mod host_reach_mcp;
#[path = "host_reach_paths.rs"]
mod host_reach_paths;
#[path = "network_watch.rs"]
mod network_watch;

type Check = for<'a> fn(&'a Ctx, &'static str) -> LocalBoxFuture<'a, Row>;

/// The table: probe name and its check.
pub const PROBES: &[(&str, Check)] = &[
    ("inherited fd to / reaches a host canary", |c, n| {
        Box::pin(fd_root(c, n))
    }),
    ("inherited fd to a host folder: host /etc/passwd via ..", |c, n| {
        Box::pin(fd_passwd(c, n))
    }),
    ("inherited fd to host /tmp: write a file there", |c, n| {
        Box::pin(fd_tmp(c, n))
    }),
    (
        "CI wrapper: flock'd lock file and jobserver pipe not inherited",
        |c, n| Box::pin(fd_ci_wrapper(c, n)),
    ),
    (
        "CI wrapper: a token written to the jobserver pipe reaches the host",
        |c, n| Box::pin(fd_jobserver_write(c, n)),
    ),
    ("inherited connected host socket usable inside", |c, n| {
        Box::pin(fd_socket(c, n))
    }),
    ("library caller's non-CLOEXEC fd reaches a host canary", |c, n| {
        Box::pin(fd_library(c, n))
    }),
    ("host session keyring and key listed in /proc/keys", |c, n| {
        Box::pin(keyring(c, n))
    }),
    ("pidfd_getfd takes a sibling's descriptor (and its secret)", |c, n| {
        Box::pin(pidfd_getfd(c, n))
    }),
    ("process_madvise on a process denied", |c, n| {
        Box::pin(process_madvise(c, n))
    }),
    ("kcmp compares kernel objects of processes", |c, n| Box::pin(kcmp(c, n))),
    ("egress proxy flood: host-side descriptors stay within a cap", |c, n| {
        Box::pin(host_reach_flood::proxy_flood_fds(c, n))
    }),
    (
        "egress proxy flood beyond the harness's fd limit: allowed request still works",
        |c, n| Box::pin(host_reach_flood::proxy_flood_survives(c, n)),
    ),
    ("egress proxy flood: refusal logged and recorded as a denial", |c, n| {
        Box::pin(host_reach_flood::proxy_flood_recorded(c, n))
    }),
    ("MCP server ~/.local/bin/x: refused, auth.json not shown", |c, n| {
        Box::pin(host_reach_mcp::mcp_dot_local(c, n))
    }),
    (
        "MCP server python3 /dir/server.py: 0600 .env beside it stays out",
        |c, n| Box::pin(host_reach_mcp::mcp_dotenv(c, n)),
    ),
    ("MCP server folder: owner-only tokens.json stays out", |c, n| {
        Box::pin(host_reach_mcp::mcp_private_file(c, n))
    }),
    (
        "MCP server script in a home folder: refused, ~/.ssh not shown",
        |c, n| Box::pin(host_reach_mcp::mcp_in_home(c, n)),
    ),
    ("/dev/shm is size-bounded (<= 256 MiB)", |c, n| {
        Box::pin(host_reach_flood::shm_bounded(c, n))
    }),
    ("workspace of 100,001 files refused with a bound", |c, n| {
        Box::pin(host_reach_flood::workspace_entries(c, n))
    }),
    ("network watch: x32 alias of connect refused", |c, n| {
        Box::pin(network_watch::x32_alias(c, n))
    }),
    ("network watch: a second seccomp listener refused", |c, n| {
        Box::pin(network_watch::second_listener(c, n))
    }),
    ("network watch: a daemonised grandchild's connect recorded", |c, n| {
        Box::pin(network_watch::daemonised_child(c, n))
    }),
    (
        "network watch: UDP sendto and IPv6 connect refused and recorded",
        |c, n| Box::pin(network_watch::datagram_and_v6(c, n)),
    ),
    (
        "network watch: shim without its socket never runs the command",
        |c, n| Box::pin(network_watch::shim_fails_closed(c, n)),
    ),
    (
        "internet sockets only as TCP/UDP: SCTP, seqpacket, raw refused",
        |c, n| Box::pin(network_watch::exotic_inet_sockets(c, n)),
    ),
    (
        "download of a setuid program: no setuid bit, Ghostlab's owner",
        |c, n| Box::pin(host_files::download_setuid(c, n)),
    ),
    ("download through a workspace folder linked to a host folder", |c, n| {
        Box::pin(host_files::download_linked_folder(c, n))
    }),
    ("download through a deeper folder linked to a host folder", |c, n| {
        Box::pin(host_files::download_linked_deeper(c, n))
    }),
    ("kept session (keep: true): no setuid file kept", |c, n| {
        Box::pin(host_files::kept_session_setuid(c, n))
    }),
    (
        "stale sweep: another user's planted folder, home linked to a host mount",
        |c, n| Box::pin(host_files::sweep_foreign_link(c, n)),
    ),
    (
        "stale sweep: own stale folder, workspace linked to a host mount",
        |c, n| Box::pin(host_files::sweep_own_link(c, n)),
    ),
    ("stale sweep: a host mount bound at a stale folder's tmp", |c, n| {
        Box::pin(host_files::sweep_other_mount(c, n))
    }),
    (
        "network watch: sendmsg and sendmmsg destinations refused and recorded",
        |c, n| Box::pin(network_watch::datagrams_by_message_header(c, n)),
    ),
    (
        "watch: a non-dumpable process's connect and exec still recorded",
        |c, n| Box::pin(network_watch::non_dumpable_process(c, n)),
    ),
    (
        "mountinfo: no host path of the session, HOME, checkout or temp folder",
        |c, n| Box::pin(host_reach_paths::mountinfo_paths(c, n)),
    ),
    (
        "delete: a daemon inside dies, host processes naming the folder live",
        |c, n| Box::pin(host_reach_paths::kill_by_launcher(c, n)),
    ),
    (
        "HOME, TMPDIR, workspace: 40 MB in a deleted-but-open file stopped",
        |c, n| Box::pin(host_reach_paths::deleted_open_file(c, n)),
    ),
    ("/tmp and /dev/shm: 20,000 files stop the session", |c, n| {
        Box::pin(host_reach_paths::tmpfs_files(c, n))
    }),
    (
        "the sandbox's root and /dev outside their mounts are read-only",
        |c, n| Box::pin(host_reach_paths::writable_root(c, n)),
    ),
];

/// Runs every probe of the table.
pub async fn rows(ctx: &Ctx) -> Vec<Row> {
    let mut out = Vec::new();
    for (name, check) in PROBES {
        out.push(check(ctx, name).await);
    }
    out
}

pub fn held(probe: &str, expected: &'static str, observed: String, holds: bool) -> Row {
    Row {
        probe: probe.to_string(),
        expected,
        observed,
        verdict: if holds { "PASS" } else { "FAIL" },
    }
}

/// A descriptor the wrapper leaves open (without close-on-exec) at `target` for ghostlab.
struct Leak {
    fd: OwnedFd,
    target: RawFd,
}

fn open_fd(path: &Path, flags: libc::c_int) -> OwnedFd {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: open(2) with a NUL-terminated path; the result is owned below.
    let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC) };
    assert!(fd >= 0, "open {}: {}", path.display(), std::io::Error::last_os_error());
    // SAFETY: a fresh descriptor nobody else owns.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 into a valid array.
    assert_eq!(
        unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) },
        0
    );
    // SAFETY: fresh descriptors.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

/// Runs `ghostlab sandbox exec --job J -- sh -c SCRIPT` the way a CI wrapper would: with
/// `leaks` open at their target numbers and, optionally, a session keyring of its own that
/// holds a key (`(keyring name, key description, payload)`).
fn wrapped(
    ctx: &Ctx,
    job: &Path,
    leaks: &[Leak],
    keyring: Option<(CString, CString, Vec<u8>)>,
    script: &str,
) -> std::process::Output {
    let mut cmd = std::process::Command::new(&ctx.bridge);
    cmd.args(["sandbox", "exec", "--job"])
        .arg(job)
        .args(["--", "sh", "-c", script]);
    let plan: Vec<(RawFd, RawFd)> = leaks.iter().map(|l| (l.fd.as_raw_fd(), l.target)).collect();
    // SAFETY: only dup2 and raw keyctl/add_key syscalls on data prepared before fork.
    unsafe {
        cmd.pre_exec(move || {
            for (src, target) in &plan {
                // dup2 leaves the new descriptor without close-on-exec, as a shell's `exec 7<` does.
                if libc::dup2(*src, *target) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if let Some((ring, desc, payload)) = &keyring {
                if libc::syscall(libc::SYS_keyctl, 1 as libc::c_long, ring.as_ptr()) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let id = libc::syscall(
                    libc::SYS_add_key,
                    c"user".as_ptr(),
                    desc.as_ptr(),
                    payload.as_ptr(),
                    payload.len(),
                    -3 as libc::c_long,
                );
                if id < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

fn out_text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn tag() -> String {
    format!("{:08x}", rand::random::<u32>())
}

async fn fd_root(ctx: &Ctx, name: &'static str) -> Row {
    let leak = Leak {
        fd: open_fd(Path::new("/"), libc::O_RDONLY | libc::O_DIRECTORY),
        target: 7,
    };
    let rel = ctx.outside.join("canary.txt");
    let rel = rel.strip_prefix("/").unwrap().display().to_string();
    let o = wrapped(
        ctx,
        &ctx.job_file,
        &[leak],
        None,
        &format!("cat /proc/self/fd/7/{rel}; ls /proc/self/fd/7/ | head -5 | tr '\\n' ' '"),
    );
    let t = out_text(&o);
    held(name, "denied", short(&t), !t.contains(&ctx.secret))
}

async fn fd_passwd(ctx: &Ctx, name: &'static str) -> Row {
    let host = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    // A host account the generated /etc does not have (it lists root, the sandbox user, nobody).
    let marker = host
        .lines()
        .filter_map(|l| l.split(':').next())
        .find(|u| !["root", "nobody"].contains(u))
        .map(|u| format!("{u}:x:"))
        .unwrap_or_else(|| "daemon:x:".into());
    let leak = Leak {
        fd: open_fd(&ctx.outside, libc::O_RDONLY | libc::O_DIRECTORY),
        target: 8,
    };
    let ups = "../".repeat(ctx.outside.components().count() + 2);
    let o = wrapped(
        ctx,
        &ctx.job_file,
        &[leak],
        None,
        &format!("cat /proc/self/fd/8/{ups}etc/passwd"),
    );
    let t = out_text(&o);
    held(
        name,
        "denied",
        short(&format!("host line `{marker}` seen: {}; {t}", t.contains(&marker))),
        !t.contains(&marker),
    )
}

async fn fd_tmp(ctx: &Ctx, name: &'static str) -> Row {
    let file = format!("ghostlab-fd-probe-{}", tag());
    let leak = Leak {
        fd: open_fd(Path::new("/tmp"), libc::O_RDONLY | libc::O_DIRECTORY),
        target: 9,
    };
    let o = wrapped(
        ctx,
        &ctx.job_file,
        &[leak],
        None,
        &format!("echo pwned > /proc/self/fd/9/{file}"),
    );
    let host = Path::new("/tmp").join(&file);
    let written = host.exists();
    let _ = std::fs::remove_file(&host);
    held(
        name,
        "denied",
        short(&format!("host /tmp/{file} created: {written}; {}", out_text(&o))),
        !written,
    )
}

/// A lock file held with flock and a jobserver pipe, as `flock 10 make -j` leaves them.
fn ci_leaks(ctx: &Ctx) -> (Vec<Leak>, PathBuf, OwnedFd) {
    let lock = ctx.outside.join(format!("ci-{}.lock", tag()));
    std::fs::write(&lock, "").unwrap();
    let lock_fd = open_fd(&lock, libc::O_RDWR);
    // SAFETY: flock on a descriptor we own.
    assert_eq!(unsafe { libc::flock(lock_fd.as_raw_fd(), libc::LOCK_EX) }, 0);
    let (r, w) = pipe();
    let keep_r = r.try_clone().unwrap();
    (
        vec![
            Leak { fd: lock_fd, target: 3 },
            Leak { fd: r, target: 4 },
            Leak { fd: w, target: 5 },
        ],
        lock,
        keep_r,
    )
}

async fn fd_ci_wrapper(ctx: &Ctx, name: &'static str) -> Row {
    let (leaks, lock, _r) = ci_leaks(ctx);
    let o = wrapped(
        ctx,
        &ctx.job_file,
        &leaks,
        None,
        "for n in 3 4 5; do test -e /proc/$$/fd/$n && echo \"$n=$(readlink /proc/$$/fd/$n)\"; done; true",
    );
    let t = String::from_utf8_lossy(&o.stdout).into_owned();
    let lock_name = lock.file_name().unwrap().to_string_lossy().into_owned();
    let _ = std::fs::remove_file(&lock);
    held(
        name,
        "denied",
        short(&format!("fds 3-5 inside: [{}]", t.trim().replace('\n', " "))),
        t.trim().is_empty() && !t.contains(&lock_name),
    )
}

async fn fd_jobserver_write(ctx: &Ctx, name: &'static str) -> Row {
    let (leaks, lock, r) = ci_leaks(ctx);
    let o = wrapped(ctx, &ctx.job_file, &leaks, None, "printf 'TOKENS' >&5; echo rc=$?");
    drop(leaks);
    let mut buf = [0u8; 64];
    // SAFETY: read(2) on our non-blocking pipe end into a valid buffer.
    let n = unsafe { libc::read(r.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    let got = if n > 0 {
        String::from_utf8_lossy(&buf[..n as usize]).into_owned()
    } else {
        String::new()
    };
    let _ = std::fs::remove_file(&lock);
    held(
        name,
        "denied",
        short(&format!("host read {got:?}; {}", out_text(&o))),
        !got.contains("TOKENS"),
    )
}

async fn fd_socket(ctx: &Ctx, name: &'static str) -> Row {
    let sock = ctx.outside.join("host.sock");
    let Ok(stream) = std::os::unix::net::UnixStream::connect(&sock) else {
        return Row {
            probe: name.into(),
            expected: "denied",
            observed: "no host socket to connect to here".into(),
            verdict: "SKIPPED",
        };
    };
    let leak = Leak {
        fd: OwnedFd::from(stream),
        target: 6,
    };
    // dash takes single-digit descriptors only in redirections.
    let o = wrapped(ctx, &ctx.job_file, &[leak], None, "timeout 3 head -c 11 <&6");
    let t = out_text(&o);
    held(name, "denied", short(&t), !t.contains("HOST-SOCKET"))
}

async fn fd_library(ctx: &Ctx, name: &'static str) -> Row {
    let c = CString::new(ctx.outside.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: open(2) WITHOUT close-on-exec, as an embedding program might; closed below.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY) };
    assert!(fd >= 0);
    let s = ctx.sandbox.session(Role::Agent).await.unwrap();
    let o = s
        .exec(
            &sh(&format!(
                "cat /proc/self/fd/{fd}/canary.txt; ls /proc/$$/fd | tr '\\n' ' '"
            )),
            &ExecOptions::default(),
            None,
        )
        .await
        .unwrap();
    // SAFETY: closing the descriptor opened above.
    unsafe { libc::close(fd) };
    s.delete().await.unwrap();
    let t = o.stdout_text();
    held(name, "denied", summary(&o), !t.contains(&ctx.secret))
}

async fn keyring(ctx: &Ctx, name: &'static str) -> Row {
    let ring = format!("ghostlab-probe-ses-{}", tag());
    let key = format!("ghostlab-probe-key-{}", tag());
    let o = wrapped(
        ctx,
        &ctx.job_file,
        &[],
        Some((
            CString::new(ring.clone()).unwrap(),
            CString::new(key.clone()).unwrap(),
            ctx.secret.as_bytes().to_vec(),
        )),
        "cat /proc/keys /proc/key-users; true",
    );
    let t = out_text(&o);
    held(
        name,
        "denied",
        short(&format!(
            "keyring listed: {}; key listed: {}; {t}",
            t.contains(&ring),
            t.contains(&key)
        )),
        !t.contains(&ring) && !t.contains(&key) && o.status.success(),
    )
}

pub async fn one_shot(ctx: &Ctx, script: &str) -> ExecOutput {
    let s = ctx.sandbox.session(Role::Agent).await.unwrap();
    let o = s.exec(&sh(script), &ExecOptions::default(), None).await.unwrap();
    s.delete().await.unwrap();
    o
}

async fn pidfd_getfd(ctx: &Ctx, name: &'static str) -> Row {
    // The parent opens a secret, forks a sibling that keeps it, closes and deletes its own
    // copy, then asks the kernel for the sibling's descriptor.
    let script = r#"echo SIBLING-SECRET > sec.txt; perl -e '
open(F, "<", "sec.txt") or die "open: $!\n"; my $n = fileno(F);
my $pid = fork(); if (!$pid) { sleep 4; exit 0 }
close(F); unlink "sec.txt";
my $pfd = syscall(434, $pid, 0); if ($pfd < 0) { print "pidfd_open: $!\n"; kill 9, $pid; exit 0 }
my $fd = syscall(438, $pfd, $n, 0); if ($fd < 0) { print "pidfd_getfd: $!\n"; kill 9, $pid; exit 0 }
open(G, "<&=", $fd) or die; my $l = <G>; print "GOT $l"; kill 9, $pid;'"#;
    let o = one_shot(ctx, script).await;
    held(
        name,
        "denied",
        summary(&o),
        !o.stdout_text().contains("GOT SIBLING-SECRET"),
    )
}

async fn process_madvise(ctx: &Ctx, name: &'static str) -> Row {
    let script = r#"perl -e '
my $pfd = syscall(434, $$ + 0, 0); die "pidfd_open: $!\n" if $pfd < 0;
my $iov = pack("QQ", 0, 0);
my $r = syscall(440, $pfd, $iov, 1, 20, 0); print "rc=$r errno=", ($r < 0 ? $!+0 : 0), "\n";'"#;
    let o = one_shot(ctx, script).await;
    held(
        name,
        "denied",
        summary(&o),
        o.stdout_text().contains(&format!("errno={}", libc::EPERM)),
    )
}

async fn kcmp(ctx: &Ctx, name: &'static str) -> Row {
    let script = format!(
        r#"perl -e 'my $r = syscall({}, $$ + 0, $$ + 0, 0, 0, 0); print "rc=$r errno=", ($r < 0 ? $!+0 : 0), "\n";'"#,
        libc::SYS_kcmp
    );
    let o = one_shot(ctx, &script).await;
    held(
        name,
        "denied",
        summary(&o),
        o.stdout_text().contains(&format!("errno={}", libc::EPERM)),
    )
}
