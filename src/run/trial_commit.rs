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
    /// Copies the final workspace (without `.git`) into `workspace-after/` when it is under the
    /// size limit; unsynced, the commit covers it. The trial folder is an artifact boundary:
    /// text files are kept with their secrets masked, and a binary file holding a secret is
    /// kept as the mask alone (it still exists for the file checks; its bytes do not leave).
    pub fn keep_workspace(&self, src: &Path, redactor: &Redactor) -> Option<PathBuf> {
        let dst = self.workspace_after();
        let files: Vec<_> = walkdir::WalkDir::new(src)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| e.file_name() != ".git")
            .filter_map(Result::ok)
            .collect();
        let total: u64 = files
            .iter()
            .filter(|e| e.file_type().is_file())
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum();
        if total > KEEP_WORKSPACE_LIMIT {
            tracing::warn!(bytes = total, "final workspace too large to keep with the run");
            return None;
        }
        for e in files {
            let rel = e.path().strip_prefix(src).ok()?;
            let target = dst.join(rel);
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&target).ok()?;
            } else if e.file_type().is_file() {
                // Read once: the bytes are both checked for secrets and written.
                let bytes = std::fs::read(e.path()).ok()?;
                let kept = redactor
                    .redact_file_bytes(&bytes)
                    .unwrap_or(Cow::Borrowed(MASK.as_bytes()));
                std::fs::write(&target, kept).ok()?;
                std::fs::set_permissions(&target, e.metadata().ok()?.permissions()).ok()?;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_kept_workspace_masks_secrets_and_keeps_clean_files_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(ws.join("bin")).unwrap();
        std::fs::write(ws.join("notes.txt"), "token=kept-secret-value-42\n").unwrap();
        let mut secret_blob = vec![0xff, 0xfe];
        secret_blob.extend_from_slice(b"kept-secret-value-42");
        std::fs::write(ws.join("bin/blob"), &secret_blob).unwrap();
        std::fs::write(ws.join("bin/clean"), [0xff, 0x00, 0x01]).unwrap();
        std::fs::write(ws.join("run.sh"), "echo kept-secret-value-42\n").unwrap();
        std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut r = Redactor::new();
        r.add_secret("kept-secret-value-42");
        let trial = TrialDir::at(tmp.path().join("trial"));
        let kept = trial.keep_workspace(&ws, &r).unwrap();
        assert_eq!(
            std::fs::read_to_string(kept.join("notes.txt")).unwrap(),
            format!("token={MASK}\n")
        );
        assert_eq!(std::fs::read(kept.join("bin/blob")).unwrap(), MASK.as_bytes());
        assert_eq!(std::fs::read(kept.join("bin/clean")).unwrap(), [0xff, 0x00, 0x01]);
        let mode = std::fs::metadata(kept.join("run.sh")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755, "a masked file keeps its mode");
    }
}
