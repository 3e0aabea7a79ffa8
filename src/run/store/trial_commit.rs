//! The end of a trial on disk: the final workspace kept beside it (`workspace_keep`), then the
//! trial as a unit of the group commit (`trial_committer`) that makes its files durable and
//! writes verdict.json last as the marker that the trial is done (docs/ARCHITECTURE.md,
//! "Durability").

use std::path::{Path, PathBuf};

use crate::redact::Redactor;

use crate::run::environment::workspace_keep::{KEEP_WORKSPACE_LIMIT, KeepBy, WorkspaceWalk, move_masked};
use crate::run::store::event_log::ClosedLog;
use crate::run::store::run_dir::TrialDir;
use crate::util::durable::Unit;

impl TrialDir {
    /// Keeps the final workspace (without `.git`) as `workspace-after/` when it is under the
    /// size limit; unsynced, the commit covers it. The trial folder is an artifact boundary:
    /// text files are kept with their secrets masked, and a binary file holding a secret is
    /// kept as the mask alone (it still exists for the file checks; its bytes do not leave).
    /// `KeepBy::Move` moves the harness's own copy instead when it can vouch for the result
    /// (`workspace_keep`), and copies otherwise.
    pub fn keep_workspace(&self, src: &Path, redactor: &Redactor, by: KeepBy) -> Option<PathBuf> {
        let dst = self.workspace_after();
        let mut src = src.to_path_buf();
        if let KeepBy::Move { processes_may_remain } = by {
            match move_masked(&src, &dst, redactor, processes_may_remain) {
                Ok(()) => return Some(dst),
                Err(not) => {
                    tracing::debug!("workspace copied, not moved: {}", not.why);
                    src = not.tree;
                }
            }
        }
        let src = src.as_path();
        let walk = WorkspaceWalk::of(src);
        if walk.bytes > KEEP_WORKSPACE_LIMIT {
            tracing::warn!(bytes = walk.bytes, "final workspace too large to keep with the run");
            return None;
        }
        walk.copy_masked(src, &dst, redactor).ok()?;
        Some(dst)
    }
}

/// A decided trial whose files wait for the group commit (`run::trial_committer`).
pub(crate) struct PendingTrial {
    pub(crate) trial: TrialDir,
    /// Closed when the trial is handed in, so a waiting trial holds no file and no events.
    pub(crate) log: ClosedLog,
    pub(crate) verdict: Vec<u8>,
}

impl PendingTrial {
    /// Closes the event log as events.jsonl; then the trial is a commit unit: case.json,
    /// events.jsonl, workspace-after/ and the downloads made durable, `verdict` written last
    /// as verdict.json.
    pub(crate) fn into_unit(self) -> std::io::Result<Unit> {
        self.log.finish()?;
        let t = &self.trial;
        Ok(Unit {
            files: vec![
                t.case_file(),
                t.events(),
                t.workspace_after(),
                crate::run::environment::downloads::downloads_dir(&t.path),
                crate::run::environment::downloads::downloads_manifest(&t.path),
            ],
            marker: t.verdict(),
            marker_bytes: self.verdict,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::MASK;
    use std::os::unix::fs::PermissionsExt;

    const MOVE: KeepBy = KeepBy::Move {
        processes_may_remain: true,
    };

    const SECRET: &str = "kept-secret-value-42";

    #[test]
    fn a_workspace_of_too_many_entries_is_not_walked_whole_or_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        for i in 0..100_001 {
            std::fs::File::create(ws.join(format!("f{i}"))).unwrap();
        }
        let walk = WorkspaceWalk::of(&ws);
        assert!(
            walk.bytes > KEEP_WORKSPACE_LIMIT,
            "an empty-file flood counts as too large"
        );
        let trial = TrialDir::at(tmp.path().join("trial"));
        assert_eq!(
            trial.keep_workspace(&ws, &crate::redact::Redactor::new(), KeepBy::Copy),
            None
        );
        assert!(!tmp.path().join("trial/workspace-after").exists());
    }

    /// A workspace with a secret in text and in a binary, a clean binary, an executable, a
    /// `.git` folder (also a nested one) and a symlink out of the tree.
    fn planted_workspace(root: &Path) -> PathBuf {
        let ws = root.join("ws");
        std::fs::create_dir_all(ws.join("bin")).unwrap();
        std::fs::create_dir_all(ws.join(".git/objects")).unwrap();
        std::fs::create_dir_all(ws.join("vendor/lib/.git")).unwrap();
        std::fs::write(ws.join(".git/config"), format!("token={SECRET}")).unwrap();
        std::fs::write(ws.join("vendor/lib/.git/HEAD"), "ref").unwrap();
        std::fs::write(ws.join("notes.txt"), format!("token={SECRET}\n")).unwrap();
        let mut secret_blob = vec![0xff, 0xfe];
        secret_blob.extend_from_slice(SECRET.as_bytes());
        std::fs::write(ws.join("bin/blob"), &secret_blob).unwrap();
        std::fs::write(ws.join("bin/clean"), [0xff, 0x00, 0x01]).unwrap();
        std::fs::write(ws.join("run.sh"), format!("echo {SECRET}\n")).unwrap();
        std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", ws.join("passwd")).unwrap();
        ws
    }

    /// Keeps `ws` into `<tmp>/trial` (made first unless `trial_exists` is false) with the
    /// planted secret registered.
    fn keep(tmp: &Path, ws: &Path, by: KeepBy, trial_exists: bool) -> Option<PathBuf> {
        let mut r = Redactor::new();
        r.add_secret(SECRET);
        if trial_exists {
            std::fs::create_dir_all(tmp.join("trial")).unwrap();
        }
        TrialDir::at(tmp.join("trial")).keep_workspace(ws, &r, by)
    }

    fn assert_kept_masked(kept: &Path) {
        assert_eq!(
            std::fs::read_to_string(kept.join("notes.txt")).unwrap(),
            format!("token={MASK}\n")
        );
        assert_eq!(std::fs::read(kept.join("bin/blob")).unwrap(), MASK.as_bytes());
        assert_eq!(std::fs::read(kept.join("bin/clean")).unwrap(), [0xff, 0x00, 0x01]);
        let mode = std::fs::metadata(kept.join("run.sh")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755, "a masked file keeps its mode");
        for gone in [".git", "vendor/lib/.git", "passwd"] {
            assert!(kept.join(gone).symlink_metadata().is_err(), "{gone} must not be kept");
        }
        assert!(kept.join("vendor/lib").is_dir());
    }

    #[test]
    fn a_copied_workspace_is_masked_and_the_original_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = planted_workspace(tmp.path());
        let kept = keep(tmp.path(), &ws, KeepBy::Copy, false).unwrap();
        assert_kept_masked(&kept);
        let original = std::fs::read_to_string(ws.join("notes.txt")).unwrap();
        assert!(original.contains(SECRET), "not movable: the source is only read");
        assert!(ws.join(".git/config").exists());
    }

    #[test]
    fn a_movable_workspace_is_masked_in_place_and_renamed() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = planted_workspace(tmp.path());
        let kept = keep(tmp.path(), &ws, MOVE, true).unwrap();
        assert_kept_masked(&kept);
        assert!(!ws.exists(), "moved, not copied");
    }

    #[test]
    fn moving_never_writes_through_a_hard_link_to_a_file_outside_the_workspace() {
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let ws = planted_workspace(tmp.path());
        let (secret_outside, clean_outside) = (tmp.path().join("user-secret"), tmp.path().join("user-clean"));
        std::fs::write(&secret_outside, format!("key={SECRET}\n")).unwrap();
        std::fs::write(&clean_outside, "plain\n").unwrap();
        std::fs::hard_link(&secret_outside, ws.join("linked-secret")).unwrap();
        std::fs::hard_link(&clean_outside, ws.join("linked-clean")).unwrap();
        let kept = keep(tmp.path(), &ws, MOVE, true).unwrap();
        assert_kept_masked(&kept);
        assert_eq!(
            std::fs::read_to_string(&secret_outside).unwrap(),
            format!("key={SECRET}\n")
        );
        assert_eq!(
            std::fs::read_to_string(kept.join("linked-secret")).unwrap(),
            format!("key={MASK}\n")
        );
        assert_eq!(std::fs::read_to_string(kept.join("linked-clean")).unwrap(), "plain\n");
        for f in ["linked-secret", "linked-clean"] {
            assert_eq!(
                std::fs::metadata(kept.join(f)).unwrap().nlink(),
                1,
                "{f} is the run's own file"
            );
        }
        assert_eq!(std::fs::metadata(&clean_outside).unwrap().nlink(), 1);
    }

    #[test]
    fn a_movable_workspace_the_rename_cannot_take_is_copied_with_the_same_result() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = planted_workspace(tmp.path());
        // The trial folder does not exist yet: the rename fails, the copy makes the folders.
        let kept = keep(tmp.path(), &ws, MOVE, false).unwrap();
        assert_kept_masked(&kept);
        assert!(ws.exists(), "copied, not moved");
    }

    #[test]
    fn a_workspace_a_left_behind_process_still_works_in_is_copied_and_left_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = planted_workspace(tmp.path());
        let mut left_behind = std::process::Command::new("sleep")
            .arg("30")
            .current_dir(ws.join("bin"))
            .spawn()
            .unwrap();
        let kept = keep(tmp.path(), &ws, MOVE, true);
        left_behind.kill().unwrap();
        left_behind.wait().unwrap();
        assert_kept_masked(&kept.unwrap());
        assert!(std::fs::read_to_string(ws.join("notes.txt")).unwrap().contains(SECRET));
        assert!(ws.join(".git/config").exists() && ws.join("passwd").symlink_metadata().is_ok());
        let names: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no staging folder is left behind: {names:?}");
    }

    #[test]
    fn a_workspace_with_extended_attributes_is_copied_without_them() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = planted_workspace(tmp.path());
        let path = std::ffi::CString::new(ws.join("bin/clean").as_os_str().as_encoded_bytes()).unwrap();
        let value = format!("https://example.test/?token={SECRET}");
        // SAFETY: NUL-terminated name and path; the value's pointer and length match.
        let set = unsafe {
            libc::lsetxattr(
                path.as_ptr(),
                c"user.xdg.origin.url".as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                0,
            )
        };
        assert_eq!(
            set,
            0,
            "this file system must take user xattrs: {}",
            std::io::Error::last_os_error()
        );
        let kept = keep(tmp.path(), &ws, MOVE, true).unwrap();
        assert_kept_masked(&kept);
        assert!(ws.exists(), "copied, not moved");
        let kept_path = std::ffi::CString::new(kept.join("bin/clean").as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a size query on a NUL-terminated path.
        assert_eq!(
            unsafe { libc::llistxattr(kept_path.as_ptr(), std::ptr::null_mut(), 0) },
            0
        );
    }

    #[test]
    fn a_moved_read_only_folder_is_made_removable() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = planted_workspace(tmp.path());
        std::fs::set_permissions(ws.join("vendor/lib"), std::fs::Permissions::from_mode(0o555)).unwrap();
        let kept = keep(tmp.path(), &ws, MOVE, true).unwrap();
        assert!(!ws.exists(), "moved");
        let mode = std::fs::metadata(kept.join("vendor/lib")).unwrap().permissions().mode();
        assert_eq!(mode & 0o700, 0o700);
    }

    #[test]
    fn a_workspace_replaced_by_a_symlink_is_neither_followed_nor_moved() {
        let tmp = tempfile::tempdir().unwrap();
        let project = planted_workspace(tmp.path()); // the user's files, outside the environment
        let env = tmp.path().join("env");
        std::fs::create_dir_all(&env).unwrap();
        let ws = env.join("workspace");
        std::os::unix::fs::symlink(&project, &ws).unwrap();
        for by in [MOVE, KeepBy::Copy] {
            let kept = keep(tmp.path(), &ws, by, true).unwrap();
            assert!(
                std::fs::read_dir(&kept).map_or(true, |mut d| d.next().is_none()),
                "{by:?} followed the link"
            );
        }
        assert!(project.join(".git/config").exists() && project.join("passwd").symlink_metadata().is_ok());
        assert!(
            std::fs::read_to_string(project.join("notes.txt"))
                .unwrap()
                .contains(SECRET)
        );
        assert!(
            ws.symlink_metadata().unwrap().file_type().is_symlink(),
            "left where it was"
        );
    }

    #[test]
    fn a_workspace_over_the_limit_is_neither_moved_nor_copied_and_left_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = planted_workspace(tmp.path());
        let big = std::fs::File::create(ws.join("big.bin")).unwrap();
        big.set_len(KEEP_WORKSPACE_LIMIT + 1).unwrap(); // sparse: costs no disk
        assert!(keep(tmp.path(), &ws, MOVE, true).is_none());
        assert!(
            ws.join("big.bin").exists() && ws.join(".git/config").exists(),
            "put back whole"
        );
        assert!(!tmp.path().join("trial/workspace-after").exists());
    }
}
