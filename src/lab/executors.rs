//! The real executors behind the wizard's effects: MCP discovery in the job's sandbox,
//! generation through `crate::generate`, and the suite run through `crate::run`.
//! The lab's state machine never calls these directly; drivers hand them to it.

use futures::future::BoxFuture;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

use super::effect_errors::{CatalogError, GeneratorError, LabRunError, PublishError};
use super::traits::{GenerateKind, GenerateRequest, Generator, McpDiscovery, RunStream, SuiteRunner};
use super::types::DiscoveryError;
use crate::app::{RunResults, TestSettings, run_tests};
use crate::generate::pipeline::{DEFAULT_PERSONAS, DEFAULT_SCENARIOS_PER_PERSONA, infer_profile};
use crate::generate::store::write_artifact;
use crate::generate::{
    AgentProfile, ArtifactKind, CaseStatus, Dataset, LlmProposer, OfflineProposer, PersonaSet, Proposer, ScenarioSet,
};
use crate::run::store::run_dir::RunDir;
use crate::spec::{Job, LoadedJob, McpInput};
use crate::trial::Sinks;

/// A job held in memory, resolved as if it were saved as `<job_dir>/job.yaml`.
fn resolve(job: Job, job_dir: &Path) -> Result<LoadedJob, GeneratorError> {
    Ok(crate::spec::resolve_job(&job_dir.join("job.yaml"), job)?)
}

/// Discovers one server inside a fresh session of the job's sandbox.
pub(crate) struct SandboxedDiscovery {
    pub(crate) job_file: PathBuf,
}

impl McpDiscovery for SandboxedDiscovery {
    fn discover(
        &self,
        job_dir: PathBuf,
        mcp: McpInput,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<super::types::Discovered, DiscoveryError>> {
        let job_file = self.job_file.clone();
        Box::pin(async move {
            let failed = DiscoveryError::Failed;
            // What `validate` would refuse in this answer blocks the step (`Invalid`). Checked
            // before the saved job is loaded: a saved job that names the same missing server
            // fails to load for that very reason, which is the answer's fault, not discovery's.
            let mut ds = Vec::new();
            let resolved = crate::spec::resolve_mcps(&job_file, &job_dir, std::slice::from_ref(&mcp), &mut ds);
            let Some(server) = resolved.into_iter().next() else {
                return Err(DiscoveryError::Invalid(
                    ds.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("; "),
                ));
            };
            let loaded =
                crate::spec::load_job(&job_file).map_err(|e| failed(format!("the job does not validate yet: {e}")))?;
            let logs = loaded.state_dir().join("logs");
            let (launcher, session) = crate::mcp::sandboxed::launcher_for_job(&loaded, logs.clone())
                .await
                .map_err(|e| failed(e.to_string()))?;
            let opts = crate::mcp::DiscoverOptions {
                launcher,
                timeout: None,
                log_dir: Some(logs),
            };
            let entry = tokio::select! {
                e = crate::mcp::discover_one(&server, &opts, &|_, _| {}) => e,
                _ = cancel.cancelled() => return Err(failed("cancelled".into())),
            };
            drop(opts);
            crate::mcp::sandboxed::close_session(session).await;
            if let Some(e) = entry.error {
                return Err(failed(e));
            }
            let capabilities = crate::mcp::discover::capabilities_of(&entry);
            // Step 4 lints too, so the contract gates have a contract.json to read.
            let mut servers: Vec<String> = loaded.mcps.iter().map(|m| m.name.clone()).collect();
            servers.push(entry.name.clone());
            let state = loaded.state_dir();
            let mut lint =
                tokio::task::spawn_blocking(move || super::contract_lint::record_and_lint(&state, &servers, entry))
                    .await
                    .map_err(|e| failed(e.to_string()))?
                    .map_err(|e| failed(format!("discovered, but not linted: {e}")))?;
            // Shown as the person finds it from the job's folder.
            if let Ok(rel) = lint.contract.strip_prefix(&loaded.dir) {
                lint.contract = rel.to_path_buf();
            }
            Ok(super::types::Discovered { capabilities, lint })
        })
    }
}

/// Generates with the job's proposer: offline, or the model of `generation.proposer`.
pub struct PipelineGenerator;

fn proposer(loaded: &LoadedJob, hint: Option<String>) -> Result<Box<dyn Proposer>, GeneratorError> {
    let role = &loaded.job.generation.proposer;
    match crate::llm::role_model(&loaded.job.generation, role, &loaded.dir).map_err(GeneratorError::Proposer)? {
        Some(llm) => Ok(Box::new(
            LlmProposer::new(llm).with_temperature(role.temperature).with_hint(hint),
        )),
        None => Ok(Box::new(OfflineProposer)),
    }
}

fn parse<T: serde::de::DeserializeOwned>(what: &'static str, v: Option<Value>) -> Result<T, GeneratorError> {
    let v = v.ok_or(GeneratorError::NotAccepted { what })?;
    serde_json::from_value(v).map_err(|source| GeneratorError::InvalidAccepted { what, source })
}

impl Generator for PipelineGenerator {
    fn generate(
        &self,
        r: GenerateRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, GeneratorError>> {
        Box::pin(async move {
            let loaded = resolve(r.job.clone(), &r.job_dir)?;
            let p = proposer(&loaded, r.hint.clone())?;
            let g = &loaded.job.generation;
            let work = async {
                match r.kind {
                    GenerateKind::Profile => {
                        serde_json::to_value(infer_profile(&loaded, p.as_ref()).await?).map_err(GeneratorError::Encode)
                    }
                    GenerateKind::Personas => {
                        let profile: AgentProfile = parse("profile", r.profile.clone())?;
                        let n = g.personas.map(|n| n as usize).unwrap_or(DEFAULT_PERSONAS);
                        serde_json::to_value(p.propose_personas(&profile, n).await?).map_err(GeneratorError::Encode)
                    }
                    GenerateKind::Scenarios => {
                        let profile: AgentProfile = parse("profile", r.profile.clone())?;
                        let personas: PersonaSet = parse("personas", r.personas.clone())?;
                        let per = g
                            .scenarios_per_persona
                            .map(|n| n as usize)
                            .unwrap_or(DEFAULT_SCENARIOS_PER_PERSONA);
                        let mut scenarios = p.propose_scenarios(&profile, &personas, per).await?;
                        crate::generate::offline::sanction_workflow_files(&profile, &mut scenarios);
                        serde_json::to_value(scenarios).map_err(GeneratorError::Encode)
                    }
                }
            };
            tokio::select! {
                v = work => v,
                _ = cancel.cancelled() => Err(GeneratorError::Cancelled),
            }
        })
    }
}

/// Runs every scenario the person accepted in the wizard, then writes the report.
pub struct LabSuiteRunner {
    /// Serves the agent's model from a cassette (offline demo and tests).
    pub agent_cassette: Option<PathBuf>,
    pub parallel: usize,
}

/// Writes the accepted profile, personas and scenarios as the standard artifacts. The dataset
/// keeps the curation the person gave in step 10 (dataset.json, by case id): a rejected or
/// needs-edit case stays out of the run; a case nobody curated is approved (accepting step 10
/// is the approval).
pub fn publish_accepted(job_file: &Path, loaded: &LoadedJob) -> Result<(), PublishError> {
    let lab = super::store::lab_dir(job_file, &loaded.job);
    fn accepted<T: serde::de::DeserializeOwned>(lab: &Path, what: &'static str) -> Result<T, PublishError> {
        let path = lab.join(format!("{what}.json"));
        let text = crate::util::bounded::read_bounded_string(&path, crate::util::bounded::FileKind::State)?;
        let file: Value = serde_json::from_str(&text).map_err(|source| PublishError::NotJson {
            path: path.clone(),
            source,
        })?;
        let value = file
            .get("accepted")
            .cloned()
            .ok_or(PublishError::NotAccepted { path })?;
        serde_json::from_value(value).map_err(|source| PublishError::Invalid { what, source })
    }
    let state = loaded.state_dir();
    let profile: AgentProfile = accepted(&lab, "profile")?;
    let personas: PersonaSet = accepted(&lab, "personas")?;
    let scenarios: ScenarioSet = accepted(&lab, "scenarios")?;
    let curated: Option<Dataset> = crate::generate::store::read_artifact_opt(&state, ArtifactKind::Dataset)?;
    let mut dataset = Dataset::from_scenarios(&scenarios);
    for c in &mut dataset.cases {
        match curated.as_ref().and_then(|d| d.cases.iter().find(|k| k.id == c.id)) {
            Some(k) if k.status != CaseStatus::Pending => {
                c.status = k.status;
                c.note = k.note.clone();
            }
            _ => {
                c.status = CaseStatus::Approved;
                c.note = Some("accepted in ghostlab lab".into());
            }
        }
    }
    write_artifact(&state, ArtifactKind::AgentProfile, &profile)?;
    write_artifact(&state, ArtifactKind::Persona, &personas)?;
    write_artifact(&state, ArtifactKind::Scenario, &scenarios)?;
    write_artifact(&state, ArtifactKind::Dataset, &dataset)?;
    Ok(())
}

impl SuiteRunner for LabSuiteRunner {
    fn run(
        &self,
        job_file: PathBuf,
        events: RunStream,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<RunResults, LabRunError>> {
        let cassette = self.agent_cassette.clone();
        let parallel = self.parallel;
        Box::pin(async move {
            let loaded = crate::spec::load_job(&job_file)?;
            publish_accepted(&job_file, &loaded)?;
            // A run killed before its summary is continued (`test --resume` semantics).
            let cases = crate::run::case::dataset_cases::load_cases(&loaded.state_dir(), &Default::default())?;
            let ids: Vec<String> = cases.iter().map(|c| c.id.clone()).collect();
            // The run this step started before a kill, finished or not, comes first: its
            // judged trials are kept and only its summary and report are written again.
            let lab_dir = super::store::lab_dir(&job_file, &loaded.job);
            let unfinished =
                super::run_marker::unrecorded_run(&lab_dir, &ids).or_else(|| unfinished_run(&loaded.state_dir(), &ids));
            let mut settings = TestSettings::new(loaded);
            settings.parallel = parallel;
            settings.agent_cassette = cassette;
            // The lab's last step hands over the full report, PDF included.
            settings.write_pdf = true;
            if let Some(dir) = unfinished {
                settings.run_dir = Some(dir);
                settings.resume = true;
            }
            // Fixed here rather than inside `run_tests` so the dashboard knows it from the start.
            let run = crate::app::test_run::resolve_run_dir(&settings)?;
            settings.run_dir = Some(run.path().to_path_buf());
            super::run_marker::started(&lab_dir, run.path()).map_err(|source| LabRunError::Marker {
                lab_dir: lab_dir.clone(),
                source,
            })?;
            events.folder(run.path().to_path_buf());
            events.planned(ids.len() * settings.repeat.max(1) as usize);
            let sinks = Sinks::none().with(events.sink());
            let outcome = tokio::select! {
                o = run_tests(&settings, sinks) => o?,
                _ = cancel.cancelled() => return Err(LabRunError::Cancelled),
            };
            let paths = outcome.report?;
            Ok(RunResults::of(&outcome.run, &outcome.summary, paths, None))
        })
    }
}

/// The newest run folder for exactly these cases that has a manifest but no summary: a run
/// that was interrupted.
fn unfinished_run(state_dir: &Path, ids: &[String]) -> Option<PathBuf> {
    RunDir::newest_where(state_dir, |r| {
        !r.summary().exists() && super::run_marker::runs_cases(r.path(), ids)
    })
    .map(|r| r.path().to_path_buf())
}

/// Models the person can pick: those the job names, then those each configured
/// OpenAI-compatible endpoint actually serves (`GET /models`), listed only when a credential
/// for it is set (or the endpoint is on loopback and needs none).
pub struct EndpointModels;

impl super::traits::ModelCatalog for EndpointModels {
    fn usable(&self, _job: Job, dir: std::path::PathBuf) -> BoxFuture<'static, Option<Vec<String>>> {
        Box::pin(async move {
            let bin = crate::run::agents::agent_binary::find_opencode()?;
            match super::usable_models::list_user_models(&bin, &dir).await {
                Ok(list) => Some(list),
                Err(e) => {
                    tracing::warn!("cannot list the models your OpenCode can use: {e}");
                    None
                }
            }
        })
    }

    fn models(&self, job: Job) -> BoxFuture<'static, Result<Vec<String>, CatalogError>> {
        Box::pin(async move {
            let mut out = super::traits::ConfiguredModels.models(job.clone()).await?;
            let mut endpoints: Vec<(String, String)> = Vec::new();
            for (id, p) in &job.agent.runtime.provider {
                if let Some(url) = p.options.get("baseURL").and_then(Value::as_str) {
                    endpoints.push((id.clone(), url.to_string()));
                }
            }
            let g = &job.generation;
            for role in [&g.proposer, &g.emulator, &g.judge] {
                if let Some(url) = &role.base_url {
                    endpoints.push(("openai".into(), url.clone()));
                }
            }
            endpoints.dedup();
            for (provider, url) in endpoints {
                let loopback = crate::util::loopback::is_loopback_url(&url);
                let key = crate::llm::credentials::lookup_async(&provider).await.ok().flatten();
                if key.is_none() && !loopback {
                    continue;
                }
                let served = crate::llm::models::list_models(
                    &url,
                    key.as_ref().map(|k| k.secret.expose()),
                    std::time::Duration::from_secs(5),
                )
                .await;
                if let Ok(models) = served {
                    out.extend(models.into_iter().map(|m| format!("{provider}/{m}")));
                }
            }
            let mut seen = std::collections::HashSet::new();
            out.retain(|m| seen.insert(m.clone()));
            Ok(out)
        })
    }
}
