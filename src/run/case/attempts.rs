//! A trial's earlier attempts. `test --resume` re-runs a trial whose verdict was INFRA_ERROR (a
//! transient outage should be retryable); the failed attempt is moved, whole, into
//! `trial-<k>/attempts/<n>/` first, so the trial keeps its history and the new attempt starts
//! from an empty folder.

use std::path::{Path, PathBuf};

/// The folder holding a trial's earlier attempts.
pub(crate) const ATTEMPTS_DIR: &str = "attempts";

/// Moves everything in `trial_dir` except earlier attempts into `attempts/<n>/` and returns
/// that folder.
pub(crate) fn archive_attempt(trial_dir: &Path) -> std::io::Result<PathBuf> {
    let history = trial_dir.join(ATTEMPTS_DIR);
    std::fs::create_dir_all(&history)?;
    let n = std::fs::read_dir(&history)?
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()))
        .max()
        .unwrap_or(0)
        + 1;
    let target = history.join(n.to_string());
    std::fs::create_dir(&target)?;
    for e in std::fs::read_dir(trial_dir)?.filter_map(Result::ok) {
        if e.file_name() != ATTEMPTS_DIR {
            std::fs::rename(e.path(), target.join(e.file_name()))?;
        }
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_numbered_and_the_trial_folder_is_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let trial = dir.path().join("trial-1");
        for n in 1..=2 {
            std::fs::create_dir_all(trial.join("workspace-after")).unwrap();
            std::fs::write(trial.join("verdict.json"), format!("attempt {n}")).unwrap();
            let to = archive_attempt(&trial).unwrap();
            assert_eq!(to, trial.join("attempts").join(n.to_string()));
            assert_eq!(
                std::fs::read_to_string(to.join("verdict.json")).unwrap(),
                format!("attempt {n}")
            );
            assert!(to.join("workspace-after").is_dir());
        }
        let left: Vec<_> = std::fs::read_dir(&trial)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("attempts")]);
    }
}
