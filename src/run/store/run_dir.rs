//! The layout of a run folder, in one place:
//!
//! ```text
//! <state>/runs/<run-id>/            RunDir
//!   manifest.json summary.json junit.xml logs/
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
    pub(crate) fn runs_root(state_dir: &Path) -> PathBuf {
        state_dir.join("runs")
    }

    /// A fresh run folder under the job's state folder (not created yet).
    pub(crate) fn fresh(state_dir: &Path) -> Self {
        RunDir::new(Self::runs_root(state_dir).join(crate::run::store::manifest::new_run_id()))
    }

    /// The most recent run under the job's state folder (run ids sort by time).
    pub(crate) fn newest(state_dir: &Path) -> Option<Self> {
        Self::newest_where(state_dir, |_| true)
    }

    /// The most recent run under the job's state folder that `keep` accepts: the one rule for
    /// "the latest run", whatever a caller asks of it.
    pub(crate) fn newest_where(state_dir: &Path, keep: impl Fn(&RunDir) -> bool) -> Option<Self> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(Self::runs_root(state_dir))
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        dirs.into_iter().rev().map(RunDir::new).find(|r| keep(r))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The run id: the folder's name.
    pub(crate) fn id(&self) -> String {
        self.path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    pub(crate) fn manifest(&self) -> PathBuf {
        self.path.join("manifest.json")
    }

    pub(crate) fn summary(&self) -> PathBuf {
        self.path.join("summary.json")
    }

    pub(crate) fn junit(&self) -> PathBuf {
        self.path.join("junit.xml")
    }

    /// Sandbox session logs.
    pub(crate) fn logs(&self) -> PathBuf {
        self.path.join("logs")
    }

    /// `cases/`, the parent of every trial folder.
    pub(crate) fn cases(&self) -> PathBuf {
        self.path.join("cases")
    }

    /// True when the folder holds trials (`cases/` exists).
    pub(crate) fn has_cases(&self) -> bool {
        self.cases().is_dir()
    }

    /// The folder of one trial (it may not exist yet).
    pub(crate) fn trial(&self, case_id: &str, trial: u32) -> TrialDir {
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

    /// The agent host's stdout and stderr of every turn command (redacted, bounded).
    pub(crate) fn host_log(&self) -> PathBuf {
        self.path.join("agent-host.log")
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
    pub(crate) fn workspace_after(&self) -> PathBuf {
        self.path.join("workspace-after")
    }

    /// The path of this trial relative to its run folder (`cases/<id>/trial-<k>`).
    pub(crate) fn relative(&self) -> PathBuf {
        PathBuf::from("cases")
            .join(&self.case_id)
            .join(format!("trial-{}", self.trial))
    }

    /// The trial's events: `events.jsonl`, or the `.partial` log of a trial that never finished.
    pub fn read_events(&self) -> std::io::Result<Vec<crate::trial::Envelope>> {
        let done = self.events();
        let mut events = if done.is_file() {
            crate::run::store::events_file::read_events(&done)
        } else {
            crate::run::store::events_file::read_events(&self.events_partial())
        }?;
        // Logs written before envelopes carried their trial: the folder says which it is.
        for e in events.iter_mut().filter(|e| e.trial == 0) {
            e.trial = self.trial;
        }
        Ok(events)
    }
}

/// Why a folder given with `--run` cannot hold a run (the caller names the folder).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotARunFolder {
    /// `real` is the folder with links resolved: where the run would really land.
    #[error("{} is in a system folder; Ghostlab never writes a run there", real.display())]
    SystemFolder { real: PathBuf },
    #[error("exists and is not a folder")]
    NotAFolder,
    /// `name` is the first entry that is not Ghostlab's own.
    #[error(
        "holds `{name}` but no manifest.json: it is not a Ghostlab run folder, and a run would overwrite files in it"
    )]
    Foreign { name: String },
}

/// Why `dir` cannot be used as a run folder given with `--run`, if it cannot: a system
/// folder, or an existing folder holding files but no manifest.json (the user's own folder:
/// a run would overwrite their report.md and summary.json). Missing, empty, or Ghostlab's
/// own run folders (a manifest, or only `.ghostlab-*` entries left by a killed start) are fine.
pub(crate) fn check_run_folder(dir: &Path) -> Result<(), NotARunFolder> {
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let lexical = crate::spec::relative_path::normalize(&abs);
    // The nearest existing ancestor decides where the run would really land.
    let mut existing = lexical.as_path();
    while !existing.exists() {
        match existing.parent() {
            Some(p) => existing = p,
            None => break,
        }
    }
    let resolved = std::fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
    // Joined only when something is left: joining "" adds a trailing `/`, and a file named
    // with one reads as missing (so was taken for a folder made on start).
    let real = match lexical.strip_prefix(existing) {
        Ok(rest) if !rest.as_os_str().is_empty() => resolved.join(rest),
        _ => resolved,
    };
    if crate::spec::path_policy::is_system_path(&real) || crate::spec::path_policy::is_system_path(&lexical) {
        return Err(NotARunFolder::SystemFolder { real });
    }
    let Ok(entries) = std::fs::read_dir(&real) else {
        return match std::fs::symlink_metadata(&real) {
            Ok(_) => Err(NotARunFolder::NotAFolder),
            Err(_) => Ok(()), // made on start
        };
    };
    if real.join("manifest.json").is_file() {
        return Ok(());
    }
    let foreign = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|name| !name.starts_with(".ghostlab"));
    match foreign {
        Some(name) => Err(NotARunFolder::Foreign { name }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_folders_that_are_not_ghostlabs_are_refused() {
        let d = tempfile::tempdir().unwrap();
        assert!(check_run_folder(&d.path().join("new")).is_ok());
        assert!(check_run_folder(d.path()).is_ok(), "empty");
        std::fs::write(d.path().join(".ghostlab-lock"), "").unwrap();
        assert!(check_run_folder(d.path()).is_ok(), "only our lock");
        std::fs::write(d.path().join("report.md"), "mine").unwrap();
        let e = check_run_folder(d.path()).unwrap_err();
        assert_eq!(
            e,
            NotARunFolder::Foreign {
                name: "report.md".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "holds `report.md` but no manifest.json: it is not a Ghostlab run folder, and a run would overwrite files in it"
        );
        std::fs::write(d.path().join("manifest.json"), "{}").unwrap();
        assert!(check_run_folder(d.path()).is_ok(), "a run folder");
        for system in ["/etc/ghostlab-new-run", "/usr", "/", "/proc/self", "/sys/x"] {
            assert!(
                matches!(
                    check_run_folder(Path::new(system)),
                    Err(NotARunFolder::SystemFolder { .. })
                ),
                "{system}"
            );
        }
        std::os::unix::fs::symlink("/etc", d.path().join("link")).unwrap();
        let linked = check_run_folder(&d.path().join("link/new")).unwrap_err();
        assert_eq!(
            linked.to_string(),
            "/etc/new is in a system folder; Ghostlab never writes a run there"
        );
        let file = d.path().join("a-file");
        std::fs::write(&file, "").unwrap();
        assert_eq!(check_run_folder(&file), Err(NotARunFolder::NotAFolder));
    }

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
