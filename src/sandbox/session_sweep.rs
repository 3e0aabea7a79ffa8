//! Cleanup on every exit: live sessions are registered so SIGTERM/SIGINT end them (processes
//! killed, cgroups and folders removed) before the process exits; every session folder holds
//! an `owner.pid` file, so after a SIGKILL the next Ghostlab start removes the sessions whose
//! owner is gone, and `ghostlab doctor` lists any that are left.
//!
//! It only touches folders named `ghostlab-sandbox-*` (and `ghostlab-local-*`, the folders of
//! `backend: local` environments) in the temp folder that carry an owner file whose process is
//! gone, and the cgroups `ghostlab-<that session>`; kept sessions (`keep: true`) are never
//! removed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::procs;

/// Prefix of every session folder in the temp folder.
pub(crate) const DIR_PREFIX: &str = "ghostlab-sandbox-";
/// Prefix of every `backend: local` environment folder in the temp folder. Such a folder has
/// no cgroups or mounts: only the processes still using it and the folder itself.
pub(crate) const LOCAL_PREFIX: &str = "ghostlab-local-";
/// The owner file in a session folder: `<pid> <start time>` of the Ghostlab process.
pub(crate) const OWNER_FILE: &str = "owner.pid";
/// Present in a session folder whose policy says `keep: true`.
pub(crate) const KEEP_FILE: &str = "keep";
const CGROUP_ROOT: &str = "/sys/fs/cgroup";

static LIVE: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());
static STARTED: AtomicBool = AtomicBool::new(false);

/// `<pid> <start time>` of this process.
pub(crate) fn owner_stamp() -> String {
    let pid = std::process::id();
    format!("{pid} {}", start_time(pid).unwrap_or(0))
}

/// The start time (clock ticks since boot) of `pid`, from /proc.
pub(crate) fn start_time_of(pid: u32) -> Option<u64> {
    start_time(pid)
}

/// A process that has exited but is not yet reaped (a zombie) has none: it is gone as an
/// owner, though /proc still lists it.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces, so count after its `)`: then field 3 is
    // the state and field 22 the start time.
    let mut rest = stat.rsplit_once(')')?.1.split_whitespace();
    if matches!(rest.next(), Some("Z") | Some("X")) {
        return None;
    }
    rest.nth(18)?.parse().ok()
}

/// Records a live session so a signal can end it.
pub(crate) fn register(dir: &Path, id: &str) {
    if let Ok(mut live) = LIVE.lock() {
        live.push((dir.to_path_buf(), id.to_string()));
    }
}

/// Forgets a session that was deleted normally.
pub(crate) fn unregister(dir: &Path) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|(d, _)| d != dir);
    }
}

/// Once per process: sweeps stale sessions of dead owners and installs the SIGTERM/SIGINT
/// handler that ends live sessions before exiting (128 + signal, as the default would).
/// `None` after the first call. The caller then starts the reaper (`super::reaper`), which
/// uses this file's sweep: kept out of here so the two files do not import each other.
pub(crate) fn start_once() -> Option<Vec<String>> {
    if STARTED.swap(true, Ordering::SeqCst) {
        return None;
    }
    if let Ok(rt) = tokio::runtime::Handle::try_current() {
        use tokio::signal::unix::{SignalKind, signal};
        // Registered here, before returning, so no signal slips in before the task runs.
        let _guard = rt.enter();
        if let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
            rt.spawn(async move {
                let code = tokio::select! {
                    _ = term.recv() => 128 + libc::SIGTERM,
                    _ = int.recv() => 128 + libc::SIGINT,
                };
                end_live_sessions();
                std::process::exit(code);
            });
        }
    }
    Some(sweep(false))
}

/// Ends every registered session: kills its processes, removes its cgroups and folder.
pub(crate) fn end_live_sessions() {
    let live: Vec<(PathBuf, String)> = LIVE.lock().map(|l| l.clone()).unwrap_or_default();
    for (dir, id) in live {
        remove_session(&dir, &id);
    }
}

fn remove_session(dir: &Path, id: &str) {
    if id.is_empty() {
        remove_local(dir);
        return;
    }
    procs::kill_session(dir, id);
    remove_cgroups(id);
    // HOME, TMPDIR, the workspace, uploads, inputs and the socket folders may be tmpfs mounts
    // of the session (root); a folder with a mount below it cannot be removed. `unmount`
    // detaches only Ghostlab's own scratch tmpfs at exactly that path, never through a link;
    // `remove_dir_all` follows none.
    super::scratch::unmount_subfolders(dir);
    // Removal never crosses into a mount that is not the session's own scratch (a host mount
    // on a planted folder): its files are not the session's to delete. The folder stays (the
    // next sweep and `ghostlab doctor` list it).
    match super::scratch::mounts_below(dir) {
        Some(m) if m.is_empty() => {}
        other => {
            tracing::warn!(
                "session folder {} not removed: mounts below it that are not Ghostlab's ({other:?})",
                dir.display()
            );
            return;
        }
    }
    if !dir.join(KEEP_FILE).exists() {
        // A normal `delete` may be removing the same folder on another thread right now (its
        // command just died); removal races end in ENOENT part-way, so retry until it is gone.
        for _ in 0..20 {
            if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
    }
}

/// A local environment's folder: the processes its agent left running there are stopped
/// (nothing isolates them, so they are found by what they use), then the folder goes.
fn remove_local(dir: &Path) {
    for pid in procs::pids_using(dir).unwrap_or_default() {
        // SAFETY: kill(2) on a pid whose working folder or open file is in this folder.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    for _ in 0..20 {
        if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
}

fn remove_cgroups(id: &str) {
    let name = format!("ghostlab-{id}");
    for base in [
        PathBuf::from(CGROUP_ROOT),
        Path::new(CGROUP_ROOT).join("pids"),
        Path::new(CGROUP_ROOT).join("memory"),
    ] {
        let d = base.join(&name);
        for _ in 0..20 {
            if !d.exists() || std::fs::remove_dir(&d).is_ok() {
                break;
            }
            // Every process in the session's own cgroup is the session's: one a launcher was
            // still starting when its processes were looked for (joined, not yet `bwrap`).
            let procs = std::fs::read_to_string(d.join("cgroup.procs")).unwrap_or_default();
            for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                // SAFETY: kill(2) on a pid listed in this session's own cgroup.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// Session folders whose owner process is gone (and which are not kept), with their ids.
pub(crate) fn stale_sessions() -> Vec<(PathBuf, String)> {
    stale_sessions_in(&std::env::temp_dir())
}

fn stale_sessions_in(temp: &std::path::Path) -> Vec<(PathBuf, String)> {
    let Ok(dir) = std::fs::read_dir(temp) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in dir.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        // A local environment has no id (and so no cgroups to remove).
        let rest = match (name.strip_prefix(DIR_PREFIX), name.starts_with(LOCAL_PREFIX)) {
            (Some(rest), _) => Some(rest),
            (None, true) => None,
            (None, false) => continue,
        };
        let path = e.path();
        // The temp folder is shared: only a real folder of this user is ours to sweep, and its
        // owner stamp is read without blocking (another user's FIFO there must not hang every
        // ghostlab start).
        if !owned_folder(&path) {
            continue;
        }
        let Ok(owner) = crate::util::bounded::read_limited(&path.join(OWNER_FILE), 256) else {
            continue;
        };
        let owner = String::from_utf8_lossy(&owner).into_owned();
        if path.join(KEEP_FILE).exists() || owner_alive(&owner) {
            continue;
        }
        // `<role>-<8 hex>-<tempfile suffix>`: the id is the first two parts.
        let id: String = rest
            .map(|rest| rest.splitn(3, '-').take(2).collect::<Vec<_>>().join("-"))
            .unwrap_or_default();
        out.push((path, id));
    }
    out.sort();
    out
}

/// A folder (not a link to one) of this process's own user. Only those: as root, a folder
/// owned by the sandbox user (or anyone else) may have been planted by a host process of that
/// user, with `home` linked to a host mount; the session root stays Ghostlab's (0711, only its
/// subfolders are handed to the sandbox user), so a real session is always found.
fn owned_folder(path: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: a trivial getter.
    let me = unsafe { libc::geteuid() };
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir() && m.uid() == me)
}

fn owner_alive(stamp: &str) -> bool {
    let mut parts = stamp.split_whitespace();
    let (Some(pid), Some(start)) = (
        parts.next().and_then(|p| p.parse::<u32>().ok()),
        parts.next().and_then(|s| s.parse::<u64>().ok()),
    ) else {
        return false;
    };
    start_time(pid) == Some(start)
}

/// Removes stale sessions with their cgroups (or, with `dry_run`, only lists them); returns
/// one line per session. cgroups are only ever removed by the id of a stale session: a
/// `ghostlab-*` cgroup without a folder here may belong to a live process with another
/// temp folder.
pub(crate) fn sweep(dry_run: bool) -> Vec<String> {
    let mut notes = Vec::new();
    for (dir, id) in stale_sessions() {
        if !dry_run {
            remove_session(&dir, &id);
        }
        let what = if id.is_empty() {
            "local environment".to_string()
        } else {
            format!("session {id}")
        };
        notes.push(format!("stale {what} at {} (owner gone)", dir.display()));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_owner_is_stale_and_a_live_one_is_not() {
        assert!(owner_alive(&owner_stamp()));
        assert!(!owner_alive("999999999 1"));
        assert!(!owner_alive("garbage"));
        let me = owner_stamp();
        let pid: u32 = me.split_whitespace().next().unwrap().parse().unwrap();
        assert!(
            !owner_alive(&format!("{pid} 1")),
            "a reused pid with another start time is not the owner"
        );
    }

    #[test]
    fn only_real_folders_of_this_user_are_swept_and_a_fifo_stamp_does_not_block() {
        let tmp = tempfile::tempdir().unwrap();
        let dead = tmp.path().join(format!("{DIR_PREFIX}agent-0123abcd-x1"));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join(OWNER_FILE), "999999999 1").unwrap();
        // Planted by someone else in the shared temp folder: a FIFO stamp, a link to a folder.
        let fifo = tmp.path().join(format!("{DIR_PREFIX}agent-fifo0000-x2"));
        std::fs::create_dir(&fifo).unwrap();
        let c = std::ffi::CString::new(fifo.join(OWNER_FILE).to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join(OWNER_FILE), "999999999 1").unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), tmp.path().join(format!("{LOCAL_PREFIX}link"))).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let root = tmp.path().to_path_buf();
        std::thread::spawn(move || tx.send(stale_sessions_in(&root)));
        let found = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a FIFO owner stamp blocked the sweep");
        assert_eq!(found, vec![(dead, "agent-0123abcd".to_string())]);
    }

    #[test]
    fn a_folder_of_another_user_is_never_swept() {
        // SAFETY: trivial getter.
        if unsafe { libc::geteuid() } != 0 {
            crate::util::skip::skipped("SKIPPED: planting another user's folder needs root");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        // What a host `nobody` process can plant: its own folder with a dead owner stamp and
        // `home` linked to a host folder.
        let planted = tmp.path().join(format!("{DIR_PREFIX}agent-deadbeef-x"));
        std::fs::create_dir(&planted).unwrap();
        std::fs::write(planted.join(OWNER_FILE), "999999 1").unwrap();
        let victim = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(victim.path(), planted.join("home")).unwrap();
        let local = tmp.path().join(format!("{LOCAL_PREFIX}planted"));
        std::fs::create_dir(&local).unwrap();
        std::fs::write(local.join(OWNER_FILE), "999999 1").unwrap();
        for p in [&planted, &local] {
            std::os::unix::fs::lchown(p, Some(65534), Some(65534)).unwrap();
        }
        assert_eq!(stale_sessions_in(tmp.path()), vec![]);
    }

    #[test]
    fn an_exited_owner_not_yet_reaped_is_gone() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Exited, not reaped: a zombie still listed in /proc.
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(std::path::Path::new(&format!("/proc/{pid}/stat")).exists());
        assert_eq!(start_time_of(pid), None);
        child.wait().unwrap();
    }
}
