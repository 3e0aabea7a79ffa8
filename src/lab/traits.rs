//! The executors of the wizard's effects, as traits: model listing, MCP discovery,
//! profile/persona/scenario generation and the suite run. The real ones are in `executors`;
//! tests hand the state machine named fakes.

use futures::future::BoxFuture;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::effect_errors::{CatalogError, GeneratorError, LabRunError};
use super::types::{Discovered, DiscoveryError, Event};
use crate::app::RunResults;
use crate::spec::{Job, McpInput};
use crate::trial::{ChannelSink, Envelope, EventSink};

/// Lists models the person can pick (`executors::EndpointModels`).
pub trait ModelCatalog: Send + Sync {
    /// `provider/model` names, best first.
    fn models(&self, job: Job) -> BoxFuture<'static, Result<Vec<String>, CatalogError>>;

    /// The models the person can really use now (their own OpenCode's list, which has only
    /// providers with a credential); `None` when this catalog cannot tell.
    fn usable(&self, _job: Job, _dir: PathBuf) -> BoxFuture<'static, Option<Vec<String>>> {
        Box::pin(async { None })
    }
}

/// Models named in the job itself (runtime, agents, provider maps): what is configured.
#[derive(Debug, Default, Clone)]
pub struct ConfiguredModels;

impl ModelCatalog for ConfiguredModels {
    fn models(&self, job: Job) -> BoxFuture<'static, Result<Vec<String>, CatalogError>> {
        Box::pin(async move {
            let rt = &job.agent.runtime;
            let mut out: Vec<String> = Vec::new();
            out.extend(rt.model.clone());
            out.extend(rt.small_model.clone());
            out.extend(rt.agents.values().filter_map(|a| a.model.clone()));
            for (provider, p) in &rt.provider {
                out.extend(p.models.keys().map(|m| format!("{provider}/{m}")));
            }
            let mut seen = std::collections::HashSet::new();
            out.retain(|m| seen.insert(m.clone()));
            Ok(out)
        })
    }
}

/// Connects to one MCP server and lists what it exposes (`executors::SandboxedDiscovery`).
pub trait McpDiscovery: Send + Sync {
    /// `job_dir` is where relative paths of `mcp` resolve.
    fn discover(
        &self,
        job_dir: PathBuf,
        mcp: McpInput,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Discovered, DiscoveryError>>;
}

/// Which artifact to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenerateKind {
    Profile,
    Personas,
    Scenarios,
}

/// Input of one generation: the job plus what was accepted before it.
#[derive(Debug, Clone)]
pub struct GenerateRequest {
    pub kind: GenerateKind,
    pub job: Job,
    pub job_dir: PathBuf,
    pub profile: Option<Value>,
    pub personas: Option<Value>,
    pub hint: Option<String>,
}

/// Generates the profile, personas and scenarios (`executors::PipelineGenerator`).
pub trait Generator: Send + Sync {
    /// The generated artifact as JSON.
    fn generate(
        &self,
        request: GenerateRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, GeneratorError>>;
}

/// Where a running suite streams to: the lab's one event channel, the same the dashboard pane
/// reads. A runner can say only what a run says (its folder, its size, its case events); a
/// closed channel (the lab went away) is not an error for the run.
#[derive(Clone)]
pub struct RunStream(UnboundedSender<Event>);

impl RunStream {
    pub fn new(events: UnboundedSender<Event>) -> Self {
        RunStream(events)
    }

    /// The run's folder, sent before its first event: where the dashboard reads back a
    /// selected trial's earlier events.
    pub(crate) fn folder(&self, dir: PathBuf) {
        let _ = self.0.send(Event::RunFolder(dir));
    }

    /// How many trials the run will have, once its cases are loaded.
    pub(crate) fn planned(&self, trials: usize) {
        let _ = self.0.send(Event::RunPlanned(trials));
    }

    /// One case event, as written to its events.jsonl.
    pub fn event(&self, envelope: Envelope) {
        let _ = self.0.send(Event::from(envelope));
    }

    /// The suite's sink into this stream (case events only; the run's start and end reach the
    /// lab as `planned` and the runner's result).
    pub(crate) fn sink(&self) -> Arc<dyn EventSink> {
        Arc::new(ChannelSink(self.0.clone()))
    }
}

/// Runs the suite of accepted scenarios, streaming events; returns what the run states.
pub trait SuiteRunner: Send + Sync {
    fn run(
        &self,
        job_file: PathBuf,
        events: RunStream,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<RunResults, LabRunError>>;
}
