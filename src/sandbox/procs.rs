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
    let me = std::process::id() as i32;
    let needle = needle.as_os_str().as_encoded_bytes().to_vec();
    let marker = format!("{SESSION_ENV}={session_id}").into_bytes();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in dir.filter_map(Result::ok) {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
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
/// write there. Processes this user cannot inspect are not seen.
pub fn pids_using(root: &Path) -> Vec<i32> {
    let me = std::process::id() as i32;
    let under = |link: &Path| std::fs::read_link(link).is_ok_and(|t| t.starts_with(root));
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in dir.filter_map(Result::ok) {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        let fds = std::fs::read_dir(e.path().join("fd"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok);
        if under(&e.path().join("cwd")) || fds.into_iter().any(|fd| under(&fd.path())) {
            out.push(pid);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_working_in_a_folder_is_seen_and_one_elsewhere_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let (busy, idle) = (tmp.path().join("busy"), tmp.path().join("idle"));
        std::fs::create_dir_all(&busy).unwrap();
        std::fs::create_dir_all(&idle).unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .current_dir(&busy)
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        let seen = pids_using(&busy);
        let not_seen = pids_using(&idle);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(seen.contains(&pid), "{seen:?}");
        assert!(!not_seen.contains(&pid));
    }
}
