//! Tree-wide limits through cgroups when Ghostlab runs as root: one cgroup per session for
//! processes (`pids.max`) and memory (`memory.limit_in_bytes` / `memory.max`), joined by the
//! launcher before it drops privileges, removed on delete.
//!
//! Where cgroups are not writable (non-root, read-only cgroupfs) the session says so in its
//! log and only the per-process rlimits apply; this never widens what a sandbox may do.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::policy::Limits;

const ROOT: &str = "/sys/fs/cgroup";

/// Cgroups that still held processes when removed: left in place (their limits stay on what
/// still runs there; the stale-session sweep removes them later).
#[derive(Debug, thiserror::Error)]
#[error(
    "cgroup(s) {} still held processes after {after:?}; left in place",
    left.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
)]
pub(crate) struct CgroupsLeft {
    pub(crate) left: Vec<PathBuf>,
    pub(crate) after: Duration,
}

/// The cgroups of one session.
#[derive(Debug)]
pub(crate) struct CgroupSet {
    pids: Option<PathBuf>,
    memory: Option<PathBuf>,
    v2: bool,
}

impl CgroupSet {
    /// Creates the session's cgroups for `limits`; returns them (if any) and log notes.
    pub(crate) fn create(name: &str, limits: &Limits) -> (Option<CgroupSet>, Vec<String>) {
        let mut notes = Vec::new();
        // SAFETY: trivial getter.
        if unsafe { libc::geteuid() } != 0 {
            notes.push("cgroups: not root; process and memory limits are per-process rlimits only".into());
            return (None, notes);
        }
        let v2 = Path::new(ROOT).join("cgroup.controllers").is_file();
        let dir_for = |controller: &str| {
            if v2 {
                Path::new(ROOT).join(name)
            } else {
                Path::new(ROOT).join(controller).join(name)
            }
        };
        let mut set = CgroupSet {
            pids: None,
            memory: None,
            v2,
        };
        if let Some(p) = limits.processes {
            let dir = dir_for("pids");
            match make(&dir, "pids.max", &(u64::from(p) + 3).to_string()) {
                Ok(()) => {
                    notes.push(format!(
                        "cgroups: {} pids.max={} (whole tree)",
                        dir.display(),
                        u64::from(p) + 3
                    ));
                    set.pids = Some(dir);
                }
                Err(e) => notes.push(format!("cgroups: no pids cgroup ({e}); RLIMIT_NPROC only")),
            }
        }
        if let Some(m) = limits.memory_bytes {
            let dir = dir_for("memory");
            let file = if v2 { "memory.max" } else { "memory.limit_in_bytes" };
            match make(&dir, file, &m.to_string()) {
                Ok(()) => {
                    notes.push(format!("cgroups: {} {file}={m} (whole tree)", dir.display()));
                    notes.extend(cap_swap(&dir, v2, m));
                    set.memory = Some(dir);
                }
                Err(e) => notes.push(format!("cgroups: no memory cgroup ({e}); RLIMIT_DATA only")),
            }
        }
        if set.pids.is_none() && set.memory.is_none() {
            let _ = set.remove();
            return (None, notes);
        }
        (Some(set), notes)
    }

    /// The `cgroup.procs` files the launcher writes `0` to (joining itself) before exec.
    pub(crate) fn procs_files(&self) -> Vec<CString> {
        let mut dirs: Vec<&PathBuf> = self.pids.iter().chain(self.memory.iter()).collect();
        dirs.dedup();
        dirs.iter()
            .filter_map(|d| CString::new(d.join("cgroup.procs").as_os_str().as_encoded_bytes()).ok())
            .collect()
    }

    /// Whether this set caps the tree's processes (`pids.max`).
    pub(crate) fn caps_processes(&self) -> bool {
        self.pids.is_some()
    }

    /// Whether this set caps the tree's memory (`memory.max` / `memory.limit_in_bytes`).
    pub(crate) fn caps_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// How often the tree hit the process limit so far.
    pub(crate) fn pids_max_hits(&self) -> u64 {
        let Some(d) = &self.pids else { return 0 };
        read_counter(&d.join("pids.events"), "max")
    }

    /// How often the memory cap killed a process of the tree so far. The OOM kill is the hit:
    /// usage touching the cap and page cache being reclaimed (`memory.events` `max`,
    /// `memory.failcnt`, which with swap capped counts in `memory.memsw.failcnt` instead) is
    /// routine and not a failure of the command.
    pub(crate) fn memory_hits(&self) -> u64 {
        let Some(d) = &self.memory else { return 0 };
        let file = if self.v2 { "memory.events" } else { "memory.oom_control" };
        read_counter(&d.join(file), "oom_kill")
    }

    /// Removes the cgroups once the killed processes have left them: polls `cgroup.procs`
    /// (1 ms, doubling to 16 ms) for at most [`EMPTY_TIMEOUT`]. A cgroup still busy then is
    /// left in place and named in the error (fail closed: its limits stay on whatever is
    /// still running; the stale-session sweep removes it later).
    pub(crate) fn remove(&self) -> Result<(), CgroupsLeft> {
        let mut dirs: Vec<&PathBuf> = self.pids.iter().chain(self.memory.iter()).collect();
        dirs.dedup();
        let mut left = Vec::new();
        for d in dirs {
            if !remove_when_empty(d, EMPTY_TIMEOUT) {
                left.push(d.clone());
            }
        }
        if left.is_empty() {
            Ok(())
        } else {
            Err(CgroupsLeft {
                left,
                after: EMPTY_TIMEOUT,
            })
        }
    }
}

/// How long removal waits for a killed tree to leave its cgroup.
pub(crate) const EMPTY_TIMEOUT: Duration = Duration::from_secs(2);

/// Removes `dir` as soon as it holds no process; false when it still does after `timeout`.
fn remove_when_empty(dir: &Path, timeout: Duration) -> bool {
    let start = std::time::Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        let empty = std::fs::read_to_string(dir.join("cgroup.procs"))
            .map(|t| t.trim().is_empty())
            .unwrap_or(true);
        if empty && (std::fs::remove_dir(dir).is_ok() || !dir.exists()) {
            return true;
        }
        if !dir.exists() {
            return true;
        }
        if start.elapsed() >= timeout {
            return false;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(16));
    }
}

fn make(dir: &Path, file: &str, value: &str) -> std::io::Result<()> {
    std::fs::create_dir(dir)?;
    // cgroupfs files are kernel interfaces, not data files: a plain write is the only way.
    if let Err(e) = std::fs::write(dir.join(file), value) {
        let _ = std::fs::remove_dir(dir);
        return Err(e);
    }
    Ok(())
}

fn read_counter(file: &Path, key: &str) -> u64 {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| match l.split_once(' ') {
                Some((k, v)) if k == key => v.trim().parse().ok(),
                _ => None,
            })
        })
        .unwrap_or(0)
}

/// Keeps the memory cap from being dodged through swap: no swap at all on v2
/// (`memory.swap.max`), memory plus swap at the same cap on v1 (`memory.memsw.limit_in_bytes`,
/// present only when the kernel accounts swap). Machines without swap have neither file.
fn cap_swap(dir: &Path, v2: bool, bytes: u64) -> Option<String> {
    let (file, value) = if v2 {
        ("memory.swap.max", "0".to_string())
    } else {
        ("memory.memsw.limit_in_bytes", bytes.to_string())
    };
    let path = dir.join(file);
    if !path.exists() {
        return None;
    }
    Some(match std::fs::write(&path, &value) {
        Ok(()) => format!("cgroups: {file}={value}"),
        Err(e) => format!("cgroups: swap not capped ({file}: {e})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroups_left_in_place_are_all_named_with_the_wait() {
        let e = CgroupsLeft {
            left: vec![PathBuf::from("/sys/fs/cgroup/a"), PathBuf::from("/sys/fs/cgroup/b")],
            after: Duration::from_secs(2),
        };
        assert_eq!(
            e.to_string(),
            "cgroup(s) /sys/fs/cgroup/a, /sys/fs/cgroup/b still held processes after 2s; left in place"
        );
    }

    #[test]
    fn a_set_with_no_cgroups_removes_nothing_and_succeeds() {
        let empty = CgroupSet {
            pids: None,
            memory: None,
            v2: true,
        };
        assert!(empty.remove().is_ok());
    }
}
