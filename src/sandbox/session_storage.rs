//! A session's storage bounds: a bounded tmpfs per writable folder as root, else measured
//! while commands run (the folders, and files deleted while still open in them); under
//! bubblewrap also the file count of each command's /tmp and /dev/shm. A breach stops every
//! process of the session, and the next command is refused.

use super::super::procs;
use super::super::scratch::{self, ScratchBound};
use super::{SandboxError, Session};
use crate::spec::SandboxBackend;

impl Session {
    /// How HOME and TMPDIR are bounded in this session.
    pub fn scratch_bound(&self) -> ScratchBound {
        self.scratch
    }

    /// Whether this session's storage bound is measured (no tmpfs) rather than mounted.
    fn measured_storage(&self) -> bool {
        self.scratch == ScratchBound::Measured && self.policy.backend != SandboxBackend::Openshell
    }

    /// The measured folders and their bounds.
    fn measured_folders(&self) -> Vec<super::super::storage_watch::Bounded> {
        let (scratch, shared) = (self.policy.limits.scratch_bytes, self.policy.limits.workspace_bytes);
        [
            ("HOME", &self.layout.home, scratch),
            ("TMPDIR", &self.layout.tmp, scratch),
            ("the workspace", &self.layout.workspace, shared),
            ("uploads", &self.layout.uploads, shared),
        ]
        .into_iter()
        .map(|(name, dir, bytes)| super::super::storage_watch::Bounded {
            name: name.into(),
            dir: dir.clone(),
            bytes,
        })
        .collect()
    }

    /// Starts the watcher that holds the storage bounds while commands run: with a measured
    /// bound (no tmpfs) the folders and the files deleted while open in them; under bubblewrap
    /// (root or not) the file count of each command's /tmp and /dev/shm. At the first breach
    /// every process of the session is stopped.
    pub(super) fn watch_storage(&mut self) {
        let measured = self.measured_storage();
        let bubblewrap = self.policy.backend == SandboxBackend::Bubblewrap;
        let local = self.policy.backend == SandboxBackend::Local;
        if !measured && !bubblewrap {
            return;
        }
        let folders = if measured { self.measured_folders() } else { Vec::new() };
        // Deleted files are told apart by device: the bounded folders' own.
        let mut devs: Vec<u64> = folders
            .iter()
            .filter_map(|f| std::fs::metadata(&f.dir).ok())
            .map(|m| std::os::unix::fs::MetadataExt::dev(&m))
            .collect();
        devs.dedup();
        let hidden_bound = self.policy.limits.scratch_bytes;
        let (dir, id) = (self.layout.dir.clone(), self.id.clone());
        let (dir2, id2) = (dir.clone(), id.clone());
        let measure = move || {
            if let Some(why) = super::super::storage_watch::first_over(&folders) {
                return Some(why);
            }
            let pids = procs::launched_pids(&dir2, local.then_some(id2.as_str()));
            if measured {
                let deleted = super::super::hidden_usage::deleted_open_bytes(&pids, &devs);
                if deleted > hidden_bound {
                    return Some(format!(
                        "files deleted while still open exceeded {hidden_bound} bytes ({deleted} held)"
                    ));
                }
            }
            if bubblewrap {
                return super::super::hidden_usage::tmpfs_files_over(
                    &pids,
                    &["/tmp", "/dev/shm"],
                    super::super::hidden_usage::TMPFS_FILES,
                );
            }
            None
        };
        self.storage_watch = Some(super::super::storage_watch::StorageWatch::start_measuring(
            measure,
            move |_| {
                procs::kill_session(&dir, &id);
            },
        ));
        if measured {
            self.log.note(
                "storage bound measured while commands run (no tmpfs), with files deleted while open: a breach stops the session's processes",
            );
        }
        if bubblewrap {
            self.log.note(&format!(
                "/tmp and /dev/shm: at most {} files each, measured while commands run",
                super::super::hidden_usage::TMPFS_FILES
            ));
        }
    }

    /// With a measured bound, refuses to go on once HOME, TMPDIR, the workspace or uploads is
    /// over it (seen by the watcher while a command ran, or measured now).
    pub(super) fn check_scratch(&self) -> Result<(), SandboxError> {
        let seen = self.storage_watch.as_ref().and_then(|w| w.breach());
        if seen.is_none() && !self.measured_storage() {
            return Ok(());
        }
        let over = seen.or_else(|| {
            self.measured_folders()
                .iter()
                .find_map(|f| scratch::over_bound(&[(f.name.as_str(), f.dir.as_path())], f.bytes))
        });
        match over {
            Some(why) => {
                self.log.note(&format!("LIMIT HIT: {why}"));
                Err(SandboxError::Policy(format!("sandbox limit: {why}")))
            }
            None => Ok(()),
        }
    }

    /// Unmounts the HOME and TMPDIR tmpfs (their contents go with them); also after a failed
    /// creation, which may have mounted them before `scratch` was set.
    pub(super) fn release_scratch(&self) {
        scratch::unmount_subfolders(&self.layout.dir);
    }
}
