//! Cleanup after a SIGKILL without waiting for the next Ghostlab start: the first sandbox a
//! process opens starts a small reaper (`ghostlab __sandbox-reaper --owner PID --stamp T`) in a
//! session of its own, with no terminal and no inherited pipes. It waits on a pidfd for its
//! owner to end, however it ends, then removes the sessions whose owner is gone (processes,
//! HOME/TMPDIR/workspace tmpfs mounts, cgroups, folder) exactly as the next start's sweep would,
//! and exits. Kept sessions (`keep: true`) are left, as always.
//!
//! The reaper is a convenience on top of the sweep, not a replacement: if it cannot start (no
//! ghostlab executable, a test harness as the current executable) the next start still sweeps.

use std::path::Path;
use std::process::Stdio;

/// The hidden subcommand that runs the reaper.
pub(crate) const SUBCOMMAND: &str = "__sandbox-reaper";

/// Set by the `ghostlab` binary's `main`: only then is this process's own executable one that
/// knows [`SUBCOMMAND`]. A test harness or a bench opening a sandbox would otherwise start
/// itself again with the reaper's arguments (a bench then reruns its whole workload).
static THIS_BINARY_IS_GHOSTLAB: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Called by the `ghostlab` binary before anything else.
pub fn mark_this_binary_as_ghostlab() {
    THIS_BINARY_IS_GHOSTLAB.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Whether this process is the `ghostlab` binary (see [`mark_this_binary_as_ghostlab`]).
pub(crate) fn this_binary_is_ghostlab() -> bool {
    THIS_BINARY_IS_GHOSTLAB.load(std::sync::atomic::Ordering::SeqCst)
}

/// The ghostlab executable that runs inside the sandbox (network watch, egress bridge, MCP
/// relay connector): this process's own when it is the `ghostlab` binary. A test harness is
/// not; with the `test-hooks` feature it uses the `ghostlab` binary cargo built beside it.
/// `None` makes every bubblewrap command refuse to run (the watch is not optional).
pub(crate) fn helper_exe() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    if this_binary_is_ghostlab() {
        return Some(exe);
    }
    if cfg!(feature = "test-hooks") {
        // target/debug/deps/<harness> → target/debug/ghostlab
        let built = exe.parent()?.parent()?.join("ghostlab");
        return built.is_file().then_some(built);
    }
    None
}

/// Whether `exe` can run the reaper: another executable named explicitly (tests pass the
/// ghostlab binary), or this process's own executable when it is the `ghostlab` binary.
pub(crate) fn can_run(exe: &Path) -> bool {
    let own = std::env::current_exe().ok().is_some_and(|c| c == exe);
    !own || THIS_BINARY_IS_GHOSTLAB.load(std::sync::atomic::Ordering::SeqCst)
}

/// The reaper's process could not be started from `exe`.
#[derive(Debug, thiserror::Error)]
#[error("starting the sandbox reaper {}: {source}", exe.display())]
pub(crate) struct ReaperNotStarted {
    pub(crate) exe: std::path::PathBuf,
    #[source]
    pub(crate) source: std::io::Error,
}

/// Starts the reaper for this process with `exe` (the ghostlab executable); returns why not
/// when it cannot.
pub(crate) fn spawn(exe: &Path) -> Result<(), ReaperNotStarted> {
    let stamp = super::session_sweep::owner_stamp();
    let mut parts = stamp.split_whitespace();
    let (pid, start) = (parts.next().unwrap_or("0"), parts.next().unwrap_or("0"));
    let mut cmd = std::process::Command::new(exe);
    cmd.args([SUBCOMMAND, "--owner", pid, "--stamp", start])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid(2) and fcntl(2) only. A session of its own keeps a terminal's Ctrl-C
    // (sent to the foreground process group) from ending the reaper together with its owner;
    // descriptors this process inherited (a CI runner's pipes) are not held open by it.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            super::limits::seal_inherited_fds()
        });
    }
    // Not waited for: it outlives this process and is then reaped by init.
    cmd.spawn().map(drop).map_err(|source| ReaperNotStarted {
        exe: exe.to_path_buf(),
        source,
    })
}

/// The reaper's body: waits until `owner` (started at `stamp` clock ticks after boot) is
/// gone, then sweeps. Returns the sweep's lines.
pub(crate) fn run(owner: u32, stamp: u64) -> Vec<String> {
    wait_for_exit(owner, stamp);
    super::session_sweep::sweep(false)
}

/// Blocks until `owner` has exited; returns at once when it is already gone or the pid now
/// belongs to another process.
fn wait_for_exit(owner: u32, stamp: u64) {
    // SAFETY: pidfd_open(2) on a pid; the fd is closed below.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, owner as libc::pid_t, 0) } as libc::c_int;
    if pidfd < 0 {
        return;
    }
    // Opened before the check, so a pid reused after this point is not mistaken for the owner.
    if super::session_sweep::start_time_of(owner) == Some(stamp) {
        let mut pfd = libc::pollfd {
            fd: pidfd,
            events: libc::POLLIN,
            revents: 0,
        };
        // A pidfd becomes readable when its process exits; EINTR just polls again.
        // SAFETY: poll(2) on one valid pollfd.
        while unsafe { libc::poll(&mut pfd, 1, -1) } < 0 {}
    }
    // SAFETY: closing the pidfd opened above.
    unsafe { libc::close(pidfd) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_executable_that_cannot_start_names_itself_and_keeps_the_io_error() {
        let exe = Path::new("/nonexistent/ghostlab-reaper-test");
        let err = spawn(exe).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("starting the sandbox reaper /nonexistent/ghostlab-reaper-test: "),
            "{err}"
        );
        assert_eq!(err.source.kind(), std::io::ErrorKind::NotFound);
        assert!(std::error::Error::source(&err).is_some());
    }

    #[test]
    fn waiting_ends_when_the_owner_exits_and_not_before() {
        let mut child = std::process::Command::new("sleep").arg("0.3").spawn().unwrap();
        let pid = child.id();
        let stamp = super::super::session_sweep::start_time_of(pid).unwrap();
        let t0 = std::time::Instant::now();
        let waiter = std::thread::spawn(move || wait_for_exit(pid, stamp));
        // The owner is our child: reap it so its pidfd becomes readable.
        child.wait().unwrap();
        waiter.join().unwrap();
        assert!(
            t0.elapsed() >= std::time::Duration::from_millis(250),
            "returned before the owner ended"
        );
        let t1 = std::time::Instant::now();
        wait_for_exit(pid, stamp.wrapping_add(1));
        assert!(
            t1.elapsed() < std::time::Duration::from_secs(1),
            "a stale stamp must not wait"
        );
    }

    #[test]
    fn a_harness_as_its_own_executable_never_starts_a_reaper_of_itself() {
        // This test binary is a libtest harness: started with the reaper's arguments it would
        // not reap anything. Another executable named explicitly still may.
        let own = std::env::current_exe().unwrap();
        assert!(!can_run(&own), "a test harness would start itself as a reaper");
        assert!(can_run(Path::new("/usr/local/bin/ghostlab")));
    }
}
