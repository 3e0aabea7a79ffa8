//! The job's limits hold in the agent session (processes, file size, memory, CPU, wall clock),
//! and a deleted session leaves no process running on the host.

use std::time::{Duration, Instant};

use ghostlab::sandbox::{ExecOptions, Role, Sandbox};

use super::super::{Row, host_has_process_with_arg, row, sh, short, summary};
use super::{AgentCtx, Check};

pub const PROBES: &[(&str, Check)] = &[
    ("fork bomb stays within the process limit", |c, n| {
        Box::pin(fork_bomb(c, n))
    }),
    ("disk fill stays within the file-size limit", |c, n| {
        Box::pin(disk_fill(c, n))
    }),
    ("memory hog stays within the memory limit", |c, n| {
        Box::pin(memory_hog(c, n))
    }),
    ("CPU burn stopped by the CPU limit", |c, n| Box::pin(cpu_burn(c, n))),
    ("wall-clock timeout kills the whole tree", |c, n| {
        Box::pin(wall_clock(c, n))
    }),
];

async fn fork_bomb(c: &AgentCtx, name: &'static str) -> Row {
    let o = c
        .run("n=0; for i in $(seq 1 200); do sleep 2 & n=$((n+1)); done; echo started=$n")
        .await;
    let all = format!("{}{}", o.stdout_text(), o.stderr_text());
    let hit = all.contains("fork") || all.contains("Resource temporarily unavailable");
    row(
        name,
        "denied",
        short(&format!("{}; limit {:?}", summary(&o), o.limit_hit)),
        hit && !all.contains("started=200"),
    )
}

async fn disk_fill(c: &AgentCtx, name: &'static str) -> Row {
    let o = c.run("head -c 8M /dev/zero > big").await;
    let size = std::fs::metadata(c.session.workspace_dir().join("big"))
        .map(|m| m.len())
        .unwrap_or(0);
    row(
        name,
        "denied",
        format!("file {} bytes, limit {:?}", size, o.limit_hit),
        size <= 1 << 20 && o.limit_hit.is_some(),
    )
}

async fn memory_hog(c: &AgentCtx, name: &'static str) -> Row {
    let o = c
        .run(r#"perl -e '$x = "a" x (400 * 1024 * 1024); print "allocated\n"'"#)
        .await;
    row(
        name,
        "denied",
        short(&format!("{}; limit {:?}", summary(&o), o.limit_hit)),
        !o.stdout_text().contains("allocated"),
    )
}

/// The run's CPU budget (2 s) is below its wall-clock limit, so the CPU limit is what stops it.
async fn cpu_burn(c: &AgentCtx, name: &'static str) -> Row {
    let o = c.run("while :; do :; done").await;
    row(
        name,
        "denied",
        format!("exit {}, limit {:?}", o.status, o.limit_hit),
        o.limit_hit == Some("cpu time (RLIMIT_CPU)"),
    )
}

async fn wall_clock(c: &AgentCtx, name: &'static str) -> Row {
    let topts = ExecOptions {
        timeout: Some(Duration::from_secs(1)),
        ..ExecOptions::default()
    };
    let t0 = Instant::now();
    let o = c
        .session
        .exec(&sh("sleep 2718 & sleep 2718"), &topts, None)
        .await
        .unwrap();
    let took = t0.elapsed();
    std::thread::sleep(Duration::from_millis(200));
    let left = host_has_process_with_arg("2718");
    row(
        name,
        "denied",
        format!(
            "timed_out {} after {:.1}s; leftovers: {left}",
            o.timed_out,
            took.as_secs_f64()
        ),
        o.timed_out && took < Duration::from_secs(5) && !left,
    )
}

pub const LEFTOVERS_AFTER_DELETE: &str = "processes left running are gone after delete";

/// A process left running in a (judge) session is gone, and so is its folder, once the
/// session is deleted.
pub async fn leftovers_after_delete(sandbox: &Sandbox) -> Row {
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
    row(
        LEFTOVERS_AFTER_DELETE,
        "denied",
        format!(
            "running before delete: {before}; after: {after}; dir removed: {}",
            !s3_dir.exists()
        ),
        before && !after && !s3_dir.exists(),
    )
}
