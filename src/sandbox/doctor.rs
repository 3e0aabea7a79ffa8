//! Backend probes for `ghostlab doctor` and for [`super::Sandbox::open`]: does this backend
//! really work here, and if not, why and how to fix it.
//!
//! A probe runs the real thing (bubblewrap: `true` under the full profile; OpenShell:
//! `openshell status` against its gateway). It never reports a backend as working on a guess.

use std::time::Duration;

use super::openshell::{self, GatewayStatus};
use super::policy::{Role, SandboxPolicy};
use super::session::{ExecOptions, Session, SessionConfig};
use crate::spec::SandboxBackend;

/// The outcome of one backend probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// `bubblewrap`, `openshell` or `local`.
    pub(crate) backend: &'static str,
    /// The backend can run sandboxes here.
    pub works: bool,
    /// What was observed.
    pub detail: String,
    /// How to make it work, when known.
    pub(crate) fix: Option<String>,
}

impl Probe {
    /// A working backend.
    pub(crate) fn ok(backend: &'static str, detail: &str) -> Probe {
        Probe {
            backend,
            works: true,
            detail: detail.to_string(),
            fix: None,
        }
    }

    fn fail(backend: &'static str, detail: String, fix: Option<String>) -> Probe {
        Probe {
            backend,
            works: false,
            detail,
            fix,
        }
    }
}

/// The AppArmor switch on Ubuntu 23.10+ that stops unprivileged user namespaces.
pub(crate) const APPARMOR_SYSCTL: &str = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns";

/// A hint for known kernel settings that stop bwrap, given its stderr.
pub(crate) fn userns_fix(stderr: &str) -> Option<String> {
    let read = |p: &str| std::fs::read_to_string(p).map(|s| s.trim().to_string()).ok();
    if read(APPARMOR_SYSCTL).as_deref() == Some("1") || stderr.contains("setting up uid map: Permission denied") {
        return Some(
            "Ubuntu's AppArmor blocks unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1). \
             Fix: `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (persist it in /etc/sysctl.d/), \
             or install an AppArmor profile for /usr/bin/bwrap that allows `userns`."
                .into(),
        );
    }
    if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        return Some("user namespaces are disabled: `sudo sysctl -w kernel.unprivileged_userns_clone=1`".into());
    }
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return Some("user namespaces are disabled: `sudo sysctl -w user.max_user_namespaces=15000`".into());
    }
    None
}

/// Runs `true` in a session with the full bubblewrap profile.
pub async fn probe_bubblewrap() -> Probe {
    let name = "bubblewrap";
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("bwrap").is_file()))
        .unwrap_or(false);
    if !on_path {
        return Probe::fail(
            name,
            "`bwrap` is not installed".into(),
            Some("apt-get install bubblewrap".into()),
        );
    }
    let Ok(logs) = tempfile::tempdir() else {
        return Probe::fail(name, "cannot create a temporary folder".into(), None);
    };
    let mut policy = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
    policy.limits.wall_timeout = Duration::from_secs(20);
    let cfg = SessionConfig {
        log_dir: logs.path().to_path_buf(),
        bridge_exe: super::reaper::helper_exe(),
        openshell_bin: None,
    };
    let session = match Session::create(policy, Role::Agent, cfg).await {
        Ok(s) => s,
        Err(e) => return Probe::fail(name, e.to_string(), None),
    };
    let out = session.exec(&["true".to_string()], &ExecOptions::default(), None).await;
    let blind = session.watch_fault();
    let _ = session.delete().await;
    match out {
        // Every program start is read by the watch: a blind watch makes every case INFRA_ERROR.
        Ok(o) if o.status == 0 && blind.is_some() => Probe::fail(
            name,
            format!("the sandbox's watch cannot see its processes: {}", blind.unwrap_or_default()),
            Some("allow this user to read its own descendants' memory (kernel.yama.ptrace_scope ≤ 1, no LSM rule against it)".into()),
        ),
        Ok(o) if o.status == 0 => Probe::ok(
            name,
            "ran `true` with namespaces, seccomp, cap-drop, limits and the watch",
        ),
        Ok(o) => {
            let stderr = o.stderr_text();
            Probe::fail(
                name,
                format!("bwrap exited {}: {}", o.status, stderr.trim()),
                userns_fix(&stderr),
            )
        }
        Err(e) => Probe::fail(name, e.to_string(), None),
    }
}

/// Checks that the `openshell` CLI exists and `openshell status` reaches a gateway.
pub(crate) async fn probe_openshell() -> Probe {
    let name = "openshell";
    let Some(bin) = openshell::locate() else {
        return Probe::fail(
            name,
            "the `openshell` CLI is not on PATH".into(),
            Some(format!(
                "install OpenShell {} and start its gateway, or set {}",
                openshell::PINNED_VERSION,
                openshell::BIN_ENV
            )),
        );
    };
    let mut cmd = tokio::process::Command::new(&bin);
    cmd.args(openshell::status_args());
    match super::exec::run(cmd, None, Duration::from_secs(15)).await {
        Ok(o) => match openshell::parse_status(o.status == 0 && !o.timed_out, &o.stdout_text(), &o.stderr_text()) {
            GatewayStatus::Reachable(d) => Probe::ok(name, &format!("gateway reachable: {d}")),
            GatewayStatus::Unreachable(d) => Probe::fail(
                name,
                format!("`{} status` reaches no gateway: {d}", bin.display()),
                Some("start the OpenShell gateway (openshell-gateway) with a compute driver".into()),
            ),
        },
        Err(e) => Probe::fail(name, format!("cannot run {}: {e}", bin.display()), None),
    }
}

/// Sandbox sessions and cgroups left behind by a Ghostlab process that is gone (a SIGKILL,
/// a crash); the next sandboxed run removes them.
pub(crate) fn leftover_sessions() -> String {
    let items = super::session_sweep::sweep(true);
    if items.is_empty() {
        return "leftovers: none (no stale sandbox sessions or cgroups)".into();
    }
    let mut s = format!(
        "leftovers: {} item(s) from Ghostlab processes that are gone; the next sandboxed run removes them:",
        items.len()
    );
    for i in items {
        s.push_str(
            "
  ",
        );
        s.push_str(&i);
    }
    s
}

/// Whether per-session cgroups (tree-wide process and memory caps) can be used here.
pub(crate) fn probe_cgroups() -> String {
    let limits = super::policy::Limits {
        memory_bytes: Some(64 << 20),
        ..super::policy::Limits::default()
    };
    let name = format!("ghostlab-doctor-{:08x}", rand::random::<u32>());
    let (set, notes) = super::cgroup::CgroupSet::create(&name, &limits);
    let tree_wide = set.is_some();
    if let Some(s) = set {
        let _ = s.remove();
    }
    let head = if tree_wide {
        "tree-wide limits: cgroups writable"
    } else {
        "tree-wide limits: unavailable, per-process rlimits only"
    };
    let detail: Vec<String> = notes
        .iter()
        .filter(|n| n.contains("no ") || n.contains("not root"))
        .cloned()
        .collect();
    if detail.is_empty() {
        head.to_string()
    } else {
        format!("{head} ({})", detail.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_map_denial_points_at_the_apparmor_fix() {
        let fix = userns_fix("bwrap: setting up uid map: Permission denied").unwrap();
        assert!(fix.contains("kernel.apparmor_restrict_unprivileged_userns=0"), "{fix}");
        assert!(fix.contains("AppArmor profile"), "{fix}");
    }
}
