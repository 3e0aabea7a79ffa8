//! Finding and ending a session's processes on the host, by the session marker they carry
//! (bubblewrap launchers: the session folder in their argv; local children: an env marker).
//!
//! It only ever signals processes that carry this session's marker.
//!
//! Also: whether any process still works in a folder (`pids_using`), for a local environment
//! that would move its workspace into the run folder.

use std::path::Path;

/// Environment variable set on local-backend children so `delete` can find them.
pub const SESSION_ENV: &str = "GHOSTLAB_SANDBOX_SESSION";

/// Pids whose argv contains `needle` as a whole argument or whose environment has
/// `GHOSTLAB_SANDBOX_SESSION=<session_id>`.
pub fn session_pids(needle: &Path, session_id: &str) -> Vec<i32> {
    let needle = needle.as_os_str().as_encoded_bytes().to_vec();
    let marker = format!("{SESSION_ENV}={session_id}").into_bytes();
    let Some(others) = other_processes() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (pid, e) in others {
        let hit = |file: &str, want: &[u8]| {
            std::fs::read(e.path().join(file))
                .map(|b| {
                    b.split(|c| *c == 0)
                        .any(|arg| arg == want || arg.starts_with(&[want, b"/"].concat()))
                })
                .unwrap_or(false)
        };
        if hit("cmdline", &needle) || hit("environ", &marker) {
            out.push(pid);
        }
    }
    out
}

/// Every process but this one, as its pid and `/proc/<pid>` entry; `None` without `/proc`.
fn other_processes() -> Option<impl Iterator<Item = (i32, std::fs::DirEntry)>> {
    let me = std::process::id() as i32;
    let dir = std::fs::read_dir("/proc").ok()?;
    Some(dir.filter_map(Result::ok).filter_map(move |e| {
        let pid = e.file_name().to_string_lossy().parse::<i32>().ok()?;
        (pid != me).then_some((pid, e))
    }))
}

/// SIGKILLs every process of the session; returns how many were signalled.
pub fn kill_session(needle: &Path, session_id: &str) -> usize {
    let pids = session_pids(needle, session_id);
    for pid in &pids {
        // SAFETY: kill(2) on a pid we found carrying this session's marker.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
    pids.len()
}

/// Pids (other than this one) whose working folder or an open file lies under `root`: a
/// process the agent left running (a dev server, escaped from its process group) that may still
/// write there. `None` when that cannot be told (no readable `/proc`). A process whose links
/// cannot be read is not seen: another user's (which cannot enter a folder only this user may),
/// or one that made itself non-dumpable — an agent set on hiding is beyond what `backend:
/// local`, unisolated by choice, can hold anyway; a container's init is one too.
pub fn pids_using(root: &Path) -> Option<Vec<i32>> {
    // The kernel shows resolved paths: a root reached through a symlink (TMPDIR) must be too.
    let root = std::fs::canonicalize(root).ok()?;
    let mut out = Vec::new();
    for (pid, e) in other_processes()? {
        let links = std::iter::once(e.path().join("cwd")).chain(
            std::fs::read_dir(e.path().join("fd"))
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|fd| fd.path()),
        );
        if links
            .into_iter()
            .any(|l| std::fs::read_link(l).is_ok_and(|t| t.starts_with(&root)))
        {
            out.push(pid);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_working_in_or_holding_a_file_of_a_folder_is_seen_and_one_elsewhere_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let (busy, idle) = (tmp.path().join("busy"), tmp.path().join("idle"));
        std::fs::create_dir_all(&busy).unwrap();
        std::fs::create_dir_all(&idle).unwrap();
        // One works there; the other works in `/` but holds a file there open.
        let mut in_it = std::process::Command::new("sleep")
            .arg("30")
            .current_dir(&busy)
            .spawn()
            .unwrap();
        let log = busy.join("log");
        let mut holding = std::process::Command::new("sh")
            .args(["-c", &format!("exec 3>>'{}'; sleep 30", log.display())])
            .current_dir("/")
            .spawn()
            .unwrap();
        let waited = std::time::Instant::now();
        while !log.exists() && waited.elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        // Reached through a symlink, as a TMPDIR may be.
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&busy, &link).unwrap();
        let seen = pids_using(&link).unwrap();
        let not_seen = pids_using(&idle).unwrap();
        for child in [&mut in_it, &mut holding] {
            child.kill().unwrap();
            child.wait().unwrap();
        }
        assert!(seen.contains(&(in_it.id() as i32)), "{seen:?}");
        assert!(seen.contains(&(holding.id() as i32)), "an open file: {seen:?}");
        assert!(!not_seen.contains(&(in_it.id() as i32)));
    }
}
