//! Executing effects for either driver: proposals, discovery and the run go to tokio tasks that
//! answer on the one event channel; saves happen at once, atomically.
//!
//! Nothing here draws; the TUI and the headless driver both own one `Executor`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::findings_review::FindingsEvent;
use super::propose::StepProposer;
use super::shared_error::Shared;
use super::spawned_work::{spawn_discovery, spawn_proposal, spawn_run};
use super::state::{DiscoveryError, Effect, Event};
use super::step::StepId;
use super::store::{self, StoreError};
use super::traits::{McpDiscovery, SuiteRunner};
use crate::generate::store::write_artifact;
use crate::generate::{ArtifactKind, Dataset, ScenarioSet};
use crate::spec::Job;

/// Errors the wizard cannot continue after.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error("failed to save {path}: {source}")]
    SaveJob { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("failed to save the scenarios' review: {0}")]
    Curation(#[source] crate::generate::GenerateError),
    /// The job now names a state folder another command holds.
    #[error("{0}")]
    StateBusy(#[from] crate::util::folder_lock::LockError),
}

/// Performs effects and reports results as events on one channel.
pub struct Executor {
    pub(crate) proposer: StepProposer,
    pub(crate) discovery: Arc<dyn McpDiscovery>,
    pub(crate) runner: Arc<dyn SuiteRunner>,
    tx: UnboundedSender<Event>,
    work: CancellationToken,
    run: CancellationToken,
    /// `<state_dir>/lab`, following the job's `paths.state_dir` as saved.
    lab_dir: PathBuf,
    /// Locks of state folders this lab moved to after it started (a saved job with another
    /// `paths.state_dir`); the one the command locked first is held by the command.
    state_locks: Vec<crate::util::folder_lock::FolderLock>,
}

impl Executor {
    /// An executor answering on `tx`.
    pub fn new(
        proposer: StepProposer,
        discovery: Arc<dyn McpDiscovery>,
        runner: Arc<dyn SuiteRunner>,
        tx: UnboundedSender<Event>,
    ) -> Self {
        Executor {
            proposer,
            discovery,
            runner,
            tx,
            work: CancellationToken::new(),
            run: CancellationToken::new(),
            lab_dir: PathBuf::new(),
            state_locks: Vec::new(),
        }
        .with_lab_dir()
    }

    fn with_lab_dir(mut self) -> Self {
        let on_disk =
            crate::util::bounded::read_bounded_string(&self.job_file(), crate::util::bounded::FileKind::Config)
                .ok()
                .and_then(|t| crate::spec::parse_job_text(&self.job_file(), &t).ok())
                .unwrap_or_default();
        self.lab_dir = store::lab_dir(&self.job_file(), &on_disk);
        self
    }

    /// Takes the lock of the state folder `lab_dir` lies in unless this process holds it
    /// already: the lab writes its proposals, artifacts and job only into a state folder it
    /// holds, so a job whose `paths.state_dir` differs from the one the command locked (an
    /// import at Step 1, an edit, a job.yaml on disk that names another) never writes into a
    /// folder another lab or `generate` is using.
    fn hold_state_of(&mut self, lab_dir: &Path) -> Result<(), LabError> {
        let Some(state) = lab_dir.parent() else {
            return Ok(());
        };
        if !crate::util::folder_lock::held_here(state) {
            self.state_locks
                .push(crate::util::folder_lock::lock_state_folder(state)?);
        }
        Ok(())
    }

    fn job_file(&self) -> PathBuf {
        self.proposer.job_file.clone()
    }

    /// Saves job.yaml atomically; once step 12 has published the generated files, it names
    /// them by hash and the run marker is cleared.
    fn save_job(&mut self, mut job: Job) -> Result<(), LabError> {
        let path = self.job_file();
        self.hold_state_of(&store::lab_dir(&path, &job))?;
        let published = job.lab.completed.iter().any(|c| c == StepId::Preview.id());
        if published {
            let dir = crate::spec::load::job_dir(&path);
            job.lab.artifacts = crate::spec::artifact_refs::record(&dir, &job.paths.state_dir);
        }
        crate::spec::save_job(&path, &job).map_err(|source| LabError::SaveJob {
            path: path.clone(),
            source,
        })?;
        self.lab_dir = store::lab_dir(&path, &job);
        if published {
            super::run_marker::clear(&self.lab_dir).map_err(|source| LabError::SaveJob {
                path: self.lab_dir.join(super::run_marker::MARKER_FILE),
                source,
            })?;
        }
        Ok(())
    }

    /// Writes the reviewed scenarios and their dataset where the dataset module keeps them
    /// (the state folder the lab folder sits in).
    fn save_curation(&mut self, scenarios: &ScenarioSet, dataset: &Dataset) -> Result<(), LabError> {
        let dir = self.lab_dir.clone();
        self.hold_state_of(&dir)?;
        let state = self.lab_dir.parent().map(PathBuf::from).unwrap_or_default();
        write_artifact(&state, ArtifactKind::Scenario, scenarios).map_err(LabError::Curation)?;
        write_artifact(&state, ArtifactKind::Dataset, dataset).map_err(LabError::Curation)?;
        Ok(())
    }

    /// Performs one effect; returns true when the driver should quit.
    pub fn perform(&mut self, effect: Effect) -> Result<bool, LabError> {
        match effect {
            Effect::Propose {
                step,
                hint,
                job,
                artifacts,
            } => spawn_proposal(
                self.proposer.clone(),
                self.tx.clone(),
                self.work.clone(),
                (step, hint, *job, artifacts),
            ),
            Effect::CacheProposal { step, proposal } => {
                let dir = self.lab_dir.clone();
                self.hold_state_of(&dir)?;
                store::save_proposal(&dir, step, &proposal)?;
            }
            Effect::DropCachedProposal { step } => {
                let dir = self.lab_dir.clone();
                self.hold_state_of(&dir)?;
                store::drop_proposal(&dir, step)?;
            }
            Effect::Discover { server, job } => {
                let Some(mcp) = job
                    .agent
                    .inputs
                    .mcps
                    .iter()
                    .find(|m| m.server.as_deref() == Some(&server))
                    .cloned()
                else {
                    let error = format!("server `{server}` is not in the proposal");
                    let _ = self.tx.send(Event::Discovered {
                        server,
                        result: Err(DiscoveryError::Invalid(error)),
                    });
                    return Ok(false);
                };
                let dir = crate::spec::load::job_dir(&self.job_file());
                spawn_discovery(
                    self.discovery.clone(),
                    self.tx.clone(),
                    self.work.clone(),
                    (server, mcp, dir),
                );
            }
            Effect::SaveJob(job) => self.save_job(*job)?,
            Effect::SaveArtifact { step, value } => {
                let dir = self.lab_dir.clone();
                self.hold_state_of(&dir)?;
                store::save_artifact(&dir, step, &value)?;
            }
            Effect::SaveCuration { scenarios, dataset } => self.save_curation(&scenarios, &dataset)?,
            Effect::RunSuite => spawn_run(self.runner.clone(), self.tx.clone(), self.run.clone(), self.job_file()),
            Effect::CancelWork => {
                self.work.cancel();
                self.work = CancellationToken::new();
            }
            Effect::LoadTranscript { run_dir, key } => {
                // A few hundred lines of one trial: read at once, answered like any other work.
                let events = super::stored_run::read_trial(&run_dir, &key);
                let _ = self.tx.send(Event::TranscriptLoaded { key, events });
            }
            Effect::CancelRun => self.run.cancel(),
            Effect::LoadFindings => {
                let rows = super::decide_findings::load(&self.job_file()).map_err(Shared::from);
                let _ = self.tx.send(Event::Findings(FindingsEvent::Loaded(rows)));
            }
            Effect::DecideFinding {
                finding,
                verdict,
                reason,
            } => {
                let rows =
                    super::decide_findings::decide(&self.job_file(), &finding, verdict, &reason).map_err(Shared::from);
                let _ = self.tx.send(Event::Findings(FindingsEvent::Decided(rows)));
            }
            Effect::Quit => return Ok(true),
        }
        Ok(false)
    }
}
