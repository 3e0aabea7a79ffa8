//! Exhaustion probes: flooding the egress proxy with connections, and storage the sandbox
//! could fill (/dev/shm, a workspace of very many files).

use std::time::Duration;

use ghostlab::sandbox::{ExecOptions, ExecOutput, Role, Sandbox};

use super::Ctx;
use super::host_reach_mcp::{mcp_attempt, mcp_job};
use super::{Row, held, one_shot, sh, short, summary};

fn own_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map(|d| d.count()).unwrap_or(0)
}

fn nofile_soft() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit with a valid struct.
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) };
    lim.rlim_cur
}

/// One flood of `total` connections to the egress socket from inside (three processes, each
/// holding its share for two seconds), then an allowed request. Returns (peak host fds over
/// the baseline, the allowed request's output, denials, log text).
async fn flood(ctx: &Ctx, total: u64) -> (usize, ExecOutput, Vec<ghostlab::sandbox::Denial>, String) {
    let port = super::super::http_server("ALLOWED-BODY");
    let mut p = ctx.sandbox.policy().clone();
    p.network = ghostlab::sandbox::NetworkPolicy::Allowlist(vec![
        ghostlab::sandbox::HostPort::parse(&format!("127.0.0.1:{port}")).unwrap(),
    ]);
    let logs = tempfile::tempdir().unwrap();
    let sb = Sandbox::open_with(p, logs.path().to_path_buf(), Some(ctx.bridge.clone()))
        .await
        .unwrap();
    let s = sb.session(Role::Agent).await.unwrap();
    let each = total.div_ceil(3);
    let script = format!(
        r#"for i in 1 2 3; do perl -e 'use Socket; my @s; for (1..{each}) {{ socket(my $c, PF_UNIX, SOCK_STREAM, 0) or last; connect($c, pack_sockaddr_un("/run/ghostlab-egress/proxy.sock")) or last; push @s, $c }} print scalar(@s), " "; sleep 2' & done; wait"#
    );
    let base = own_fds();
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(base));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let (peak, stop) = (peak.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                peak.fetch_max(own_fds(), std::sync::atomic::Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let topts = ExecOptions {
        timeout: Some(Duration::from_secs(60)),
        ..ExecOptions::default()
    };
    let _ = s.exec(&sh(&script), &topts, None).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    sampler.join().unwrap();
    // Let the proxy notice the flood's connections closing.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = s
        .exec(
            &sh(&format!("curl -sS --max-time 8 http://127.0.0.1:{port}/")),
            &ExecOptions::default(),
            None,
        )
        .await
        .unwrap();
    let denials = s.denials();
    s.flush_log().unwrap();
    let log = std::fs::read_to_string(s.log_path()).unwrap_or_default();
    s.delete().await.unwrap();
    let grew = peak.load(std::sync::atomic::Ordering::SeqCst).saturating_sub(base);
    (grew, after, denials, log)
}

pub async fn proxy_flood_fds(ctx: &Ctx, name: &'static str) -> Row {
    let (grew, _, _, _) = flood(ctx, 1500).await;
    // 256 client connections, their upstreams, and slack for the harness itself.
    held(
        name,
        "bounded",
        format!("1500 connections: harness fds grew by {grew} (bound 600)"),
        grew <= 600,
    )
}

pub async fn proxy_flood_survives(ctx: &Ctx, name: &'static str) -> Row {
    let limit = nofile_soft();
    if limit > 60_000 {
        return Row {
            probe: name.into(),
            expected: "works",
            observed: format!("RLIMIT_NOFILE {limit}: too high to flood here"),
            verdict: "N/A",
        };
    }
    let (_, after, _, _) = flood(ctx, limit + 1000).await;
    held(
        name,
        "works",
        short(&format!("{} connections, then {}", limit + 1000, summary(&after))),
        after.stdout_text().contains("ALLOWED-BODY"),
    )
}

pub async fn proxy_flood_recorded(ctx: &Ctx, name: &'static str) -> Row {
    let (_, _, denials, log) = flood(ctx, 600).await;
    let recorded = denials.iter().any(|d| d.host == "egress-proxy-connection-cap");
    let logged = log.contains("egress REFUSED connection");
    held(
        name,
        "recorded",
        format!("denial recorded: {recorded}; log line: {logged}"),
        recorded && logged,
    )
}

pub async fn shm_bounded(ctx: &Ctx, name: &'static str) -> Row {
    let o = one_shot(ctx, "df -k /dev/shm | tail -1").await;
    let kb: u64 = o
        .stdout_text()
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX);
    held(name, "bounded", format!("/dev/shm size {kb} KiB"), kb <= 256 * 1024)
}

pub async fn workspace_entries(ctx: &Ctx, name: &'static str) -> Row {
    let (dir, job) = mcp_job("");
    let ws = dir.path().join("ws");
    for i in 0..100_001 {
        std::fs::File::create(ws.join(format!("f{i}"))).unwrap();
    }
    let r = mcp_attempt(ctx, &job, "ls | wc -l").await;
    match r {
        Err(e) => held(
            name,
            "refused",
            short(&e),
            e.contains("entries") || e.contains("too many"),
        ),
        Ok(o) => held(name, "refused", short(&format!("copied; {}", summary(&o))), false),
    }
}
