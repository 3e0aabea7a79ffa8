//! The command-line flags that shape the lab's run (Step 12): the agent's model cassette and
//! the cases run at once. They are not answers of a step, so they do not belong in job.yaml,
//! but a resumed lab must run the same way: they are kept beside the lab's other files, and
//! the resume command the lab prints names them.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

use super::store::{LAB_FILES_VERSION, StoreError};
use crate::util::bounded::{FileKind, read_optional_string};

const FILE_NAME: &str = "run-flags.json";
/// Cases run at once when neither the command line nor a saved lab says.
pub(crate) const DEFAULT_PARALLEL: usize = 4;

/// The run-shaping flags, as given or as saved by an earlier start of the same lab.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunFlags {
    #[serde(default)]
    pub(crate) version: u32,
    /// An absolute path, so a resume from another folder finds the same file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent_cassette: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parallel: Option<usize>,
}

impl RunFlags {
    /// Flags given now win over saved ones, one by one.
    pub(crate) fn over(self, saved: Option<RunFlags>) -> RunFlags {
        let saved = saved.unwrap_or_default();
        RunFlags {
            version: LAB_FILES_VERSION,
            agent_cassette: self.agent_cassette.or(saved.agent_cassette),
            parallel: self.parallel.or(saved.parallel),
        }
    }

    pub(crate) fn parallel(&self) -> usize {
        self.parallel.unwrap_or(DEFAULT_PARALLEL)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.agent_cassette.is_none() && self.parallel.is_none()
    }

    /// The command that continues this lab, with every flag that shapes its run.
    pub(crate) fn resume_command(&self, job_file: &Path) -> String {
        let mut cmd = format!("ghostlab lab --resume --job {}", quoted(job_file));
        if let Some(c) = &self.agent_cassette {
            cmd.push_str(&format!(" --agent-cassette {}", quoted(c)));
        }
        if let Some(p) = self.parallel {
            cmd.push_str(&format!(" --parallel {p}"));
        }
        cmd
    }
}

/// A path as a shell reads it back: quoted when it holds anything but plain characters.
fn quoted(path: &Path) -> String {
    let s = path.to_string_lossy();
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c)) && !s.is_empty() {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The saved flags of the lab whose files are in `lab_dir`; none when never saved.
pub fn load(lab_dir: &Path) -> Result<Option<RunFlags>, StoreError> {
    let path = lab_dir.join(FILE_NAME);
    // The shared bounded reader: a FIFO left in its place is refused, never waited on.
    let text = match read_optional_string(&path, FileKind::State) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => {
            return Err(StoreError::Read {
                path,
                reason: e.reason(),
            });
        }
    };
    let flags: RunFlags = serde_json::from_str(&text).map_err(|e| StoreError::Read {
        path: path.clone(),
        reason: format!("not a run-flags file of this version: {e}"),
    })?;
    if flags.version != LAB_FILES_VERSION {
        return Err(StoreError::Read {
            path,
            reason: format!("format version {} is not {LAB_FILES_VERSION}", flags.version),
        });
    }
    Ok(Some(flags))
}

/// Saves `flags` (atomically), with the cassette's path made absolute.
pub(crate) fn save(lab_dir: &Path, flags: &RunFlags) -> Result<(), StoreError> {
    let mut flags = flags.clone();
    flags.version = LAB_FILES_VERSION;
    if let Some(c) = &flags.agent_cassette {
        flags.agent_cassette = Some(std::path::absolute(c).unwrap_or_else(|_| c.clone()));
    }
    let path = lab_dir.join(FILE_NAME);
    crate::util::write_json_atomic(&path, &flags).map_err(|source| StoreError::Write { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_flags_win_one_by_one_and_saved_ones_fill_the_rest() {
        let saved = RunFlags {
            version: 1,
            agent_cassette: Some("/a/agent.json".into()),
            parallel: Some(2),
        };
        let given = RunFlags {
            parallel: Some(8),
            ..RunFlags::default()
        };
        let merged = given.over(Some(saved));
        assert_eq!(merged.agent_cassette.as_deref(), Some(Path::new("/a/agent.json")));
        assert_eq!(merged.parallel(), 8);
        assert_eq!(RunFlags::default().over(None).parallel(), DEFAULT_PARALLEL);
    }

    #[test]
    fn a_saved_cassette_survives_a_resume_from_another_folder() {
        let dir = tempfile::tempdir().unwrap();
        let flags = RunFlags {
            agent_cassette: Some("cassettes/agent.json".into()),
            ..RunFlags::default()
        };
        save(dir.path(), &flags).unwrap();
        let loaded = load(dir.path()).unwrap().unwrap();
        let path = loaded.agent_cassette.unwrap();
        assert!(path.is_absolute() && path.ends_with("cassettes/agent.json"), "{path:?}");
        assert_eq!(load(&dir.path().join("none")).unwrap(), None);
    }

    #[test]
    fn the_resume_command_names_every_flag_and_quotes_odd_paths() {
        let flags = RunFlags {
            version: 1,
            agent_cassette: Some("/my agent/it's.json".into()),
            parallel: Some(2),
        };
        let cmd = flags.resume_command(Path::new("my/job.yaml"));
        assert_eq!(
            cmd,
            r"ghostlab lab --resume --job my/job.yaml --agent-cassette '/my agent/it'\''s.json' --parallel 2"
        );
        assert_eq!(
            RunFlags::default().resume_command(Path::new("job.yaml")),
            "ghostlab lab --resume --job job.yaml"
        );
    }

    #[test]
    fn a_damaged_or_future_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), "{\"version\": 9}").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains(FILE_NAME) && err.contains("version 9"), "{err}");
        std::fs::write(dir.path().join(FILE_NAME), "{\"version\": 1, \"speed\": 3}").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("speed"), "{err}");
        // A FIFO in its place is refused at once, not waited on.
        std::fs::remove_file(dir.path().join(FILE_NAME)).unwrap();
        let fifo = std::ffi::CString::new(dir.path().join(FILE_NAME).to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
    }
}
