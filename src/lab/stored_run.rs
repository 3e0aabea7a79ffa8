//! A stored run folder as the run screens see it (`ghostlab view`): the dashboard folded from
//! every trial's events.jsonl (or `.partial` of an interrupted trial), the typed results from
//! summary.json and the verdict files, and what `--json` dumps. Works on merged and rescored
//! runs, which have the same layout.

use schemars::JsonSchema;
use serde::Serialize;
use std::path::{Path, PathBuf};

use super::dashboard_state::{DashboardState, Filter, Nav, Screen, TrialKey};
use super::focus_transcript::TranscriptError;
use super::view_findings::ViewFindings;
use crate::app::RunResults;
use crate::app::run_results::{FirstFailure, ResultsError};
use crate::run::store::run_dir::RunDir;
use crate::trial::{Envelope, Verdict};

/// A run folder, loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    pub dashboard: DashboardState,
    /// `None` for a run that did not finish (no summary.json).
    pub results: Option<RunResults>,
}

/// Why a run folder cannot be shown.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoredRunError {
    #[error("{0}: not a run folder (no cases/)")]
    NotARun(PathBuf),
    #[error("{0}")]
    Results(#[from] ResultsError),
}

/// Which run `ghostlab view` opens: `given` as a folder, or as a run id under `runs_root`; with
/// nothing given, the newest run of the job.
pub(crate) fn pick_run(given: Option<&Path>, state_dir: &Path) -> Option<PathBuf> {
    match given {
        Some(p) if p.is_dir() => Some(p.to_path_buf()),
        Some(p) => Some(RunDir::runs_root(state_dir).join(p)).filter(|d| d.is_dir()),
        None => RunDir::newest(state_dir).map(|r| r.path().to_path_buf()),
    }
}

/// Loads a run folder; the results screen opens first when the run finished.
pub(crate) fn load_run(dir: &Path) -> Result<StoredRun, StoredRunError> {
    let run = RunDir::new(dir);
    if !run.has_cases() {
        return Err(StoredRunError::NotARun(dir.to_path_buf()));
    }
    let trials = run.trials();
    let mut dashboard = DashboardState::new(Some(trials.len()));
    dashboard.run_dir = Some(dir.to_path_buf());
    for t in &trials {
        // An unreadable log leaves its trial out of the table; its verdict still counts below.
        for env in t.read_events().unwrap_or_default() {
            dashboard.push(env);
        }
        if let Some((id, title)) = scenario_title(t) {
            dashboard.titles.entry(id).or_insert(title);
        }
    }
    let results = match RunResults::read(dir) {
        Ok(r) => Some(r),
        Err(ResultsError::Unfinished(_)) => None,
        Err(e) => return Err(e.into()),
    };
    if let Some(r) = &results {
        // A rescored run's verdicts differ from the ones its events recorded: the verdict files win.
        for row in &mut dashboard.rows {
            if let Some(t) = r.trials.iter().find(|t| t.case == row.case && t.trial == row.trial) {
                row.verdict = Some(t.verdict);
            }
        }
        dashboard.screen = Screen::Results;
    }
    Ok(StoredRun { dashboard, results })
}

/// The scenario id and title a trial's case.json states (the events name it by id only).
fn scenario_title(t: &crate::run::store::run_dir::TrialDir) -> Option<(String, String)> {
    let text = crate::util::bounded::read_bounded_string(&t.case_file(), crate::util::bounded::FileKind::State).ok()?;
    let spec: crate::trial::CaseSpec = serde_json::from_str(&text).ok()?;
    let s = spec.scenario;
    (!s.title.trim().is_empty()).then_some((s.id, s.title))
}

/// The stored events of one trial of the run in `run_dir` (events.jsonl, or the `.partial` log
/// of a trial still running or interrupted), for the transcript of a newly selected trial.
pub(crate) fn read_trial(run_dir: &Path, key: &TrialKey) -> Result<Vec<Envelope>, TranscriptError> {
    let trial = RunDir::new(run_dir).trial(&key.case, key.trial);
    trial.read_events().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => TranscriptError::NotOnDisk,
        _ => TranscriptError::Unreadable {
            trial: trial.path.clone(),
            source: e.into(),
        },
    })
}

/// Reads back the focused trial's earlier events when the dashboard asks for them.
pub(crate) fn fill_focus(dashboard: &mut DashboardState) {
    if let (Some(key), Some(dir)) = (dashboard.wants_transcript(), dashboard.run_dir.clone()) {
        let stored = read_trial(&dir, &key);
        dashboard.fill_transcript(&key, stored);
    }
}

/// The next verdict filter in `v`'s cycle: all → PASS → FAIL → INCONCLUSIVE → INFRA_ERROR → all.
pub(crate) fn next_verdict(v: Option<Verdict>) -> Option<Verdict> {
    match v {
        None => Some(Verdict::Pass),
        Some(Verdict::Pass) => Some(Verdict::Fail),
        Some(Verdict::Fail) => Some(Verdict::Inconclusive),
        Some(Verdict::Inconclusive) => Some(Verdict::InfraError),
        Some(Verdict::InfraError) => None,
    }
}

/// The next persona filter: all, then each persona of the run in first-seen order, then all.
pub(crate) fn next_persona(state: &DashboardState, current: Option<&str>) -> Option<String> {
    let mut personas: Vec<&str> = Vec::new();
    for r in &state.rows {
        if !personas.contains(&r.persona.as_str()) {
            personas.push(&r.persona);
        }
    }
    let at = current.and_then(|c| personas.iter().position(|p| *p == c));
    match at {
        None => personas.first().map(|p| p.to_string()),
        Some(i) => personas.get(i + 1).map(|p| p.to_string()),
    }
}

/// The `view --json` format version this build prints (2: summary.json's words, `trials`).
pub(crate) const VIEW_JSON_VERSION: u32 = 2;

/// One row of `view --json`: one trial.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct DumpRow {
    /// The case id, as summary.json's `cases[].case_id`.
    #[serde(rename = "case_id")]
    pub(crate) case: String,
    pub(crate) trial: u32,
    pub(crate) persona: String,
    pub(crate) scenario: String,
    pub(crate) turns: u32,
    pub(crate) verdict: Option<Verdict>,
    pub(crate) duration_ms: Option<u64>,
    pub(crate) first_failure: Option<FirstFailure>,
}

/// What `view --json` prints: the filter, the trials it lets through, and the results
/// (schemas/view.schema.json).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Dump<'a> {
    pub(crate) version: u32,
    pub(crate) run_dir: &'a Path,
    pub(crate) filter: DumpFilter<'a>,
    /// The trials the filter lets through, in table order.
    pub(crate) trials: Vec<DumpRow>,
    /// Absent (`null`) while the run has no summary.json.
    pub(crate) results: Option<&'a RunResults>,
    /// The job's contract findings and the shown trials' verdict findings, with decisions
    /// (`lab::view_findings`).
    pub(crate) findings: ViewFindings,
}

/// The filters `view` applied.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct DumpFilter<'a> {
    pub(crate) verdict: Option<Verdict>,
    pub(crate) persona: Option<&'a str>,
    pub(crate) text: &'a str,
}

impl StoredRun {
    /// Applies a move; a new search text is looked up in every trial's stored transcript (they
    /// are not kept in memory), and a newly selected trial's transcript is read back.
    pub(crate) fn navigate(&mut self, nav: Nav) {
        let d = &mut self.dashboard;
        if let (Nav::SetFilter(f), Some(dir)) = (&nav, &d.run_dir)
            && f.text != d.filter.text
        {
            d.text_hits = transcript_hits(dir, d, &f.text.to_lowercase());
        }
        d.navigate(nav);
        fill_focus(d);
    }

    /// The `--json` view of this run under its dashboard's filter.
    pub(crate) fn dump<'a>(&'a self, run_dir: &'a Path) -> Dump<'a> {
        let d = &self.dashboard;
        let f: &Filter = &d.filter;
        let cases = d
            .visible()
            .into_iter()
            .map(|i| {
                let r = &d.rows[i];
                let failure = self
                    .results
                    .as_ref()
                    .and_then(|res| res.trials.iter().find(|t| t.case == r.case && t.trial == r.trial))
                    .and_then(|t| t.first_failure.clone());
                DumpRow {
                    case: r.case.clone(),
                    trial: r.trial,
                    persona: r.persona.clone(),
                    scenario: r.scenario.clone(),
                    turns: r.turn,
                    verdict: r.verdict,
                    duration_ms: r.duration(),
                    first_failure: failure,
                }
            })
            .collect();
        Dump {
            version: VIEW_JSON_VERSION,
            run_dir,
            filter: DumpFilter {
                verdict: f.verdict,
                persona: f.persona.as_deref(),
                text: &f.text,
            },
            trials: cases,
            results: self.results.as_ref(),
            findings: ViewFindings::default(),
        }
    }
}

/// Rows whose stored transcript mentions `needle` (lowercase), in row order.
fn transcript_hits(dir: &Path, d: &DashboardState, needle: &str) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    (0..d.rows.len())
        .filter(|&i| {
            let key = TrialKey {
                case: d.rows[i].case.clone(),
                trial: d.rows[i].trial,
            };
            read_trial(dir, &key).is_ok_and(|events| {
                events
                    .iter()
                    .any(|e| e.event.one_line().to_lowercase().contains(needle))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    fn first_trial() -> TrialKey {
        TrialKey {
            case: "c1".into(),
            trial: 1,
        }
    }

    #[test]
    fn a_trial_with_no_log_yet_is_not_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_trial(dir.path(), &first_trial()).unwrap_err();
        assert_eq!(e, TranscriptError::NotOnDisk);
        assert_eq!(e.to_string(), "not on disk yet");
    }

    #[test]
    fn a_corrupt_log_names_its_file_and_line_and_keeps_the_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let trial = RunDir::new(dir.path()).trial("c1", 1);
        std::fs::create_dir_all(&trial.path).unwrap();
        std::fs::write(trial.events(), "not json\n{}\n").unwrap();
        let e = read_trial(dir.path(), &first_trial()).unwrap_err();
        assert!(
            matches!(&e, TranscriptError::Unreadable { trial: t, .. } if *t == trial.path),
            "{e:?}"
        );
        let shown = e.to_string();
        assert!(
            shown.starts_with(&format!("{}: line 1:", trial.events().display())),
            "{shown}"
        );
        assert_eq!(
            e.source().map(|s| s.to_string()),
            Some(shown),
            "the io error is the source"
        );
    }

    #[test]
    fn a_partial_log_that_is_not_a_file_is_unreadable_not_missing() {
        let dir = tempfile::tempdir().unwrap();
        let trial = RunDir::new(dir.path()).trial("c1", 1);
        std::fs::create_dir_all(trial.events_partial()).unwrap();
        let e = read_trial(dir.path(), &first_trial()).unwrap_err();
        assert!(matches!(e, TranscriptError::Unreadable { .. }), "{e:?}");
        assert!(
            e.to_string().contains(&trial.events_partial().display().to_string()),
            "{e}"
        );
    }
}
