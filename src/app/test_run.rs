//! Running a job's suite end to end, once for every front end (`ghostlab test`, the lab):
//! select the cases, pick the run folder, start the agent's scripted model if asked, write the
//! manifest, run every trial into the given sinks (with run-level start and finish events),
//! aggregate summary.json and junit.xml, then write the report (the PDF only when asked).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::judge::facts::job_contract_facts;
use crate::report::{ReportError, ReportOutputs};
use crate::run::case::dataset_cases::{Selection, load_cases};
use crate::run::setup::{context, start_agent_model};
use crate::run::store::manifest::Manifest;
use crate::run::store::run_dir::RunDir;
use crate::run::suite::{SuiteOptions, SuiteSummary, run_suite};
use crate::spec::LoadedJob;
use crate::trial::{Sinks, SuiteEvent};

/// Everything a suite run needs, resolved from arguments or wizard answers.
#[derive(Debug, Clone)]
pub(crate) struct TestSettings {
    pub(crate) job: LoadedJob,
    pub(crate) selection: Selection,
    /// Trials per case.
    pub(crate) repeat: u32,
    /// Cases running at once.
    pub(crate) parallel: usize,
    /// The run folder; `None` is a fresh one, or the newest one when resuming.
    pub(crate) run_dir: Option<PathBuf>,
    /// Reuse trials already judged in the run folder.
    pub(crate) resume: bool,
    /// Serve the agent's model from this cassette through a local model server.
    pub(crate) agent_cassette: Option<PathBuf>,
    /// A PDF path other than the run folder's `report.pdf` (implies `write_pdf`).
    pub(crate) pdf: Option<PathBuf>,
    /// Render the PDF report too; it is about half of a short run's CPU, so only when asked.
    pub(crate) write_pdf: bool,
}

impl TestSettings {
    /// Every approved case of `job`, once, four at a time, in a fresh run folder.
    pub(crate) fn new(job: LoadedJob) -> Self {
        TestSettings {
            job,
            selection: Selection::default(),
            repeat: 1,
            parallel: 4,
            run_dir: None,
            resume: false,
            agent_cassette: None,
            pdf: None,
            write_pdf: false,
        }
    }
}

/// Why a suite could not run. Each keeps the path or the cause it is about.
#[derive(Debug, thiserror::Error)]
pub enum TestRunError {
    #[error("{job}: {reason}")]
    Cases {
        job: PathBuf,
        #[source]
        reason: crate::run::case::dataset_cases::CasesError,
    },
    #[error("no cases selected")]
    NoCases,
    #[error("--resume: no run under {0}")]
    NoRunToResume(PathBuf),
    #[error("{0}")]
    Facts(#[from] crate::judge::facts::FactsError),
    #[error("{0}")]
    Setup(#[from] crate::run::setup::SetupError),
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Suite(std::io::Error),
    #[error("{0}")]
    Busy(#[from] crate::util::folder_lock::LockError),
    #[error("{0}")]
    SecretInName(#[from] crate::redact::SecretInName),
    #[error("--run {}: {reason}", path.display())]
    NotARunFolder {
        path: PathBuf,
        #[source]
        reason: crate::run::store::run_dir::NotARunFolder,
    },
}

/// What a finished suite run left behind.
#[derive(Debug)]
pub(crate) struct TestOutcome {
    pub(crate) run: RunDir,
    pub(crate) summary: SuiteSummary,
    /// Requests the agent's scripted model had no answer for.
    pub(crate) unmatched_model_requests: Vec<String>,
    /// The report files written, or why the report could not be written (the run stands).
    pub(crate) report: Result<Vec<PathBuf>, ReportError>,
}

/// The run folder the settings name: the given one, the newest when resuming, else a fresh one.
pub(crate) fn resolve_run_dir(settings: &TestSettings) -> Result<RunDir, TestRunError> {
    let state = settings.job.state_dir();
    match (&settings.run_dir, settings.resume) {
        (Some(d), _) => {
            crate::run::store::run_dir::check_run_folder(d).map_err(|reason| TestRunError::NotARunFolder {
                path: d.clone(),
                reason,
            })?;
            Ok(RunDir::new(d))
        }
        (None, true) => RunDir::newest(&state).ok_or_else(|| TestRunError::NoRunToResume(RunDir::runs_root(&state))),
        (None, false) => Ok(RunDir::fresh(&state)),
    }
}

/// Writes the run's report on the blocking pool: reading every trial and writing the critiques
/// (and the PDF when asked) takes long enough to stall the other tasks on a runtime worker,
/// the lab's screen among them.
async fn write_report_off_runtime(
    job: &LoadedJob,
    run_dir: &Path,
    outputs: ReportOutputs,
) -> Result<Vec<PathBuf>, ReportError> {
    let (job, at) = (job.clone(), run_dir.to_path_buf());
    match tokio::task::spawn_blocking(move || crate::report::write_all(&job, &at, &outputs)).await {
        Ok(written) => written,
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => Err(ReportError::Write {
                path: run_dir.to_path_buf(),
                source: std::io::Error::other(e),
            }),
        },
    }
}

/// Runs the selected cases of the job into `sinks` and writes every artifact of the run.
pub(crate) async fn run_tests(settings: &TestSettings, sinks: Sinks) -> Result<TestOutcome, TestRunError> {
    let job = &settings.job;
    let state = job.state_dir();
    let cases = load_cases(&state, &settings.selection).map_err(|reason| TestRunError::Cases {
        job: job.file.clone(),
        reason,
    })?;
    if cases.is_empty() {
        return Err(TestRunError::NoCases);
    }
    let run = resolve_run_dir(settings)?;
    let facts = job_contract_facts(job)?;
    let agent_model = match &settings.agent_cassette {
        Some(c) => Some(start_agent_model(c).await?),
        None => None,
    };
    let mut ctx = context(job.clone(), run.path(), agent_model.as_ref(), sinks.clone()).await?;
    // Ids and names key every row and file: no token pattern may rewrite them, and one that
    // holds a known secret is refused before the run starts.
    ctx.redactor.protect(cases.iter().flat_map(|c| c.structural_names()))?;
    // One command per run folder (taken once the run can start, so a refused start leaves
    // no folder): two resumes of one run would each run the missing trials.
    std::fs::create_dir_all(run.path()).map_err(|source| TestRunError::Write {
        path: run.path().to_path_buf(),
        source,
    })?;
    let _lock = crate::util::folder_lock::try_lock_folder(run.path())?;
    let ids: Vec<String> = cases.iter().map(|c| c.id.clone()).collect();
    let manifest = Manifest::new(
        job,
        &run.id(),
        ids.clone(),
        settings.repeat,
        settings.selection.partition,
        ctx.emulator.label(),
        ctx.judge.label(),
    );
    crate::util::write_json_atomic(&run.manifest(), &manifest).map_err(|source| TestRunError::Write {
        path: run.manifest(),
        source,
    })?;
    sinks.send(&SuiteEvent::RunStarted {
        run_id: run.id(),
        cases: ids,
        repeat: settings.repeat,
    });
    let opts = SuiteOptions {
        repeat: settings.repeat,
        parallel: settings.parallel,
        resume: settings.resume,
    };
    let summary = run_suite(Arc::new(ctx), cases, &opts, run.path(), facts).await;
    let mut unmatched_model_requests = Vec::new();
    if let Some(m) = agent_model {
        unmatched_model_requests = m.server.unmatched();
        m.server.shutdown().await;
    }
    let summary = summary.map_err(TestRunError::Suite)?;
    sinks.send(&SuiteEvent::RunFinished {
        run_id: run.id(),
        verdicts: summary.cases.iter().flat_map(|c| c.trials.iter().copied()).collect(),
        gates_met: summary.gates_met,
    });
    let mut outputs = ReportOutputs::defaults(run.path());
    outputs.pdf = match &settings.pdf {
        Some(pdf) => Some(pdf.clone()),
        None if settings.write_pdf => outputs.pdf,
        None => None,
    };
    let report = write_report_off_runtime(job, run.path(), outputs).await;
    Ok(TestOutcome {
        run,
        summary,
        unmatched_model_requests,
        report,
    })
}
