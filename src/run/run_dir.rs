//! The layout of a run folder, in one place:
//!
//! ```text
//! <state>/runs/<run-id>/            RunDir
//!   manifest.json summary.json junit.xml logs/ agent-config/
//!   cases/<case-id>/trial-<k>/      TrialDir
//!     case.json events.jsonl(.partial) verdict.json workspace-after/
//! ```
//!
//! verdict.json is a trial's commit marker (docs/ARCHITECTURE.md, "Durability").
//!
//! Suite, merge, rescore, report and the CLI find files through these types, never by joining
//! names themselves.

use std::path::{Path, PathBuf};

/// One run folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDir {
    path: PathBuf,
}

impl RunDir {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        RunDir { path: path.into() }
    }

    /// Where a job's runs live: `<state_dir>/runs`.
    pub fn runs_root(state_dir: &Path) -> PathBuf {
        state_dir.join("runs")
    }

    /// A fresh run folder under the job's state folder (not created yet).
    pub fn fresh(state_dir: &Path) -> Self {
        RunDir::new(Self::runs_root(state_dir).join(super::manifest::new_run_id()))
    }

    /// The most recent run under the job's state folder (run ids sort by time).
    pub fn newest(state_dir: &Path) -> Option<Self> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(Self::runs_root(state_dir))
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        dirs.pop().map(RunDir::new)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The run id: the folder's name.
    pub fn id(&self) -> String {
        self.path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    pub fn manifest(&self) -> PathBuf {
        self.path.join("manifest.json")
    }

    pub fn summary(&self) -> PathBuf {
        self.path.join("summary.json")
    }

    pub fn junit(&self) -> PathBuf {
        self.path.join("junit.xml")
    }

    /// Sandbox session logs.
    pub fn logs(&self) -> PathBuf {
        self.path.join("logs")
    }

    /// The agent host's generated config, per case.
    pub fn agent_config(&self) -> PathBuf {
        self.path.join("agent-config")
    }

    /// `cases/`, the parent of every trial folder.
    pub fn cases(&self) -> PathBuf {
        self.path.join("cases")
    }

    /// True when the folder holds trials (`cases/` exists).
    pub fn has_cases(&self) -> bool {
        self.cases().is_dir()
    }

    /// The folder of one trial (it may not exist yet).
    pub fn trial(&self, case_id: &str, trial: u32) -> TrialDir {
        TrialDir {
            case_id: case_id.to_string(),
            trial,
            path: self.cases().join(case_id).join(format!("trial-{trial}")),
        }
    }

    /// Every `cases/<id>/trial-<k>` folder, sorted by case then trial number.
    pub fn trials(&self) -> Vec<TrialDir> {
        let mut out = Vec::new();
        let Ok(cases) = std::fs::read_dir(self.cases()) else {
            return out;
        };
        for case in cases.filter_map(Result::ok) {
            let Ok(trials) = std::fs::read_dir(case.path()) else {
                continue;
            };
            for t in trials.filter_map(Result::ok) {
                let name = t.file_name().to_string_lossy().into_owned();
                if let Some(k) = name.strip_prefix("trial-").and_then(|k| k.parse().ok()) {
                    out.push(TrialDir {
                        case_id: case.file_name().to_string_lossy().into_owned(),
                        trial: k,
                        path: t.path(),
                    });
                }
            }
        }
        out.sort_by(|a, b| (a.case_id.as_str(), a.trial).cmp(&(b.case_id.as_str(), b.trial)));
        out
    }
}

/// One trial's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrialDir {
    pub case_id: String,
    pub trial: u32,
    pub path: PathBuf,
}

impl TrialDir {
    /// The trial folder of `dir` without knowing its run (a runner handed a folder).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        TrialDir {
            case_id: String::new(),
            trial: 0,
            path: path.into(),
        }
    }

    /// The case as it ran, so `rescore` can re-judge without the dataset.
    pub fn case_file(&self) -> PathBuf {
        self.path.join("case.json")
    }

    pub fn events(&self) -> PathBuf {
        self.path.join("events.jsonl")
    }

    /// The events log while the trial runs; renamed to `events.jsonl` when it finishes.
    pub fn events_partial(&self) -> PathBuf {
        self.path.join("events.jsonl.partial")
    }

    pub fn verdict(&self) -> PathBuf {
        self.path.join("verdict.json")
    }

    /// True when the trial committed: verdict.json, written last and only after the trial's
    /// other files were made durable, exists. A folder without it is an unfinished trial.
    pub fn is_committed(&self) -> bool {
        self.verdict().is_file()
    }

    /// The final workspace copy, kept for checks and `rescore`.
    pub fn workspace_after(&self) -> PathBuf {
        self.path.join("workspace-after")
    }

    /// The path of this trial relative to its run folder (`cases/<id>/trial-<k>`).
    pub fn relative(&self) -> PathBuf {
        PathBuf::from("cases")
            .join(&self.case_id)
            .join(format!("trial-{}", self.trial))
    }

    /// The trial's events: `events.jsonl`, or the `.partial` log of a trial that never finished.
    pub fn read_events(&self) -> std::io::Result<Vec<crate::trial::Envelope>> {
        let done = self.events();
        let mut events = if done.is_file() {
            super::events_file::read_events(&done)
        } else {
            super::events_file::read_events(&self.events_partial())
        }?;
        // Logs written before envelopes carried their trial: the folder says which it is.
        for e in events.iter_mut().filter(|e| e.trial == 0) {
            e.trial = self.trial;
        }
        Ok(events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trials_sort_by_case_then_trial_number_and_newest_is_the_latest_id() {
        let state = tempfile::tempdir().unwrap();
        let run = RunDir::new(RunDir::runs_root(state.path()).join("20260101-000000-aaaa"));
        for (case, k) in [("b", 1), ("a", 10), ("a", 2)] {
            std::fs::create_dir_all(run.trial(case, k).path).unwrap();
        }
        std::fs::create_dir_all(RunDir::runs_root(state.path()).join("20250101-000000-zzzz")).unwrap();
        let order: Vec<(String, u32)> = run.trials().into_iter().map(|t| (t.case_id, t.trial)).collect();
        assert_eq!(order, [("a".into(), 2), ("a".into(), 10), ("b".into(), 1)]);
        assert_eq!(RunDir::newest(state.path()), Some(run.clone()));
        assert_eq!(run.trial("a", 2).relative(), PathBuf::from("cases/a/trial-2"));
        assert!(RunDir::newest(&state.path().join("nothing")).is_none());
    }
}
