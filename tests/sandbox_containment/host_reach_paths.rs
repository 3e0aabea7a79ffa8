//! Probes of what a session shows of the host and whom its cleanup reaches: host paths in the
//! sandbox's mountinfo, storage a walk of the session's folders cannot see (files deleted while
//! open, the file count of /tmp and /dev/shm), and `delete` ending the session's processes, a
//! daemonised one too, while sparing host processes that only name the session folder.
//!
//! Written against the public API that existed before these were closed, so the same rows show
//! each failing on the earlier code (mountinfo: the generated /etc's bind named the session
//! folder; a host `tail -f` on a session file was SIGKILLed; a deleted 40 MB file and 20,000
//! files in /tmp went unnoticed).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::time::Duration;

use ghostlab::sandbox::{ExecOptions, Role, Sandbox, SandboxPolicy, Session};

use super::Ctx;
use super::{Row, held, sh, short, summary};

/// Mount points whose bind may still show the session folder's path when Ghostlab is not
/// root (documented in docs/sandbox.md): the folders the harness reads back and the sockets.
const NON_ROOT_BINDS: &[&str] = &[
    "/sandbox/workspace",
    "/sandbox/home",
    "/sandbox/tmp",
    "/sandbox/uploads",
    "/run/ghostlab-mcp",
    "/run/ghostlab-egress",
];

fn is_root() -> bool {
    // SAFETY: trivial getter.
    unsafe { libc::geteuid() == 0 }
}

async fn sandbox_with(ctx: &Ctx, edit: impl FnOnce(&mut SandboxPolicy)) -> (Sandbox, tempfile::TempDir) {
    let mut p = ctx.sandbox.policy().clone();
    edit(&mut p);
    let logs = tempfile::tempdir().unwrap();
    let sb = Sandbox::open_with(p, logs.path().to_path_buf(), Some(ctx.bridge.clone()))
        .await
        .unwrap();
    (sb, logs)
}

/// Lines of `mountinfo` that tell more of the host than their mount point: one whose root or
/// mount point names the session folder, or whose root names HOME, the checkout or the temp
/// folder beyond what the mount point already shows.
fn revealing(mountinfo: &str, session: &Path, host_paths: &[String]) -> Vec<(String, String)> {
    let session = session.display().to_string();
    let mut out = Vec::new();
    for line in mountinfo.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let (Some(root), Some(point)) = (fields.get(3), fields.get(4)) else {
            continue;
        };
        let names_host = host_paths.iter().any(|h| root.starts_with(h.as_str()));
        let beyond_point = *root != "/" && !point.ends_with(root);
        if line.contains(&session) || (names_host && beyond_point) {
            out.push((point.to_string(), root.to_string()));
        }
    }
    out
}

pub async fn mountinfo_paths(ctx: &Ctx, name: &'static str) -> Row {
    let port = super::super::http_server("OK");
    // An allowlist, so the egress socket folder is bound too; the suite's job stages AGENTS.md.
    let (sb, _logs) = sandbox_with(ctx, |p| {
        p.network = ghostlab::sandbox::NetworkPolicy::Allowlist(vec![
            ghostlab::sandbox::HostPort::parse(&format!("127.0.0.1:{port}")).unwrap(),
        ]);
    })
    .await;
    let s = sb.session(Role::Agent).await.unwrap();
    std::fs::write(s.config_dir().join("opencode.json"), "{}").unwrap();
    let o = s
        .exec(&sh("cat /proc/self/mountinfo"), &ExecOptions::default(), None)
        .await
        .unwrap();
    let mut host_paths = vec![
        ctx.checkout.display().to_string(),
        std::env::temp_dir().display().to_string(),
    ];
    host_paths.extend(std::env::var("HOME").ok().filter(|h| h != "/"));
    let found = revealing(&o.stdout_text(), s.dir(), &host_paths);
    s.delete().await.unwrap();
    let (allowed, beyond): (Vec<_>, Vec<_>) = found
        .iter()
        .partition(|(point, _)| !is_root() && NON_ROOT_BINDS.contains(&point.as_str()));
    let points: Vec<&str> = beyond.iter().map(|(p, _)| p.as_str()).collect();
    held(
        name,
        "denied",
        short(&format!(
            "{} line(s) read; revealing: {points:?}; documented non-root binds: {}",
            o.stdout_text().lines().count(),
            allowed.len()
        )),
        o.status == 0 && o.stdout_text().contains(" /etc ") && beyond.is_empty(),
    )
}

fn host_has_arg(arg: &str) -> bool {
    super::super::host_has_process_with_arg(arg)
}

async fn wait_until(mut cond: impl FnMut() -> bool) -> bool {
    for _ in 0..100 {
        if cond() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

pub async fn kill_by_launcher(ctx: &Ctx, name: &'static str) -> Row {
    let s = ctx.sandbox.session(Role::Agent).await.unwrap();
    let dir = s.dir().to_path_buf();
    // A daemon inside a long-lived command (as the agent is): its own session, stdio closed.
    let mut agent = s
        .command(
            &sh("setsid sh -c 'exec sleep 5151' </dev/null >/dev/null 2>&1 & exec sleep 5150"),
            &ExecOptions::default(),
        )
        .unwrap()
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let running = wait_until(|| host_has_arg("5151")).await;
    // Host processes that name the session folder: `tail -f` on a file in it, a program given
    // the folder itself, one working inside it.
    let mut tail = std::process::Command::new("tail")
        .arg("-f")
        .arg(dir.join("owner.pid"))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut named = std::process::Command::new("sh")
        .args(["-c", "sleep 5152; true", "sh"])
        .arg(&dir)
        .process_group(0)
        .spawn()
        .unwrap();
    let mut inside = std::process::Command::new("sleep")
        .arg("5153")
        .current_dir(&dir)
        .spawn()
        .unwrap();
    wait_until(|| host_has_arg("5152") && host_has_arg("5153")).await;
    s.delete().await.unwrap();
    let daemon_gone = wait_until(|| !host_has_arg("5151")).await;
    let _ = tokio::time::timeout(Duration::from_secs(3), agent.wait()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let alive: Vec<bool> = [&mut tail, &mut named, &mut inside]
        .into_iter()
        .map(|c| c.try_wait().unwrap().is_none())
        .collect();
    // SAFETY: kill(2) on the process group of a child this probe started (its `sleep` too).
    unsafe { libc::kill(-(named.id() as i32), libc::SIGKILL) };
    for c in [&mut tail, &mut named, &mut inside] {
        let _ = c.kill();
        let _ = c.wait();
    }
    held(
        name,
        "denied",
        short(&format!(
            "daemon ran: {running}, gone after delete: {daemon_gone}; host tail/arg/cwd alive: {alive:?}"
        )),
        running && daemon_gone && alive == [true, true, true],
    )
}

/// The measured bound's outcome for a command that should be stopped: refused with `reason`
/// (measured), or failing inside (root: the folders are tmpfs).
fn stopped(run: &Result<ghostlab::sandbox::ExecOutput, ghostlab::sandbox::SandboxError>, reason: &str) -> bool {
    match run {
        Err(e) => e.to_string().contains(reason),
        Ok(o) => !o.stdout_text().contains("DONE"),
    }
}

fn described(run: &Result<ghostlab::sandbox::ExecOutput, ghostlab::sandbox::SandboxError>) -> String {
    run.as_ref().map(summary).unwrap_or_else(|e| e.to_string())
}

pub async fn deleted_open_file(ctx: &Ctx, name: &'static str) -> Row {
    let bound: u64 = 8 << 20;
    let (sb, _logs) = sandbox_with(ctx, |p| {
        p.limits.scratch_bytes = bound;
        p.limits.workspace_bytes = bound;
        p.limits.file_size_bytes = Some(64 << 20);
    })
    .await;
    let mut observed = Vec::new();
    let mut holds = true;
    // HOME, TMPDIR and the workspace: 40 MB written into a file unlinked while open, then held
    // open (nothing lists it; its blocks stay on the disk under the folder).
    for folder in ["$ENV{HOME}", "$ENV{TMPDIR}", "."] {
        let s: Session = sb.session(Role::Agent).await.unwrap();
        let script = format!(
            r#"perl -e 'open(my $f, ">", "{folder}/gone") or die "open: $!\n"; unlink "{folder}/gone"; for (1..40) {{ syswrite($f, "x" x 1000000) == 1000000 or die "write: $!\n" }} sleep 12; print "DONE\n"'"#
        );
        let run = s.exec(&sh(&script), &ExecOptions::default(), None).await;
        let ok = stopped(&run, "deleted while still open");
        observed.push(format!("{folder}: {}", described(&run)));
        holds &= ok;
        let _ = s.delete().await;
    }
    held(name, "bounded", short(&observed.join("; ")), holds)
}

pub async fn tmpfs_files(ctx: &Ctx, name: &'static str) -> Row {
    let mut observed = Vec::new();
    let mut holds = true;
    for folder in ["/tmp", "/dev/shm"] {
        let s = ctx.sandbox.session(Role::Agent).await.unwrap();
        // Shell builtins only (no fork per file): 20,000 empty files, then held for a while.
        let script = format!(
            "i=0; while [ $i -lt 20000 ]; do : > {folder}/f$i || exit 3; i=$((i+1)); done; echo MADE; \
             j=0; while [ $j -lt 400000 ]; do j=$((j+1)); done; echo DONE"
        );
        let topts = ExecOptions {
            timeout: Some(Duration::from_secs(60)),
            ..ExecOptions::default()
        };
        let run = s.exec(&sh(&script), &topts, None).await;
        let next = s.exec(&sh("true"), &ExecOptions::default(), None).await;
        let ok = matches!(&run, Err(e) if e.to_string().contains(&format!("{folder} exceeded"))) && next.is_err();
        observed.push(format!("{folder}: {}", described(&run)));
        holds &= ok;
        let _ = s.delete().await;
    }
    held(name, "bounded", short(&observed.join("; ")), holds)
}

/// bubblewrap's own root and its /dev are tmpfs of no stated size: a file written beside the
/// mounts (`/x`, a new `/var/x`, `/opt/x`, `/dev/x`) would take memory no bound covers. They
/// are read-only; /dev/shm (bounded) and /dev/null stay writable.
pub async fn writable_root(ctx: &Ctx, name: &'static str) -> Row {
    let o = super::one_shot(
        ctx,
        "echo ok > /dev/null && echo ok > /dev/shm/y && echo shm-ok; \
         for p in /x /var/x /opt/x /run/x /dev/x /dev/pts/x; do \
           if (mkdir -p \"$(dirname $p)\" && head -c 1048576 /dev/zero > $p) 2>/dev/null; then echo \"wrote $p\"; fi; \
         done; echo done",
    )
    .await;
    let out = o.stdout_text();
    held(
        name,
        "denied",
        summary(&o),
        out.contains("shm-ok") && out.contains("done") && !out.contains("wrote"),
    )
}
