//! Sandbox overhead in one run: a plain spawn of `true` versus a bubblewrap session's
//! create + exec `true` + delete (and exec alone in a live session), for each root filesystem
//! (`isolated`, the default, and `read_only`), as medians and ratios.
//!
//! It also times the backend probe (a whole extra session, which every `Sandbox::open` ran
//! before the probe was cached per process) against a later, cached open.
//!
//! `cargo bench --bench sandbox` (or `-- 50` for 50 rounds). Prints SKIPPED when bwrap cannot
//! start here. `bench/sandbox-before-after.sh BEFORE AFTER` runs two builds of this bench
//! alternately and prints after/before ratios per row.

use std::time::{Duration, Instant};

use ghostlab::sandbox::doctor::probe_bubblewrap;
use ghostlab::sandbox::{ExecOptions, Role, Sandbox, SandboxPolicy};
use ghostlab::spec::{RootFilesystem, SandboxBackend};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let rounds: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(20);
    let rt = ghostlab::util::runtime::multi_thread().expect("tokio runtime");
    let probe = rt.block_on(probe_bubblewrap());
    if !probe.works {
        ghostlab::util::skip::skipped(&format!("SKIPPED: bubblewrap cannot start here: {}", probe.detail));
        return;
    }
    let mut plain = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let s = std::process::Command::new("true").status().expect("spawn true");
        assert!(s.success());
        plain.push(t.elapsed());
    }
    let logs = tempfile::tempdir().expect("tempdir");
    let ws = tempfile::tempdir().expect("tempdir");
    std::fs::write(ws.path().join("README.md"), "bench\n").expect("write");
    let p = median(plain);
    println!("sandbox bench, {rounds} rounds, medians:");
    println!("| measurement | median ms | ratio to plain |");
    println!("|---|---|---|");
    println!("| plain spawn of `true` | {:.2} | 1.0 |", ms(p));
    let (probe, open) = rt.block_on(measure_open(logs.path(), rounds));
    println!(
        "| backend probe (ran on every open before the per-process cache) | {:.2} | {:.1} |",
        ms(probe),
        ms(probe) / ms(p)
    );
    println!(
        "| open a sandbox, probe cached | {:.2} | {:.1} |",
        ms(open),
        ms(open) / ms(p)
    );
    for mode in [RootFilesystem::Isolated, RootFilesystem::ReadOnly] {
        let mut policy = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        policy.workspace = Some(ws.path().to_path_buf());
        policy.root_filesystem = mode;
        let (full, exec_only) = rt.block_on(measure(policy, logs.path(), rounds));
        let (f, e) = (median(full), median(exec_only));
        let m = mode.as_str();
        println!(
            "| {m}: session create + exec `true` + delete | {:.2} | {:.1} |",
            ms(f),
            ms(f) / ms(p)
        );
        println!(
            "| {m}: exec `true` in a live session | {:.2} | {:.1} |",
            ms(e),
            ms(e) / ms(p)
        );
    }
}

/// Medians of the backend probe alone and of a `Sandbox::open` after the first one.
async fn measure_open(logs: &std::path::Path, rounds: usize) -> (Duration, Duration) {
    let mut probes = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        assert!(probe_bubblewrap().await.works);
        probes.push(t.elapsed());
    }
    let policy = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
    Sandbox::open(policy.clone(), logs.to_path_buf()).await.expect("open");
    let mut opens = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        Sandbox::open(policy.clone(), logs.to_path_buf()).await.expect("open");
        opens.push(t.elapsed());
    }
    (median(probes), median(opens))
}

async fn measure(policy: SandboxPolicy, logs: &std::path::Path, rounds: usize) -> (Vec<Duration>, Vec<Duration>) {
    let sb = Sandbox::open(policy, logs.to_path_buf()).await.expect("open");
    let argv = vec!["true".to_string()];
    let mut full = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let s = sb.session(Role::Agent).await.expect("session");
        let o = s.exec(&argv, &ExecOptions::default(), None).await.expect("exec");
        assert_eq!(o.status, 0, "{}", o.stderr_text());
        s.delete().await.expect("delete");
        full.push(t.elapsed());
    }
    let s = sb.session(Role::Agent).await.expect("session");
    let mut exec_only = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let o = s.exec(&argv, &ExecOptions::default(), None).await.expect("exec");
        assert_eq!(o.status, 0);
        exec_only.push(t.elapsed());
    }
    s.delete().await.expect("delete");
    (full, exec_only)
}
