//! What runs in the forked child between `fork` and `exec` of the sandbox launcher: resource
//! limits, dropping root to the unprivileged sandbox user, closing every descriptor the
//! launcher was not handed on purpose, and a fresh session keyring.
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
//! - Total disk use is bounded by the session's folders (`super::scratch`), not here.
//! - Tree-wide process and memory caps come from cgroups (`super::cgroup`) when root.
//! - Descriptors: whatever the process that started Ghostlab left open without close-on-exec
//!   (a CI runner's directory fd, `flock 9`, make's jobserver pipe) would pass through bwrap
//!   into the sandbox, and a directory fd leads to the host root through `/proc/self/fd/N/..`.
//!   So every fd above 2 is marked close-on-exec ([`seal_inherited_fds`]) and only
//!   [`ChildSetup::inherit_fds`] is opened again.
//! - Keyrings: the launcher joins a new anonymous session keyring, so the host session's
//!   keys (and any Ghostlab stored there) are neither possessed nor listed in `/proc/keys`.

use std::os::fd::RawFd;
use std::os::unix::fs::MetadataExt;

use super::cgroup::CgroupSet;
use super::policy::Limits;

/// The host uid/gid sandboxed processes run as when Ghostlab itself runs as root (`nobody`).
pub(crate) const SANDBOX_UID: u32 = 65534;
/// See [`SANDBOX_UID`].
pub(crate) const SANDBOX_GID: u32 = 65534;
/// bwrap's own processes (monitor and namespace init) also count against RLIMIT_NPROC.
const LAUNCHER_PROCESSES: u64 = 3;

/// Everything the child applies before exec.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChildSetup {
    /// (resource, soft = hard limit).
    pub(crate) rlimits: Vec<(libc::__rlimit_resource_t, u64)>,
    /// Descriptors whose close-on-exec flag is cleared so the launcher inherits them.
    pub(crate) inherit_fds: Vec<RawFd>,
    /// Switch to this (uid, gid) with no supplementary groups.
    pub(crate) drop_to: Option<(u32, u32)>,
    /// `cgroup.procs` files the launcher joins (writing `0`) while still root.
    pub(crate) cgroup_procs: Vec<std::ffi::CString>,
    /// Descriptors kept open until the command is spawned (they live as long as the hook).
    pub(crate) held: Vec<std::sync::Arc<std::os::fd::OwnedFd>>,
}

/// The uid sandboxed processes run as: [`SANDBOX_UID`] for root, the caller otherwise.
pub(crate) fn sandbox_uid() -> (u32, u32, bool) {
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
pub(crate) fn processes_of(uid: u32) -> u64 {
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
    pub(crate) fn for_limits(limits: &Limits, drop_privileges: bool) -> Self {
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
    pub(crate) fn join_cgroups(&mut self, cg: &CgroupSet) {
        self.cgroup_procs = cg.procs_files();
        if cg.caps_processes() {
            self.rlimits.retain(|(r, _)| *r != libc::RLIMIT_NPROC);
        }
        if cg.caps_memory() {
            self.rlimits.retain(|(r, _)| *r != libc::RLIMIT_DATA);
        }
    }

    /// Registers the setup as the command's `pre_exec` hook.
    pub(crate) fn install(self, cmd: &mut tokio::process::Command) {
        // SAFETY: the closure only calls async-signal-safe libc functions on data prepared
        // before fork, and allocates nothing.
        unsafe {
            cmd.pre_exec(move || self.apply_in_child());
        }
    }

    fn apply_in_child(&self) -> std::io::Result<()> {
        let last = std::io::Error::last_os_error;
        seal_inherited_fds()?;
        for fd in &self.inherit_fds {
            // SAFETY: fcntl on an fd number we own; failure is reported.
            if unsafe { libc::fcntl(*fd, libc::F_SETFD, 0) } != 0 {
                return Err(last());
            }
            // The offset is shared with every spawn of the same prepared command: rewind so
            // a second spawn hands bwrap the whole filter again.
            // SAFETY: lseek on an fd we own. A socket cannot seek (ESPIPE) and needs no rewind.
            if unsafe { libc::lseek(*fd, 0, libc::SEEK_SET) } < 0
                && unsafe { *libc::__errno_location() } != libc::ESPIPE
            {
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
        join_fresh_session_keyring()?;
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

/// Marks every descriptor above stderr close-on-exec, so nothing the parent process inherited
/// reaches the launcher; the caller then re-opens exactly the descriptors it passes on purpose.
/// Close-on-exec rather than close: the standard library's own exec-error pipe must stay open
/// until exec. Async-signal-safe (raw syscalls only).
pub(crate) fn seal_inherited_fds() -> std::io::Result<()> {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range(2) with flags only changes descriptor flags of this process.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            CLOSE_RANGE_CLOEXEC,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    if !matches!(err.raw_os_error(), Some(libc::ENOSYS) | Some(libc::EINVAL)) {
        return Err(err);
    }
    // Kernels before 5.11: walk every number a descriptor can have.
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit with a valid struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let top = lim.rlim_cur.max(lim.rlim_max).min(1 << 20) as i32;
    for fd in 3..top {
        // SAFETY: fcntl on a number that may not be open; EBADF is expected and ignored.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok(())
}

/// Replaces the inherited session keyring with a new anonymous one. Only a kernel without
/// keyrings (ENOSYS) is tolerated: there is then nothing to inherit.
pub(crate) fn join_fresh_session_keyring() -> std::io::Result<()> {
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    // SAFETY: keyctl(2) with a NULL name creates and joins an anonymous session keyring.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_JOIN_SESSION_KEYRING,
            std::ptr::null::<libc::c_char>(),
        )
    };
    if rc < 0 {
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::ENOSYS) {
            return Err(err);
        }
    }
    Ok(())
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

    /// A descriptor opened without close-on-exec by the process that starts the launcher, and
    /// the one passed on purpose, as the launched program sees them.
    fn fds_seen_by_child(setup: ChildSetup) -> (String, i32, i32) {
        // SAFETY: open(2) without O_CLOEXEC, as a CI wrapper's leftover would be; moved to a
        // number no other test of this binary uses, so the check cannot see someone else's fd.
        let stray = unsafe {
            let fd = libc::open(c"/".as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY);
            assert!(fd > 2);
            let high = libc::dup2(fd, 917);
            libc::close(fd);
            high
        };
        assert_eq!(stray, 917);
        let passed = crate::sandbox::seccomp::memfd_with(b"x").unwrap();
        use std::os::fd::AsRawFd;
        let passed_fd = passed.as_raw_fd();
        let mut setup = setup;
        setup.inherit_fds.push(passed_fd);
        // No pipe in the script: the shell's own pipe ends would show up in its fd list.
        let mut cmd = tokio::process::Command::new("sh");
        cmd.args(["-c", "for f in /proc/$$/fd/*; do echo ${f##*/}; done"]);
        setup.install(&mut cmd);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let out = rt.block_on(async move { cmd.output().await }).unwrap();
        // SAFETY: closing the descriptor opened above.
        unsafe { libc::close(stray) };
        (String::from_utf8_lossy(&out.stdout).into_owned(), stray, passed_fd)
    }

    #[test]
    fn only_descriptors_passed_on_purpose_reach_the_launcher() {
        let (seen, stray, passed) = fds_seen_by_child(ChildSetup::default());
        let seen: Vec<&str> = seen.split_whitespace().collect();
        assert!(
            !seen.contains(&stray.to_string().as_str()),
            "stray fd {stray} inherited: {seen:?}"
        );
        assert!(
            seen.contains(&passed.to_string().as_str()),
            "passed fd {passed} missing: {seen:?}"
        );
    }

    #[test]
    fn the_launcher_gets_a_session_keyring_of_its_own() {
        let name = std::ffi::CString::new(format!("ghostlab-unit-{:08x}", rand::random::<u32>())).unwrap();
        // Whether the launched program still holds the "host session": a named keyring the
        // parent joined. The check runs in the child after the setup, and fails the spawn.
        let still_possessed = |apply: bool| {
            let name = name.clone();
            let setup = ChildSetup::default();
            let mut cmd = std::process::Command::new("true");
            use std::os::unix::process::CommandExt;
            // SAFETY: raw syscalls on data prepared before fork; no allocation.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::syscall(libc::SYS_keyctl, 1 as libc::c_long, name.as_ptr()) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    if apply {
                        setup.apply_in_child()?;
                    }
                    let mut buf = [0u8; 256];
                    // KEYCTL_DESCRIBE of KEY_SPEC_SESSION_KEYRING: "type;uid;gid;perm;description".
                    let n = libc::syscall(
                        libc::SYS_keyctl,
                        6 as libc::c_long,
                        -3 as libc::c_long,
                        buf.as_mut_ptr(),
                        buf.len(),
                    );
                    let held = n > 0 && buf.windows(name.as_bytes().len()).any(|w| w == name.as_bytes());
                    if held {
                        Err(std::io::Error::from_raw_os_error(libc::EEXIST))
                    } else {
                        Ok(())
                    }
                });
            }
            cmd.status().is_err()
        };
        assert!(
            still_possessed(false),
            "control: without the setup the parent's session keyring is held"
        );
        assert!(
            !still_possessed(true),
            "the parent's session keyring reached the launcher"
        );
    }
}
