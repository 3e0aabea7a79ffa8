//! What runs in the forked child between `fork` and `exec` of the sandbox launcher: resource
//! limits, dropping root to the unprivileged sandbox user, and un-hiding inherited fds.
//!
//! Only async-signal-safe libc calls happen in the child; everything is computed before fork.
//!
//! What is enforced (and what is not):
//! - RLIMIT_CPU and RLIMIT_FSIZE and RLIMIT_DATA are per process: a tree of N processes may use
//!   N times the memory. RLIMIT_DATA (not RLIMIT_AS) because JavaScript runtimes reserve huge
//!   address ranges they never touch; even so RLIMIT_DATA counts private writable
//!   reservations, which costs JavaScriptCore its JIT, so it is only the fallback: when the
//!   session's memory cgroup exists the launcher drops it ([`ChildSetup::join_cgroups`]).
//! - RLIMIT_NPROC counts every process of the *real uid* on the host, and the kernel skips the
//!   check for host root. So when Ghostlab runs as root the sandbox runs as the unprivileged
//!   uid [`SANDBOX_UID`], and the limit is set to the processes that uid already has plus the
//!   policy's budget. As a normal user the same arithmetic applies to that user's processes.
//! - Total disk use and tmpfs sizes beyond the per-file limit are not bounded.
//! - Tree-wide process and memory caps come from cgroups (`super::cgroup`) when root.

use std::os::fd::RawFd;
use std::os::unix::fs::MetadataExt;

use super::cgroup::CgroupSet;
use super::policy::Limits;

/// The host uid/gid sandboxed processes run as when Ghostlab itself runs as root (`nobody`).
pub const SANDBOX_UID: u32 = 65534;
/// See [`SANDBOX_UID`].
pub const SANDBOX_GID: u32 = 65534;
/// bwrap's own processes (monitor and namespace init) also count against RLIMIT_NPROC.
const LAUNCHER_PROCESSES: u64 = 3;

/// Everything the child applies before exec.
#[derive(Debug, Clone, Default)]
pub struct ChildSetup {
    /// (resource, soft = hard limit).
    pub rlimits: Vec<(libc::__rlimit_resource_t, u64)>,
    /// Descriptors whose close-on-exec flag is cleared so the launcher inherits them.
    pub inherit_fds: Vec<RawFd>,
    /// Switch to this (uid, gid) with no supplementary groups.
    pub drop_to: Option<(u32, u32)>,
    /// `cgroup.procs` files the launcher joins (writing `0`) while still root.
    pub cgroup_procs: Vec<std::ffi::CString>,
    /// Descriptors kept open until the command is spawned (they live as long as the hook).
    pub held: Vec<std::sync::Arc<std::os::fd::OwnedFd>>,
}

/// The uid sandboxed processes run as: [`SANDBOX_UID`] for root, the caller otherwise.
pub fn sandbox_uid() -> (u32, u32, bool) {
    // SAFETY: trivial getters.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    if uid == 0 {
        (SANDBOX_UID, SANDBOX_GID, true)
    } else {
        (uid, gid, false)
    }
}

/// Tasks (processes and their threads) currently owned by `uid` on this host, from /proc:
/// RLIMIT_NPROC counts threads too, so a multi-threaded owner (a tokio runtime) counts fully.
pub fn processes_of(uid: u32) -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else { return 0 };
    dir.filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit()))
        .filter(|e| e.metadata().map(|m| m.uid() == uid).unwrap_or(false))
        .map(|e| {
            std::fs::read_to_string(e.path().join("status"))
                .ok()
                .and_then(|s| {
                    s.lines()
                        .find_map(|l| l.strip_prefix("Threads:"))
                        .and_then(|n| n.trim().parse::<u64>().ok())
                })
                .unwrap_or(1)
        })
        .sum()
}

impl ChildSetup {
    /// The setup for a sandbox launched by this process under `limits`.
    pub fn for_limits(limits: &Limits, drop_privileges: bool) -> Self {
        let (uid, gid, is_root) = sandbox_uid();
        let mut rl = Vec::new();
        if let Some(s) = limits.cpu_seconds {
            rl.push((libc::RLIMIT_CPU, s));
        }
        if let Some(b) = limits.memory_bytes {
            rl.push((libc::RLIMIT_DATA, b));
        }
        if let Some(f) = limits.file_size_bytes {
            rl.push((libc::RLIMIT_FSIZE, f));
        }
        if let Some(p) = limits.processes {
            rl.push((
                libc::RLIMIT_NPROC,
                processes_of(uid) + u64::from(p) + LAUNCHER_PROCESSES,
            ));
        }
        ChildSetup {
            rlimits: rl,
            inherit_fds: Vec::new(),
            drop_to: (drop_privileges && is_root).then_some((uid, gid)),
            held: Vec::new(),
            cgroup_procs: Vec::new(),
        }
    }

    /// Has the launcher join the session's cgroups and drops the rlimits they supersede: a
    /// per-uid RLIMIT_NPROC would be shared with every other sandbox of the same uid, and
    /// RLIMIT_DATA also counts address space reserved and never touched, so JavaScriptCore
    /// (Bun, so OpenCode) cannot reserve its JIT's code region and interprets everything
    /// (turns ran ~3x slower).
    pub fn join_cgroups(&mut self, cg: &CgroupSet) {
        self.cgroup_procs = cg.procs_files();
        if cg.caps_processes() {
            self.rlimits.retain(|(r, _)| *r != libc::RLIMIT_NPROC);
        }
        if cg.caps_memory() {
            self.rlimits.retain(|(r, _)| *r != libc::RLIMIT_DATA);
        }
    }

    /// Registers the setup as the command's `pre_exec` hook.
    pub fn install(self, cmd: &mut tokio::process::Command) {
        // SAFETY: the closure only calls async-signal-safe libc functions on data prepared
        // before fork, and allocates nothing.
        unsafe {
            cmd.pre_exec(move || self.apply_in_child());
        }
    }

    fn apply_in_child(&self) -> std::io::Result<()> {
        let last = std::io::Error::last_os_error;
        for fd in &self.inherit_fds {
            // SAFETY: fcntl on an fd number we own; failure is reported.
            if unsafe { libc::fcntl(*fd, libc::F_SETFD, 0) } != 0 {
                return Err(last());
            }
            // The offset is shared with every spawn of the same prepared command: rewind so
            // a second spawn hands bwrap the whole filter again.
            // SAFETY: lseek on an fd we own.
            if unsafe { libc::lseek(*fd, 0, libc::SEEK_SET) } < 0 {
                return Err(last());
            }
        }
        for file in &self.cgroup_procs {
            // SAFETY: open/write/close on a NUL-terminated path prepared before fork.
            unsafe {
                let fd = libc::open(file.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return Err(last());
                }
                let n = libc::write(fd, b"0".as_ptr().cast(), 1);
                libc::close(fd);
                if n != 1 {
                    return Err(last());
                }
            }
        }
        if let Some((uid, gid)) = self.drop_to {
            // SAFETY: plain credential syscalls; order is groups, gid, then uid.
            unsafe {
                if libc::setgroups(0, std::ptr::null()) != 0 || libc::setgid(gid) != 0 || libc::setuid(uid) != 0 {
                    return Err(last());
                }
            }
        }
        for (res, value) in &self.rlimits {
            // For CPU the hard limit is one second above the soft one: at the soft limit the
            // kernel sends SIGXCPU (recognisable as a CPU limit hit); at the hard one SIGKILL.
            let hard = if *res == libc::RLIMIT_CPU {
                value.saturating_add(1)
            } else {
                *value
            };
            let lim = libc::rlimit {
                rlim_cur: *value,
                rlim_max: hard,
            };
            // SAFETY: setrlimit with a valid struct.
            if unsafe { libc::setrlimit(*res, &lim) } != 0 {
                return Err(last());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_map_to_rlimits() {
        let limits = Limits {
            cpu_seconds: Some(5),
            memory_bytes: Some(1 << 20),
            processes: Some(10),
            file_size_bytes: Some(4096),
            wall_timeout: std::time::Duration::from_secs(1),
            ..Limits::default()
        };
        let s = ChildSetup::for_limits(&limits, true);
        let kinds: Vec<_> = s.rlimits.iter().map(|(r, _)| *r).collect();
        assert_eq!(
            kinds,
            vec![
                libc::RLIMIT_CPU,
                libc::RLIMIT_DATA,
                libc::RLIMIT_FSIZE,
                libc::RLIMIT_NPROC
            ]
        );
        let nproc = s.rlimits[3].1;
        assert!(nproc >= 10 + LAUNCHER_PROCESSES);
    }
}
