//! Deciding a case once its conversation ended: keep its final workspace with the run, run
//! the checks and the judge, record the case's timing and verdict, and close its log into a
//! trial ready to commit.

use std::path::Path;
use std::time::Instant;

use crate::judge::case_verdict::{VerdictFile, judge_case, verdict_bytes};
use crate::judge::checks::CheckInput;
use crate::judge::file_facts::FileFacts;
use crate::judge::llm_judge::Judge;
use crate::redact::Redactor;
use crate::run::environment::case_environment::CaseEnvironment;
use crate::run::environment::workspace_keep::KeepBy;
use crate::run::store::event_log::EventLog;
use crate::run::store::run_dir::TrialDir;
use crate::run::store::trial_commit::PendingTrial;
use crate::spec::LoadedJob;
use crate::trial::case::CaseSpec;
use crate::trial::events::{Role, RunEvent};
use crate::trial::{ConversationEnd, Usage};

/// OpenCode's built-in tools, always known to the agent besides its MCP tools.
pub(crate) const OPENCODE_BUILTIN_TOOLS: &[&str] = &[
    "bash",
    "read",
    "write",
    "edit",
    "patch",
    "glob",
    "grep",
    "list",
    "task",
    "todowrite",
    "todoread",
    "webfetch",
    "websearch",
    "skill",
    "question",
    "lsp",
];

/// What deciding a case needs of the run's settings (`case_run::RunContext`).
pub(crate) struct Deciding<'a> {
    pub(crate) job: &'a LoadedJob,
    pub(crate) judge: &'a dyn Judge,
    pub(crate) redactor: &'a Redactor,
}

/// When the case started, and what creating its sandbox and running its setup took (ms).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CaseClock {
    pub(crate) started: Instant,
    pub(crate) sandbox_ms: u64,
    pub(crate) setup_ms: u64,
}

/// The case's environment at its end (none when it could not be made) and the files its
/// agent changed, as observed before the environment closes.
pub(crate) type FinalState<'a> = Option<(&'a dyn CaseEnvironment, Option<FileFacts>)>;

/// Judges the case and closes its log: the verdict, what its calls used, and the trial to commit.
pub(crate) async fn finish(
    deciding: &Deciding<'_>,
    case: &CaseSpec,
    dir: &Path,
    mut log: EventLog,
    end: ConversationEnd,
    env: FinalState<'_>,
    clock: CaseClock,
) -> std::io::Result<(VerdictFile, Usage, PendingTrial)> {
    let events = log.events().to_vec();
    let (env, files) = match env {
        Some((e, f)) => (Some(e), f),
        None => (None, None),
    };
    let workspace = keep_final_workspace(deciding.redactor, dir, env, files.as_ref()).await?;
    let known = known_tools(deciding.job);
    let input = CheckInput {
        case,
        events: &events,
        workspace: workspace.path.as_deref(),
        workspace_masked: workspace.masked,
        live_secret_search: workspace.live_secret_search.as_ref(),
        known_tools: known.as_deref(),
        egress_must_be_clean: deciding.job.job.review.gates.no_denied_egress == Some(true),
        files: files.as_ref(),
        observability: crate::judge::observability::Observability::of_run(&deciding.job.job, &events),
    };
    let judge_started = Instant::now();
    let (mut verdict, calls) = crate::llm::meter::metered(judge_case(case, &end, deciding.judge, &input)).await;
    let judge_ms = judge_started.elapsed().as_millis() as u64;
    emit_model_calls(&mut log, Role::Judge, calls)?;
    log.emit(RunEvent::CaseTiming {
        sandbox_ms: clock.sandbox_ms,
        setup_ms: clock.setup_ms,
        judge_ms,
    })?;
    verdict.duration_ms = clock.started.elapsed().as_millis() as u64;
    log.emit(RunEvent::CaseFinished {
        verdict: verdict.verdict,
        duration_ms: clock.started.elapsed().as_millis() as u64,
    })?;
    let usage = Usage::from_events(log.events().iter().map(|e| &e.event));
    let pending = PendingTrial {
        trial: TrialDir::at(dir),
        log: log.close(),
        verdict: verdict_bytes(&verdict, deciding.redactor)?,
    };
    Ok((verdict, usage, pending))
}

/// The final workspace the checks read.
struct CheckedWorkspace {
    /// The kept copy in the run folder, else the environment's own (none without one).
    path: Option<std::path::PathBuf>,
    /// Whether `path` is the kept copy, its secrets masked.
    masked: bool,
    /// The secrets found in a workspace too large to keep, searched where it lies.
    live_secret_search: Option<Result<Vec<String>, crate::judge::checks::NotSearchable>>,
}

/// Keeps the final workspace with the run (bounded) so file checks can be re-run by `rescore`
/// and reviewers can see what the agent changed; one not kept (too large) has its changed
/// files searched for secrets where they lie.
async fn keep_final_workspace(
    redactor: &Redactor,
    dir: &Path,
    env: Option<&dyn CaseEnvironment>,
    files: Option<&FileFacts>,
) -> std::io::Result<CheckedWorkspace> {
    let workspace = env.and_then(|e| e.final_workspace());
    let by = env.map_or(KeepBy::Copy, |e| e.keep_final_workspace_by());
    let kept = match workspace.clone() {
        Some(ws) => {
            let (trial, redactor) = (TrialDir::at(dir), redactor.clone());
            crate::util::blocking::off_runtime(move || Ok(trial.keep_workspace(&ws, &redactor, by))).await?
        }
        None => None,
    };
    let live_secret_search = match (&kept, &workspace) {
        (None, Some(ws)) => {
            let (ws, facts, redactor) = (ws.clone(), files.cloned(), redactor.clone());
            Some(
                crate::util::blocking::off_runtime(move || {
                    Ok(crate::run::case::live_secret_search::secret_files(
                        &ws,
                        facts.as_ref(),
                        &redactor,
                    ))
                })
                .await?,
            )
        }
        _ => None,
    };
    Ok(CheckedWorkspace {
        masked: kept.is_some(),
        path: kept.or(workspace),
        live_secret_search,
    })
}

/// Tools this agent can call: OpenCode built-ins plus `<server>_<tool>` from discovery.
/// `None` when discovery has not run, so unknown-tool checks cannot be applied.
pub(crate) fn known_tools(job: &LoadedJob) -> Option<Vec<String>> {
    if job.job.capabilities.is_empty() {
        return None;
    }
    let mut tools: Vec<String> = OPENCODE_BUILTIN_TOOLS.iter().map(|s| s.to_string()).collect();
    for (server, caps) in &job.job.capabilities {
        tools.extend(caps.tools.iter().map(|t| format!("{server}_{t}")));
    }
    Some(tools)
}

/// One `model_call` event per priced call of Ghostlab's own `role` (tokens, catalog cost).
pub(crate) fn emit_model_calls(
    log: &mut EventLog,
    role: Role,
    calls: Vec<crate::llm::meter::MeteredCall>,
) -> std::io::Result<()> {
    for c in calls {
        log.emit(RunEvent::ModelCall {
            role,
            model: c.model,
            prompt_tokens: c.prompt_tokens,
            completion_tokens: c.completion_tokens,
            cost_usd: c.cost_usd.unwrap_or(0.0),
            latency_ms: c.latency_ms,
            cost_unknown: c.cost_usd.is_none(),
        })?;
    }
    Ok(())
}
