//! What leaves a sandbox through the kept workspace is Ghostlab's: no setuid, setgid or sticky
//! bit, no owner the agent chose, and nothing reached through a link swapped in after the walk.

use super::*;
use std::os::unix::fs::symlink;

const SECRET: &str = "kept-secret-value-42";

fn redactor() -> Redactor {
    let mut r = Redactor::new();
    r.add_secret(SECRET);
    r
}

/// A workspace with a setuid+setgid program, a setgid folder and a sticky folder.
fn privileged_workspace(root: &Path) -> PathBuf {
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join("shared")).unwrap();
    std::fs::create_dir_all(ws.join("group")).unwrap();
    std::fs::write(ws.join("y"), "#!/bin/sh\nid\n").unwrap();
    std::fs::write(ws.join("group/note"), format!("token={SECRET}\n")).unwrap();
    std::fs::set_permissions(ws.join("y"), std::fs::Permissions::from_mode(0o6755)).unwrap();
    std::fs::set_permissions(ws.join("shared"), std::fs::Permissions::from_mode(0o1777)).unwrap();
    std::fs::set_permissions(ws.join("group"), std::fs::Permissions::from_mode(0o2755)).unwrap();
    ws
}

fn assert_no_special_bits(kept: &Path) {
    // SAFETY: trivial getters.
    let me = unsafe { (libc::geteuid(), libc::getegid()) };
    for e in walkdir::WalkDir::new(kept) {
        let e = e.unwrap();
        let m = e.path().symlink_metadata().unwrap();
        assert_eq!(m.mode() & 0o7000, 0, "{} kept {:o}", e.path().display(), m.mode());
        assert_eq!((m.uid(), m.gid()), me, "{} kept another owner", e.path().display());
    }
    assert_eq!(std::fs::metadata(kept.join("y")).unwrap().mode() & 0o777, 0o755);
}

#[test]
fn a_copied_workspace_keeps_no_setuid_setgid_or_sticky_bit() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = privileged_workspace(tmp.path());
    let dst = tmp.path().join("after");
    WorkspaceWalk::of(&ws).copy_masked(&ws, &dst, &redactor()).unwrap();
    assert_no_special_bits(&dst);
    assert!(
        !std::fs::read_to_string(dst.join("group/note"))
            .unwrap()
            .contains(SECRET)
    );
}

#[test]
fn a_moved_workspace_keeps_no_setuid_setgid_or_sticky_bit() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = privileged_workspace(tmp.path());
    let dst = tmp.path().join("after");
    assert!(move_masked(&ws, &dst, &redactor(), false).is_ok());
    assert!(!ws.exists(), "moved, not copied");
    assert_no_special_bits(&dst);
}

#[test]
fn a_moved_setuid_hard_link_leaves_the_other_name_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let outside = tmp.path().join("outside-y");
    std::fs::write(&outside, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o4755)).unwrap();
    std::fs::hard_link(&outside, ws.join("y")).unwrap();
    let dst = tmp.path().join("after");
    assert!(move_masked(&ws, &dst, &redactor(), false).is_ok());
    assert_eq!(std::fs::metadata(dst.join("y")).unwrap().mode() & 0o7777, 0o755);
    // Its other name is not the agent's: neither its bits nor its bytes change.
    assert_eq!(std::fs::metadata(&outside).unwrap().mode() & 0o7777, 0o4755);
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "#!/bin/sh\n");
}

#[test]
fn a_moved_tree_of_the_sandbox_user_becomes_ghostlabs() {
    // SAFETY: trivial getter.
    if unsafe { libc::geteuid() } != 0 {
        crate::util::skip::skipped("SKIPPED: files of another user need root");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = privileged_workspace(tmp.path());
    for e in walkdir::WalkDir::new(&ws) {
        let p = e.unwrap().path().to_path_buf();
        let mode = p.symlink_metadata().unwrap().mode() & 0o7777;
        std::os::unix::fs::lchown(&p, Some(65534), Some(65534)).unwrap();
        // chown clears the bits; the agent (the owner) sets them again.
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    assert_eq!(std::fs::metadata(ws.join("y")).unwrap().mode() & 0o7777, 0o6755);
    let dst = tmp.path().join("after");
    assert!(move_masked(&ws, &dst, &redactor(), false).is_ok());
    assert_no_special_bits(&dst);
}

#[test]
fn a_folder_swapped_for_a_link_after_the_walk_brings_no_host_file() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(ws.join("reports")).unwrap();
    std::fs::write(ws.join("reports/x.json"), "agent").unwrap();
    let host = tmp.path().join("host");
    std::fs::create_dir_all(&host).unwrap();
    std::fs::write(host.join("x.json"), "HOST-SECRET-FILE").unwrap();
    let walk = WorkspaceWalk::of(&ws);
    // A process the agent left behind swaps the folder for a link to a host folder.
    std::fs::rename(ws.join("reports"), ws.join("old")).unwrap();
    symlink(&host, ws.join("reports")).unwrap();
    let dst = tmp.path().join("after");
    let r = walk.copy_masked(&ws, &dst, &redactor());
    let leaked = std::fs::read_to_string(dst.join("reports/x.json")).is_ok_and(|t| t.contains("HOST-SECRET"));
    assert!(!leaked, "a host file was copied through a swapped-in link");
    assert!(r.is_err(), "the copy went on as if nothing changed");
    // The workspace root itself swapped for a link: refused as well.
    let walk = WorkspaceWalk::of(&ws);
    std::fs::rename(&ws, tmp.path().join("ws-old")).unwrap();
    symlink(&host, &ws).unwrap();
    assert!(walk.copy_masked(&ws, &tmp.path().join("after2"), &redactor()).is_err());
    assert!(!tmp.path().join("after2/x.json").exists());
}
