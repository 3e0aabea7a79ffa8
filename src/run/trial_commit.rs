//! The end of a trial on disk: the final workspace kept beside it, then the group commit that
//! makes its files durable together and writes verdict.json last as the marker that the trial
//! is done (docs/ARCHITECTURE.md, "Durability").

use std::path::{Path, PathBuf};

use super::event_log::EventLog;
use super::run_dir::TrialDir;

/// Largest final workspace kept with a run.
const KEEP_WORKSPACE_LIMIT: u64 = 32 << 20;

impl TrialDir {
    /// Copies the final workspace (without `.git`) into `workspace-after/` when it is under the
    /// size limit; unsynced, the commit covers it.
    pub fn keep_workspace(&self, src: &Path) -> Option<PathBuf> {
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
                std::fs::copy(e.path(), &target).ok()?;
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
