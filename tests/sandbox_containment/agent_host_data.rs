//! Host data the agent must neither read nor change: homes, root's files, the shadow file, the
//! user's checkout and its read-only inputs, the host's /tmp, and mounts that would undo that.

use std::path::Path;

use super::super::{Row, row, skipped_row, summary};
use super::{AgentCtx, Check, refused};

pub const PROBES: &[(&str, Check)] = &[
    ("read a canary in a host home (/home)", |c, n| {
        Box::pin(home_canary(c, n))
    }),
    ("read a canary in /root", |c, n| Box::pin(root_canary(c, n))),
    ("list /root/.ssh", |c, n| Box::pin(root_ssh(c, n))),
    ("read /etc/shadow", |c, n| Box::pin(shadow(c, n))),
    ("read a canary in the user's checkout", |c, n| {
        Box::pin(checkout_canary(c, n))
    }),
    ("write into the original workspace", |c, n| {
        Box::pin(original_workspace(c, n))
    }),
    ("write outside the workspace (/usr, /etc, checkout)", |c, n| {
        Box::pin(outside_workspace(c, n))
    }),
    ("append to a read-only input (AGENTS.md)", |c, n| {
        Box::pin(read_only_input(c, n))
    }),
    ("write into the host's /tmp", |c, n| Box::pin(host_tmp(c, n))),
    ("remount a read-only path rw", |c, n| Box::pin(remount_rw(c, n))),
    ("mount a tmpfs", |c, n| {
        Box::pin(refused(c, n, "mount -t tmpfs none /sandbox/tmp"))
    }),
];

async fn home_canary(c: &AgentCtx, name: &'static str) -> Row {
    let Some(home) = &c.planted_home else {
        return skipped_row(name, "cannot create a canary under /home on this host".into());
    };
    let o = c.run(&format!("cat {}/canary.txt", home.display())).await;
    row(name, "denied", summary(&o), !o.stdout_text().contains(&c.secret))
}

async fn root_canary(c: &AgentCtx, name: &'static str) -> Row {
    let rc = c
        .root_canary
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "/root/.x".into());
    let o = c.run(&format!("cat {rc}; ls -A /root")).await;
    row(
        name,
        "denied",
        summary(&o),
        !o.stdout_text().contains(&c.secret) && o.stdout.is_empty(),
    )
}

async fn root_ssh(c: &AgentCtx, name: &'static str) -> Row {
    let o = c.run("ls -la /root/.ssh && cat /root/.ssh/*").await;
    row(name, "denied", summary(&o), o.status != 0 && o.stdout.is_empty())
}

async fn shadow(c: &AgentCtx, name: &'static str) -> Row {
    let o = c.run("cat /etc/shadow").await;
    row(name, "denied", summary(&o), !o.stdout_text().contains("root:"))
}

async fn checkout_canary(c: &AgentCtx, name: &'static str) -> Row {
    let co = c.checkout_path();
    let o = c.run(&format!("cat {co}/secret-canary.txt; ls {co}")).await;
    row(name, "denied", summary(&o), !o.stdout_text().contains(&c.secret))
}

async fn original_workspace(c: &AgentCtx, name: &'static str) -> Row {
    let co = c.checkout_path();
    let o = c
        .run(&format!(
            "echo pwned > {co}/ws/file.txt; echo pwned > {co}/ws/new.txt; echo pwned > file.txt"
        ))
        .await;
    let orig = std::fs::read_to_string(c.checkout.join("ws/file.txt")).unwrap();
    let contained = orig == "original\n" && !c.checkout.join("ws/new.txt").exists();
    row(
        name,
        "denied",
        format!("host file unchanged: {contained}; {}", summary(&o)),
        contained,
    )
}

async fn outside_workspace(c: &AgentCtx, name: &'static str) -> Row {
    let co = c.checkout_path();
    let o = c
        .run(&format!(
            "touch /usr/ghostlab-pwned /etc/ghostlab-pwned {co}/ghostlab-pwned"
        ))
        .await;
    let contained = !Path::new("/usr/ghostlab-pwned").exists()
        && !Path::new("/etc/ghostlab-pwned").exists()
        && !c.checkout.join("ghostlab-pwned").exists();
    row(name, "denied", summary(&o), contained)
}

fn agents_md_unchanged(c: &AgentCtx) -> bool {
    std::fs::read_to_string(c.checkout.join("AGENTS.md")).unwrap() == "You are a probe agent.\n"
}

async fn read_only_input(c: &AgentCtx, name: &'static str) -> Row {
    let o = c.run(&format!("echo pwned >> {}/AGENTS.md", c.checkout_path())).await;
    row(name, "denied", summary(&o), agents_md_unchanged(c) && o.status != 0)
}

async fn host_tmp(c: &AgentCtx, name: &'static str) -> Row {
    let tmp_name = format!("/tmp/ghostlab-pwned-{:08x}", rand::random::<u32>());
    let o = c
        .run(&format!("echo pwned > {tmp_name} && echo wrote-inside-tmpfs"))
        .await;
    row(
        name,
        "denied",
        format!("host file exists: {}; {}", Path::new(&tmp_name).exists(), summary(&o)),
        !Path::new(&tmp_name).exists(),
    )
}

async fn remount_rw(c: &AgentCtx, name: &'static str) -> Row {
    let co = c.checkout_path();
    let o = c
        .run(&format!(
            "mount -o remount,rw /usr; mount -o remount,bind,rw {co}/AGENTS.md && echo x >> {co}/AGENTS.md"
        ))
        .await;
    row(name, "denied", summary(&o), agents_md_unchanged(c) && o.status != 0)
}
