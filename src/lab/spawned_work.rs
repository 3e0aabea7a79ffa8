//! The effects that take time (a proposal, a discovery, the suite run) as tokio tasks that
//! answer on the lab's one event channel. A cancelled proposal or discovery answers nothing;
//! a panic inside an executor answers with `Crashed` instead of leaving the wizard waiting.

use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::effect_errors::Crashed;
use super::propose::StepProposer;
use super::shared_error::Shared;
use super::step::StepId;
use super::traits::{McpDiscovery, RunStream, SuiteRunner};
use super::types::{Artifacts, DiscoveryError, Event};
use crate::spec::{Job, McpInput};

/// Proposes `step` → `Event::Proposed` or `Event::ProposalFailed`.
pub(super) fn spawn_proposal(
    proposer: StepProposer,
    tx: UnboundedSender<Event>,
    cancel: CancellationToken,
    (step, hint, job, artifacts): (StepId, Option<String>, Job, Artifacts),
) {
    tokio::spawn(async move {
        let result = tokio::select! {
            r = guarded("the proposer", proposer.propose(step, hint, job, artifacts, cancel.clone())) => r,
            _ = cancel.cancelled() => return,
        };
        let _ = tx.send(match result {
            Ok(proposal) => Event::Proposed { step, proposal },
            Err(error) => Event::ProposalFailed {
                step,
                error: error.into(),
            },
        });
    });
}

/// Discovers one server → `Event::Discovered`.
pub(super) fn spawn_discovery(
    discovery: Arc<dyn McpDiscovery>,
    tx: UnboundedSender<Event>,
    cancel: CancellationToken,
    (server, mcp, job_dir): (String, McpInput, PathBuf),
) {
    tokio::spawn(async move {
        let work = async { Ok::<_, Crashed>(discovery.discover(job_dir, mcp, cancel.clone()).await) };
        let result = tokio::select! {
            r = guarded("discovery", work) => r.unwrap_or_else(|crash| Err(DiscoveryError::Failed(crash.to_string()))),
            _ = cancel.cancelled() => return,
        };
        let _ = tx.send(Event::Discovered { server, result });
    });
}

/// Runs the suite → its events, then `Event::RunFinished`. The runner streams into the lab's
/// own channel, so every event it sent is queued before `RunFinished`.
pub(super) fn spawn_run(
    runner: Arc<dyn SuiteRunner>,
    tx: UnboundedSender<Event>,
    cancel: CancellationToken,
    job_file: PathBuf,
) {
    tokio::spawn(async move {
        let result = guarded(
            "the suite runner",
            runner.run(job_file, RunStream::new(tx.clone()), cancel),
        )
        .await;
        let _ = tx.send(Event::RunFinished(result.map(Box::new).map_err(Shared::from)));
    });
}

/// Runs a fallible future, turning a panic inside it into an error, so a broken executor ends
/// its step with a reason instead of leaving the wizard waiting forever.
async fn guarded<T, E: From<Crashed>>(
    what: &'static str,
    fut: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, E> {
    use futures::FutureExt;
    match std::panic::AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Crashed { what, message }.into())
        }
    }
}
