//! The end of a trial on disk: the final workspace kept beside it, then the group commit that
//! makes its files durable together and writes verdict.json last as the marker that the trial
//! is done (docs/ARCHITECTURE.md, "Durability").

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::redact::{MASK, Redactor};

use super::event_log::EventLog;
use super::run_dir::TrialDir;

/// Largest final workspace kept with a run.
const KEEP_WORKSPACE_LIMIT: u64 = 32 << 20;

impl TrialDir {
    /// Keeps the final workspace (without `.git`) as `workspace-after/` when it is under the
    /// size limit; unsynced, the commit covers it. The trial folder is an artifact boundary:
    /// text files are kept with their secrets masked, and a binary file holding a secret is
    /// kept as the mask alone (it still exists for the file checks; its bytes do not leave).
    ///
    /// `movable`: `src` is a folder the harness made and removes at close anyway (a local
    /// environment's copy). It is then masked in place and renamed, which spares a folder and a
    /// file per entry being made here and removed there; a rename the file systems refuse
    /// (another mount) falls back to the copy, with the same result.
    pub fn keep_workspace(&self, src: &Path, redactor: &Redactor, movable: bool) -> Option<PathBuf> {
        let dst = self.workspace_after();
        let walk = WorkspaceWalk::of(src);
        if walk.bytes > KEEP_WORKSPACE_LIMIT {
            tracing::warn!(bytes = walk.bytes, "final workspace too large to keep with the run");
            return None;
        }
        if movable {
            match walk.mask_in_place_and_rename(src, &dst, redactor) {
                Ok(()) => return Some(dst),
                Err(e) => tracing::debug!("workspace not moved ({e}); copying it"),
            }
        }
        walk.copy_masked(src, &dst, redactor).ok()?;
        Some(dst)
    }

    /// The trial's group commit, on a blocking thread (renames and fsyncs must not stall the
    /// runtime): the event log closed as events.jsonl, then case.json, events.jsonl,
    /// workspace-after/ and the downloads made durable together, then `verdict` written as
    /// verdict.json.
    pub async fn commit(self, log: EventLog, verdict: Vec<u8>) -> std::io::Result<()> {
        crate::util::blocking::off_runtime(move || {
            log.finish()?;
            let files = [
                self.case_file(),
                self.events(),
                self.workspace_after(),
                super::downloads::downloads_dir(&self.path),
                super::downloads::downloads_manifest(&self.path),
            ];
            crate::util::durable::commit(&files, &self.verdict(), &verdict)
        })
        .await
    }
}

/// What of a final workspace is kept: its folders and regular files outside any `.git`, and
/// what is not (the `.git` folders, symlinks and special files).
struct WorkspaceWalk {
    kept: Vec<walkdir::DirEntry>,
    dropped: Vec<walkdir::DirEntry>,
    bytes: u64,
    /// A folder or file could not be read: renaming the tree would carry along what was not
    /// checked for secrets, so only the copy (which leaves it out) may keep it.
    unread: bool,
}

impl WorkspaceWalk {
    fn of(src: &Path) -> WorkspaceWalk {
        let mut walk = WorkspaceWalk {
            kept: Vec::new(),
            dropped: Vec::new(),
            bytes: 0,
            unread: false,
        };
        let mut entries = walkdir::WalkDir::new(src).follow_links(false).into_iter();
        while let Some(entry) = entries.next() {
            let Ok(e) = entry else {
                walk.unread = true;
                continue;
            };
            let git = e.depth() > 0 && e.file_name() == ".git";
            if git && e.file_type().is_dir() {
                entries.skip_current_dir();
            }
            if git || !(e.file_type().is_dir() || e.file_type().is_file()) {
                walk.dropped.push(e);
                continue;
            }
            if e.file_type().is_file() {
                walk.bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
            }
            walk.kept.push(e);
        }
        walk
    }

    fn copy_masked(&self, src: &Path, dst: &Path, redactor: &Redactor) -> std::io::Result<()> {
        for e in &self.kept {
            let target = dst.join(e.path().strip_prefix(src).map_err(std::io::Error::other)?);
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&target)?;
            } else {
                // Read once: the bytes are both checked for secrets and written.
                let bytes = std::fs::read(e.path())?;
                std::fs::write(&target, masked(redactor, &bytes))?;
                std::fs::set_permissions(&target, e.metadata()?.permissions())?;
            }
        }
        Ok(())
    }

    /// Files are replaced, never written through: a hard link the agent made to a file outside
    /// the workspace must not carry the mask (or the run folder) to that file.
    fn mask_in_place_and_rename(&self, src: &Path, dst: &Path, redactor: &Redactor) -> std::io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        if self.unread {
            return Err(std::io::Error::other("part of the workspace could not be read"));
        }
        for e in self.dropped.iter().rev() {
            if e.file_type().is_dir() {
                std::fs::remove_dir_all(e.path())?;
            } else {
                std::fs::remove_file(e.path())?;
            }
        }
        for e in self.kept.iter().filter(|e| e.file_type().is_file()) {
            let bytes = std::fs::read(e.path())?;
            let kept = masked(redactor, &bytes);
            let meta = e.metadata()?;
            if matches!(kept, Cow::Borrowed(b) if std::ptr::eq(b, bytes.as_slice())) && meta.nlink() == 1 {
                continue; // clean and not shared: stays as it is
            }
            std::fs::remove_file(e.path())?;
            std::fs::write(e.path(), kept)?;
            std::fs::set_permissions(e.path(), meta.permissions())?;
        }
        std::fs::rename(src, dst)
    }
}

/// A file's bytes as they may leave: masked text, or the mask alone for a binary that holds a
/// secret.
fn masked<'a>(redactor: &Redactor, bytes: &'a [u8]) -> Cow<'a, [u8]> {
    redactor
        .redact_file_bytes(bytes)
        .unwrap_or(Cow::Borrowed(MASK.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    const SECRET: &str = "kept-secret-value-42";

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
        let mut r = Redactor::new();
        r.add_secret(SECRET);
        let kept = TrialDir::at(tmp.path().join("trial"))
            .keep_workspace(&ws, &r, false)
            .unwrap();
        assert_kept_masked(&kept);
        let original = std::fs::read_to_string(ws.join("notes.txt")).unwrap();
        assert!(original.contains(SECRET), "not movable: the source is only read");
        assert!(ws.join(".git/config").exists());
    }

    #[test]
    fn a_movable_workspace_is_masked_in_place_and_renamed() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = planted_workspace(tmp.path());
        let mut r = Redactor::new();
        r.add_secret(SECRET);
        std::fs::create_dir_all(tmp.path().join("trial")).unwrap();
        let kept = TrialDir::at(tmp.path().join("trial"))
            .keep_workspace(&ws, &r, true)
            .unwrap();
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
        let mut r = Redactor::new();
        r.add_secret(SECRET);
        std::fs::create_dir_all(tmp.path().join("trial")).unwrap();
        let kept = TrialDir::at(tmp.path().join("trial"))
            .keep_workspace(&ws, &r, true)
            .unwrap();
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
        let mut r = Redactor::new();
        r.add_secret(SECRET);
        // The trial folder does not exist yet: the rename fails, the copy makes the folders.
        let kept = TrialDir::at(tmp.path().join("trial"))
            .keep_workspace(&ws, &r, true)
            .unwrap();
        assert_kept_masked(&kept);
        assert!(ws.exists(), "copied, not moved");
    }
}
