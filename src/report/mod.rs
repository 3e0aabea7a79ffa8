//! The rollout report: one document (Markdown, self-contained HTML, PDF) assembling a run's
//! configuration, generated personas and scenarios, transcripts, verdicts, critique and gates.
//!
//! The model is built once from artifacts ([`build_report`]) and every renderer formats only
//! that model. Redaction happens while building it and again on each rendered text, so no
//! renderer can leak a secret; the HTML never references anything outside its own file.

mod assemble;
pub mod chart;
mod config;
mod critique;
mod decided;
mod digest;
mod error;
mod generated;
mod html;
mod markdown;
mod model;
mod observed_rows;
mod pdf;
mod profile_model;
mod profile_section;
mod read;
pub(crate) mod role_spend;
mod section;
pub(crate) mod spend;
mod summary;
mod tables;
pub mod timing;
mod transcript_view;
mod trial_model;

pub use assemble::{build_report, build_report_with};
pub use error::ReportError;
pub use html::render_html;
pub(crate) use markdown::render_critique_markdown;
pub use markdown::render_markdown;
pub use model::*;
pub use pdf::render_pdf;
pub(crate) use summary::readiness;

use std::path::{Path, PathBuf};

use crate::redact::Redactor;
use crate::run::store::run_dir::RunDir;
use crate::spec::LoadedJob;

/// Where to write each format; `None` skips it.
#[derive(Debug, Clone, Default)]
pub struct ReportOutputs {
    pub markdown: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub pdf: Option<PathBuf>,
}

impl ReportOutputs {
    /// `report.md`, `report.html` and `report.pdf` inside the run folder.
    pub fn defaults(run_dir: &Path) -> Self {
        ReportOutputs {
            markdown: Some(run_dir.join("report.md")),
            html: Some(run_dir.join("report.html")),
            pdf: Some(run_dir.join("report.pdf")),
        }
    }
}

/// The newest run folder under `<state_dir>/runs/` (run ids sort by time).
pub(crate) fn latest_run(job: &LoadedJob) -> Result<PathBuf, ReportError> {
    let state = job.state_dir();
    RunDir::newest(&state)
        .map(|r| r.path().to_path_buf())
        .ok_or_else(|| ReportError::NoRuns(RunDir::runs_root(&state)))
}

/// Builds the report of `run_dir` and writes every requested format, plus `critique.md` in
/// the run folder and in each trial folder (left as it is when unchanged). Returns the files
/// written.
pub fn write_all(job: &LoadedJob, run_dir: &Path, outputs: &ReportOutputs) -> Result<Vec<PathBuf>, ReportError> {
    let redactor = assemble::redactor_for_report(job);
    let report = build_report_with(job, run_dir, &redactor)?;
    write_report(&report, run_dir, outputs, &redactor)
}

/// Writes an already built report (the same redactor must mask the rendered texts again).
pub(crate) fn write_report(
    report: &Report,
    run_dir: &Path,
    outputs: &ReportOutputs,
    redactor: &Redactor,
) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    put(
        &mut written,
        &run_dir.join("critique.md"),
        redactor.redact(&render_critique_markdown(report, None)).as_bytes(),
    )?;
    written.extend(write_trial_critiques(report, run_dir, redactor)?);
    if let Some(p) = &outputs.markdown {
        put(&mut written, p, redactor.redact(&render_markdown(report)).as_bytes())?;
    }
    if let Some(p) = &outputs.html {
        put(&mut written, p, redactor.redact(&render_html(report)).as_bytes())?;
    }
    if let Some(p) = &outputs.pdf {
        put(&mut written, p, &render_pdf(report, redactor)?)?;
    }
    crate::util::durable::sync_files(&written).map_err(|source| ReportError::Write {
        path: run_dir.to_path_buf(),
        source,
    })?;
    Ok(written)
}

/// Writes one regenerable file (atomic against a kill now, made durable with the others at the
/// end of `write_report`) and lists it in `written`.
fn put(written: &mut Vec<PathBuf>, path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let failed = |source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    crate::util::durable::write_replace(path, bytes).map_err(failed)?;
    written.push(path.to_path_buf());
    Ok(())
}

/// Each trial folder's `critique.md`, rendered and written on a few threads (a run of
/// thousands of trials is otherwise one thread's loop of renders, creates and renames). A
/// critique already on disk with the same bytes is not rewritten (a re-rendered report), so
/// only the files written are returned, for the final sync. A trial folder that is gone is
/// skipped; the first error is returned, after every share has run.
fn write_trial_critiques(report: &Report, run_dir: &Path, redactor: &Redactor) -> Result<Vec<PathBuf>, ReportError> {
    let run = RunDir::new(run_dir);
    let written = crate::util::blocking::map_in_shares(&report.trials, CRITIQUES_PER_WRITER, |i, t| {
        let dir = run.trial(&t.case_id, t.trial).path;
        if !dir.is_dir() {
            return Ok(None);
        }
        let path = dir.join("critique.md");
        let text = redactor.redact(&render_critique_markdown(report, Some(i))).into_owned();
        match crate::util::durable::write_replace_if_changed(&path, text.as_bytes()) {
            Ok(wrote) => Ok(wrote.then_some(path)),
            Err(source) => Err(ReportError::Write { path, source }),
        }
    });
    written.into_iter().filter_map(Result::transpose).collect()
}

/// Below this many trials per thread a writer thread's start costs more than it saves.
const CRITIQUES_PER_WRITER: usize = 32;
