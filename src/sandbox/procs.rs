//! Finding and ending a session's processes on the host.
//!
//! A bubblewrap session's processes are its launchers — `bwrap` processes whose argv binds the
//! session folder — and every descendant of one. Every process of a sandboxed command is such a
//! descendant, a daemonised one too: it cannot leave the command's PID namespace, whose init is
//! the launcher's own child. A host process that merely names the folder (a user's `tail -f
//! /tmp/ghostlab-sandbox-…/x`, an editor) is neither a launcher nor below one, so it is never
//! signalled. `backend: local` children, which have no launcher, carry an environment marker
//! with the session's random id instead.
//!
//! Also: whether any process still works in a folder (`pids_using`), for a local environment
//! that would move its workspace into the run folder.

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Environment variable set on local-backend children so `delete` can find them.
pub(crate) const SESSION_ENV: &str = "GHOSTLAB_SANDBOX_SESSION";
/// The command name of a bubblewrap launcher (and of its namespace-init child).
const LAUNCHER_COMM: &str = "bwrap";

/// The session's processes: its bubblewrap launchers (named `bwrap`, with an argument that is
/// `dir` or lies below it), the local-backend children marked `GHOSTLAB_SANDBOX_SESSION=<id>`,
/// and every descendant of either.
pub(crate) fn session_pids(dir: &Path, session_id: &str) -> Vec<i32> {
    launched_pids(dir, Some(session_id))
}

/// Like [`session_pids`]; without `local_id` no environment is read (a bubblewrap session's
/// watcher, which runs every 100 ms to 5 s, needs only the launchers).
pub(crate) fn launched_pids(dir: &Path, local_id: Option<&str>) -> Vec<i32> {
    let session_id = local_id.unwrap_or("");
    let needle = dir.as_os_str().as_encoded_bytes().to_vec();
    let marker = format!("{SESSION_ENV}={session_id}").into_bytes();
    let Some(others) = other_processes() else {
        return Vec::new();
    };
    let mut roots = Vec::new();
    let mut parent_of: HashMap<i32, i32> = HashMap::new();
    for (pid, e) in others {
        let Some((comm, ppid)) = comm_and_parent(&e.path()) else {
            continue;
        };
        parent_of.insert(pid, ppid);
        let has = |file: &str, want: &[u8]| {
            std::fs::read(e.path().join(file))
                .map(|b| {
                    b.split(|c| *c == 0)
                        .any(|arg| arg == want || arg.starts_with(&[want, b"/"].concat()))
                })
                .unwrap_or(false)
        };
        let launcher = comm == LAUNCHER_COMM && has("cmdline", &needle);
        if launcher || (!session_id.is_empty() && has("environ", &marker)) {
            roots.push(pid);
        }
    }
    with_descendants(roots, &parent_of)
}

/// `roots` and every process below one of them.
fn with_descendants(roots: Vec<i32>, parent_of: &HashMap<i32, i32>) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for (pid, ppid) in parent_of {
        children.entry(*ppid).or_default().push(*pid);
    }
    let mut seen: HashSet<i32> = HashSet::new();
    let mut todo = roots;
    while let Some(pid) = todo.pop() {
        if seen.insert(pid) {
            todo.extend(children.get(&pid).into_iter().flatten().copied());
        }
    }
    let mut out: Vec<i32> = seen.into_iter().collect();
    out.sort_unstable();
    out
}

/// The command name and parent pid of the process at `/proc/<pid>`.
fn comm_and_parent(proc_dir: &Path) -> Option<(String, i32)> {
    let stat = std::fs::read_to_string(proc_dir.join("stat")).ok()?;
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so split at the last `)`.
    let (head, rest) = stat.rsplit_once(')')?;
    let comm = head.split_once('(')?.1.to_string();
    let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
    Some((comm, ppid))
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
pub(crate) fn kill_session(dir: &Path, session_id: &str) -> usize {
    let pids = session_pids(dir, session_id);
    for pid in &pids {
        // SAFETY: kill(2) on a pid found as a launcher of this session or below one.
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
pub(crate) fn pids_using(root: &Path) -> Option<Vec<i32>> {
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
    use std::os::unix::process::CommandExt;

    fn wait_for(pid: u32, what: &str) {
        let t0 = std::time::Instant::now();
        while !std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.windows(what.len()).any(|w| w == what.as_bytes()))
        {
            assert!(
                t0.elapsed() < std::time::Duration::from_secs(10),
                "{pid} never ran {what}"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    #[test]
    fn a_launcher_and_its_descendants_are_the_session_and_a_host_process_naming_the_folder_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let session = tmp.path().join("ghostlab-sandbox-agent-0000abcd-x");
        std::fs::create_dir_all(session.join("workspace")).unwrap();
        // A stand-in launcher: a shell started under the name `bwrap` (its command name), with the
        // session folder among its arguments, and a child that does not name the folder.
        let fake_bwrap = tmp.path().join(LAUNCHER_COMM);
        std::os::unix::fs::symlink("/bin/sh", &fake_bwrap).unwrap();
        let mut launcher = std::process::Command::new(&fake_bwrap)
            .args(["-c", "sleep 4711; true", "sh"])
            .arg(session.join("workspace"))
            .spawn()
            .unwrap();
        // Host processes that name the folder: `tail -f` on a file in it, a program given the
        // folder itself, one holding the session's path in its environment.
        std::fs::write(session.join("owner.pid"), "1 1").unwrap();
        let mut tail = std::process::Command::new("tail")
            .args(["-f"])
            .arg(session.join("owner.pid"))
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Its own process group, so the cleanup below ends its `sleep` too.
        let mut named = std::process::Command::new("sh")
            .args(["-c", "sleep 4712; true", "sh"])
            .arg(&session)
            .process_group(0)
            .spawn()
            .unwrap();
        let mut env_named = std::process::Command::new("sleep")
            .arg("4713")
            .env("EDITOR_FILE", session.join("workspace"))
            .spawn()
            .unwrap();
        wait_for(launcher.id(), "4711");
        let found = {
            // The launcher's child `sleep` appears a moment after the shell starts.
            let t0 = std::time::Instant::now();
            loop {
                let f = session_pids(&session, "agent-0000abcd");
                if f.len() >= 2 || t0.elapsed() > std::time::Duration::from_secs(10) {
                    break f;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        };
        let killed = kill_session(&session, "agent-0000abcd");
        let launcher_gone = launcher.wait().is_ok();
        let survivors: Vec<bool> = [&mut tail, &mut named, &mut env_named]
            .into_iter()
            .map(|c| c.try_wait().unwrap().is_none())
            .collect();
        // SAFETY: kill(2) on the process group of a child this test started.
        unsafe { libc::kill(-(named.id() as i32), libc::SIGKILL) };
        for c in [&mut tail, &mut named, &mut env_named] {
            let _ = c.kill();
            let _ = c.wait();
        }
        assert!(found.contains(&(launcher.id() as i32)), "{found:?}");
        assert_eq!(found.len(), 2, "the launcher and its sleep, nothing else: {found:?}");
        assert!(killed >= 2 && launcher_gone);
        assert_eq!(
            survivors,
            vec![true, true, true],
            "a host process naming the folder was killed"
        );
    }

    #[test]
    fn a_local_child_is_found_by_its_marker_and_one_of_another_session_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let mut ours = std::process::Command::new("sleep")
            .arg("4714")
            .env(SESSION_ENV, "local-1111aaaa")
            .spawn()
            .unwrap();
        let mut theirs = std::process::Command::new("sleep")
            .arg("4715")
            .env(SESSION_ENV, "local-1111aaaab")
            .spawn()
            .unwrap();
        wait_for(ours.id(), "4714");
        wait_for(theirs.id(), "4715");
        let found = session_pids(tmp.path(), "local-1111aaaa");
        let none = session_pids(tmp.path(), "");
        for c in [&mut ours, &mut theirs] {
            c.kill().unwrap();
            c.wait().unwrap();
        }
        assert_eq!(found, vec![ours.id() as i32]);
        assert!(none.is_empty(), "an empty id marks nothing: {none:?}");
    }

    #[test]
    fn descendants_are_followed_through_every_generation() {
        let parent_of: HashMap<i32, i32> = [(10, 1), (11, 10), (12, 11), (13, 12), (20, 1), (21, 20)].into();
        assert_eq!(with_descendants(vec![11], &parent_of), vec![11, 12, 13]);
        assert_eq!(with_descendants(vec![], &parent_of), Vec::<i32>::new());
    }

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
