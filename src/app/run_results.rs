//! The typed result of a finished run, read from its folder: gates (required vs actual),
//! verdict counts, readiness, every trial's verdict with the first failing criterion and its
//! evidence, and the report files. The lab's exit code, its results screen, `lab --yes`'s text
//! and `ghostlab view` all read this one value; nothing parses a summary line back.
//!
//! Serialized (in `view --json`) with summary.json's words for the same data: `summary` for the
//! counts, `gates` with numeric `threshold`/`value`/`unit`, `case_id` for a case.

use schemars::JsonSchema;
use serde::Serialize;
use std::path::{Path, PathBuf};

use crate::judge::case_verdict::VerdictFile;
use crate::judge::verdict::{Answer, CheckOutcome};
use crate::judge::{GateResult, Summary};
use crate::run::store::run_dir::RunDir;
use crate::run::suite::{SuiteSummary, read_verdict};
use crate::trial::{CaseSpec, Verdict};

/// Whether the agent may ship (the report's rule, `report::readiness`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ReadinessLine {
    pub ready: bool,
    pub label: String,
    pub reasons: Vec<String>,
}

/// Why a trial did not pass: the first violated criterion, failed check or stated reason.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FirstFailure {
    /// `s1`, `f2`, a check name, or `reason`.
    pub criterion: String,
    pub text: String,
    /// The judge's quoted evidence, a check's detail, or the reason itself.
    pub evidence: Vec<String>,
}

/// One trial's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct TrialResult {
    /// The case id, as summary.json's `cases[].case_id`.
    #[serde(rename = "case_id")]
    pub case: String,
    pub trial: u32,
    pub persona: String,
    pub scenario: String,
    pub verdict: Verdict,
    pub duration_ms: u64,
    /// `None` for a PASS.
    pub first_failure: Option<FirstFailure>,
    /// Every criterion was answered from the evidence, none by a judge.
    pub by_evidence: bool,
}

/// Everything a finished run states.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RunResults {
    pub run_id: String,
    /// The one summary line, the same words as `ghostlab test` (`SuiteSummary`'s `Display`).
    pub line: String,
    pub run_dir: PathBuf,
    /// Verdict counts and rates: summary.json's `summary`.
    #[serde(rename = "summary")]
    pub counts: Summary,
    pub gates: Vec<GateResult>,
    pub gates_met: bool,
    pub readiness: ReadinessLine,
    pub trials: Vec<TrialResult>,
    /// Report files that exist (md, html, pdf), in that order.
    pub reports: Vec<PathBuf>,
    /// Why the report could not be written, when it could not (the run still stands).
    pub report_error: Option<String>,
}

/// Why a run folder cannot be read as a finished run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ResultsError {
    #[error("{0}: no summary.json; the run did not finish (`ghostlab test --resume` continues it)")]
    Unfinished(PathBuf),
    #[error("{path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    /// A run file of another format version (`run::stored_versions`).
    #[error("{0}")]
    Format(#[from] crate::util::format_version::FormatVersionError),
}

impl RunResults {
    /// Reads a finished run folder: summary.json, then each trial's verdict.json and case.json.
    pub(crate) fn read(run_dir: &Path) -> Result<RunResults, ResultsError> {
        crate::run::results::stored_versions::check_stored_run(run_dir)?;
        let run = RunDir::new(run_dir);
        let path = run.summary();
        let text = match crate::util::bounded::read_bounded_string(&path, crate::util::bounded::FileKind::State) {
            Ok(text) => text,
            Err(e) if e.is_not_found() => return Err(ResultsError::Unfinished(run_dir.to_path_buf())),
            Err(e) => {
                return Err(ResultsError::Unreadable {
                    path: path.clone(),
                    reason: e.reason(),
                });
            }
        };
        let summary: SuiteSummary = serde_json::from_str(&text).map_err(|e| ResultsError::Unreadable {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        Ok(RunResults::of(&run, &summary, existing_reports(run_dir), None))
    }

    /// The results of a summary just computed, plus the trials' files in `run`.
    pub(crate) fn of(
        run: &RunDir,
        summary: &SuiteSummary,
        reports: Vec<PathBuf>,
        report_error: Option<String>,
    ) -> Self {
        let r = crate::report::readiness(Some(summary));
        let trials = run
            .trials()
            .into_iter()
            .filter_map(|t| {
                let v = read_verdict(&t.verdict())?;
                let spec: Option<CaseSpec> =
                    crate::util::bounded::read_bounded_string(&t.case_file(), crate::util::bounded::FileKind::State)
                        .ok()
                        .and_then(|s| serde_json::from_str(&s).ok());
                Some(trial_result(&v, spec.as_ref()))
            })
            .collect();
        RunResults {
            run_id: summary.run_id.clone(),
            line: summary.to_string(),
            run_dir: run.path().to_path_buf(),
            counts: summary.summary.clone(),
            gates: summary.gates.clone(),
            gates_met: summary.gates_met,
            readiness: ReadinessLine {
                ready: r.ready,
                label: r.label,
                reasons: r.reasons,
            },
            trials,
            reports,
            report_error,
        }
    }

    /// The HTML report, when one was written.
    pub(crate) fn html_report(&self) -> Option<&Path> {
        self.reports
            .iter()
            .find(|p| p.extension().is_some_and(|x| x == "html"))
            .map(PathBuf::as_path)
    }

    /// The results as plain text lines: what `ghostlab test` and `lab --yes` print and the
    /// results screen shows. The one results text: no command writes its own.
    pub(crate) fn text_lines(&self) -> Vec<String> {
        let mut out = vec![self.line.clone()];
        if !self.counts.flaky_cases.is_empty() {
            out.push(format!("flaky: {}", self.counts.flaky_cases.join(", ")));
        }
        out.push(format!("readiness: {}", self.readiness.label));
        out.extend(self.readiness.reasons.iter().map(|r| format!("  {r}")));
        if !self.gates.is_empty() {
            out.push("gates:".into());
        }
        for g in &self.gates {
            let mark = if g.met { "met" } else { "NOT met" };
            out.push(format!(
                "  {:<28} required {:<10} actual {:<10} {mark}",
                g.gate, g.required, g.actual
            ));
        }
        for t in self
            .trials
            .iter()
            .filter(|t| t.verdict == Verdict::Pass && t.by_evidence)
        {
            out.push(format!(
                "PASS {} trial {} (every criterion settled by evidence, no judge)",
                t.case, t.trial
            ));
        }
        for t in self.trials.iter().filter(|t| t.verdict != Verdict::Pass) {
            let how = if t.by_evidence { " (settled by evidence)" } else { "" };
            out.push(format!("{} {} trial {}{how}", t.verdict.as_str(), t.case, t.trial));
            if let Some(f) = &t.first_failure {
                out.push(format!("  {}: {}", f.criterion, f.text));
                out.extend(f.evidence.iter().take(2).map(|e| format!("    evidence: {e}")));
            }
        }
        for p in &self.reports {
            out.push(format!("report {}", p.display()));
        }
        if let Some(e) = &self.report_error {
            out.push(format!("report not written: {e}"));
        }
        out
    }
}

/// The run folder's report files that exist, in md, html, pdf order.
pub(crate) fn existing_reports(run_dir: &Path) -> Vec<PathBuf> {
    ["report.md", "report.html", "report.pdf"]
        .iter()
        .map(|n| run_dir.join(n))
        .filter(|p| p.is_file())
        .collect()
}

fn trial_result(v: &VerdictFile, spec: Option<&CaseSpec>) -> TrialResult {
    TrialResult {
        case: v.case.clone(),
        trial: v.trial,
        persona: spec.map(|s| s.persona.id.clone()).unwrap_or_default(),
        scenario: spec.map(|s| s.scenario.id.clone()).unwrap_or_default(),
        verdict: v.verdict,
        duration_ms: v.duration_ms,
        first_failure: first_failure(v),
        by_evidence: crate::judge::evidence_criteria::all_by_evidence(&v.criteria),
    }
}

/// What made a trial not pass, most specific first: a violated criterion, a failed or errored
/// check, an unanswered criterion, then the verdict's first stated reason.
pub(crate) fn first_failure(v: &VerdictFile) -> Option<FirstFailure> {
    if v.verdict == Verdict::Pass {
        return None;
    }
    let violated = v.criteria.iter().find_map(|c| match &c.answer {
        Answer::Violated { evidence, rationale } => Some(FirstFailure {
            criterion: c.id.clone(),
            text: c.text.clone(),
            // Evidence answers say which check settled them; event ids alone would not.
            evidence: if evidence.is_empty() || c.by_evidence {
                vec![rationale.clone()]
            } else {
                evidence.clone()
            },
        }),
        _ => None,
    });
    let check = || {
        v.checks.iter().find_map(|c| match &c.outcome {
            CheckOutcome::Failed { detail }
            | CheckOutcome::Errored { detail }
            | CheckOutcome::NotObservable { detail } => Some(FirstFailure {
                criterion: c.name.clone(),
                text: "check did not pass".into(),
                evidence: vec![detail.clone()],
            }),
            CheckOutcome::Passed { .. } => None,
        })
    };
    let unanswered = || {
        v.criteria.iter().find_map(|c| match &c.answer {
            Answer::Unanswered { reason } => Some(FirstFailure {
                criterion: c.id.clone(),
                text: c.text.clone(),
                evidence: vec![reason.clone()],
            }),
            _ => None,
        })
    };
    let reason = || {
        v.reasons.first().map(|r| FirstFailure {
            criterion: "reason".into(),
            text: r.clone(),
            evidence: Vec::new(),
        })
    };
    violated.or_else(check).or_else(unanswered).or_else(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished run's results as `ghostlab test` and `lab --yes` both print them.
    fn results(flaky: &[&str], report_error: Option<&str>) -> RunResults {
        RunResults {
            run_id: "r1".into(),
            line: "2 case(s), 4 trial(s): 3 PASS, 1 FAIL, 0 INCONCLUSIVE, 0 INFRA_ERROR · gates NOT met".into(),
            run_dir: PathBuf::from("/runs/r1"),
            counts: Summary {
                flaky_cases: flaky.iter().map(|s| s.to_string()).collect(),
                ..Summary::default()
            },
            gates: vec![GateResult {
                gate: "min_pass_rate".into(),
                required: "≥ 90.0%".into(),
                actual: "75.0%".into(),
                met: false,
                figures: None,
            }],
            gates_met: false,
            readiness: ReadinessLine {
                ready: false,
                label: "NOT READY".into(),
                reasons: vec!["gate min_pass_rate not met".into()],
            },
            trials: Vec::new(),
            reports: vec![PathBuf::from("/runs/r1/report.md")],
            report_error: report_error.map(str::to_string),
        }
    }

    #[test]
    fn the_results_text_names_flaky_cases_after_the_summary_line() {
        let lines = results(&["c1", "c2"], None).text_lines();
        assert_eq!(
            lines[0],
            "2 case(s), 4 trial(s): 3 PASS, 1 FAIL, 0 INCONCLUSIVE, 0 INFRA_ERROR · gates NOT met"
        );
        assert_eq!(lines[1], "flaky: c1, c2");
        assert_eq!(lines[2], "readiness: NOT READY");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("min_pass_rate") && l.ends_with("NOT met")),
            "{lines:?}"
        );
        assert_eq!(lines.last().unwrap(), "report /runs/r1/report.md");
    }

    #[test]
    fn no_flaky_line_without_flaky_cases_and_a_report_error_is_said() {
        let lines = results(&[], Some("printpdf failed")).text_lines();
        assert!(!lines.iter().any(|l| l.starts_with("flaky")), "{lines:?}");
        assert_eq!(lines.last().unwrap(), "report not written: printpdf failed");
    }
}
