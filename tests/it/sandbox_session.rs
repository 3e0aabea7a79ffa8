//! Session API beyond containment: upload/download, keep, and the explicit local backend.

use std::path::Path;
use std::time::Duration;

use ghostlab::sandbox::{ExecOptions, Role, Sandbox, SandboxPolicy};
use ghostlab::spec::SandboxBackend;

/// A runtime when bubblewrap can start here; otherwise an honest skip (a failure under
/// `GHOSTLAB_REQUIRE_ALL=1`, as in CI).
fn runtime_with_bwrap() -> Option<tokio::runtime::Runtime> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let p = rt.block_on(ghostlab::sandbox::doctor::probe_bubblewrap());
    if p.works {
        Some(rt)
    } else {
        ghostlab::util::skip::skipped(&format!("SKIPPED: bubblewrap cannot start here: {}", p.detail));
        None
    }
}

fn sh(s: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), s.into()]
}

#[test]
fn upload_download_and_keep() {
    let Some(rt) = runtime_with_bwrap() else { return };
    rt.block_on(async {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("a.txt"), "A\n").unwrap();
        let mut policy = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        policy.workspace = Some(ws.clone());
        policy.keep = true;
        let sb = Sandbox::open(policy, tmp.path().join("logs")).await.unwrap();
        let s = sb.session(Role::Agent).await.unwrap();
        let up = tmp.path().join("in.txt");
        std::fs::write(&up, "uploaded\n").unwrap();
        s.upload(&up, "/sandbox/uploads/in.txt").await.unwrap();
        let o = s
            .exec(
                &sh("cat /sandbox/uploads/in.txt a.txt; echo made > out.txt; ln -s /etc/passwd link"),
                &ExecOptions::default(),
                None,
            )
            .await
            .unwrap();
        assert_eq!(o.stdout_text(), "uploaded\nA\n", "{}", o.stderr_text());
        // Piped stdin reaches the command.
        let o = s
            .exec(
                &["cat".to_string()],
                &ExecOptions::default(),
                Some(b"via stdin".to_vec()),
            )
            .await
            .unwrap();
        assert_eq!(o.stdout_text(), "via stdin");
        let out = tmp.path().join("out");
        s.download("/sandbox/workspace", &out).await.unwrap();
        assert_eq!(std::fs::read_to_string(out.join("out.txt")).unwrap(), "made\n");
        assert!(out.join("link").symlink_metadata().unwrap().file_type().is_symlink());
        assert!(s.download("/etc/passwd", &tmp.path().join("pw")).await.is_err());
        assert!(s.upload(&up, "/etc/evil").await.is_err());
        // The user's workspace never changed.
        assert!(!ws.join("out.txt").exists());
        let dir = s.dir().to_path_buf();
        let log = s.log_path().to_path_buf();
        s.delete().await.unwrap();
        assert!(dir.exists(), "keep: true keeps the session folder");
        assert!(std::fs::read_to_string(&log).unwrap().contains("KEPT at"));
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

#[test]
fn local_backend_is_explicit_and_still_works_on_a_copy() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("a.txt"), "A\n").unwrap();
        let mut policy = SandboxPolicy::minimal(SandboxBackend::Local);
        policy.workspace = Some(ws.clone());
        policy.limits.wall_timeout = Duration::from_secs(1);
        let sb = Sandbox::open(policy, tmp.path().join("logs")).await.unwrap();
        let s = sb.session(Role::Judge).await.unwrap();
        let o = s
            .exec(&sh("cat a.txt; echo x > b.txt; env"), &ExecOptions::default(), None)
            .await
            .unwrap();
        let text = o.stdout_text();
        assert!(text.starts_with("A\n"));
        assert!(!text.contains("CARGO_MANIFEST_DIR"), "the parent environment leaked");
        assert!(!ws.join("b.txt").exists(), "local still works on a copy");
        let o = s
            .exec(&sh("sleep 30 & sleep 30"), &ExecOptions::default(), None)
            .await
            .unwrap();
        assert!(o.timed_out);
        let _child = s
            .command(&["sleep".into(), "4242".into()], &ExecOptions::default())
            .unwrap()
            .spawn()
            .unwrap();
        let log = s.log_path().to_path_buf();
        s.delete().await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let alive = std::fs::read_dir("/proc").unwrap().filter_map(Result::ok).any(|e| {
            std::fs::read(e.path().join("cmdline"))
                .map(|c| c.split(|b| *b == 0).any(|a| a == b"4242"))
                .unwrap_or(false)
        });
        assert!(!alive, "delete ends local children too");
        assert!(std::fs::read_to_string(log).unwrap().contains("WARNING backend local"));
        assert!(!Path::new(&tmp.path().join("ws/b.txt")).exists());
    });
}

/// JavaScript runtimes reserve far more address space than they touch (JavaScriptCore, so Bun
/// and OpenCode, wants a 1 GiB code region for its JIT). With the session's memory cgroup the
/// reservation must be granted and only touched memory capped: RLIMIT_DATA, which counts
/// reservations, had silently cost OpenCode its JIT (3x slower turns). Without the cgroup (not
/// root) RLIMIT_DATA is the only cap left, and the same reservation is refused.
#[test]
fn memory_cap_counts_touched_memory_not_reserved_address_space() {
    let Some(rt) = runtime_with_bwrap() else { return };
    rt.block_on(async {
        let tmp = tempfile::tempdir().unwrap();
        let mut policy = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        policy.limits.memory_bytes = Some(256 << 20);
        let sb = Sandbox::open(policy, tmp.path().join("logs")).await.unwrap();
        let s = sb.session(Role::Agent).await.unwrap();
        // MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, read-write: what a JIT reserves.
        let map = "import mmap; m = mmap.mmap(-1, LEN, flags=0x02 | 0x20 | 0x4000); ";
        let reserve = format!("{map}print('reserved')").replace("LEN", &(4u64 << 30).to_string());
        let o = s
            .exec(&["python3".into(), "-c".into(), reserve], &ExecOptions::default(), None)
            .await
            .unwrap();
        let touch = format!("{map}m.write(b'x' * LEN); print('touched')").replace("LEN", &(512u64 << 20).to_string());
        let t = s
            .exec(&["python3".into(), "-c".into(), touch], &ExecOptions::default(), None)
            .await
            .unwrap();
        s.flush_log().unwrap();
        let log = std::fs::read_to_string(s.log_path()).unwrap_or_default();
        s.delete().await.unwrap();
        // The session's log names its memory cgroup when it has one (root, cgroups writable).
        let cgroup = log.contains("memory.limit_in_bytes=") || log.contains("memory.max=");
        if cgroup {
            assert_eq!(
                o.stdout_text(),
                "reserved\n",
                "a 4 GiB reservation was refused: {}",
                o.stderr_text()
            );
        } else {
            assert!(
                !o.stdout_text().contains("reserved"),
                "RLIMIT_DATA (the fallback) did not apply"
            );
        }
        assert!(
            !t.stdout_text().contains("touched") && t.status != 0,
            "512 MiB touched under a 256 MiB cap: exit {}, {}",
            t.status,
            t.stderr_text()
        );
        if cgroup {
            assert_eq!(
                t.limit_hit,
                Some("memory (cgroup)"),
                "exit {}: {}\n{log}",
                t.status,
                t.stderr_text()
            );
        }
    });
}
