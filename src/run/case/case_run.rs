//! Running one case end to end: environment → setup → agent runner → conversation → final
//! workspace and denials → judge and checks → events.jsonl and verdict.json.
//!
//! Any failure of the machinery becomes an INFRA_ERROR verdict with its reason; nothing here
//! can produce a PASS without the judge and the checks.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::judge::case_verdict::VerdictFile;
use crate::judge::file_facts::FileFacts;
use crate::judge::llm_judge::Judge;
use crate::redact::Redactor;
use crate::run::case::agent_start::AgentInputs;
use crate::run::case::case_bound::CaseBound;
use crate::run::case::case_finish::{CaseClock, Deciding, emit_model_calls, finish};
use crate::run::case::case_prepare::{CaseInputs, prepare_and_converse, setup_time};
use crate::run::case::emulator::UserEmulator;
use crate::run::environment::case_environment::{CaseEnvironment, EnvironmentError, EnvironmentFactory};
use crate::run::environment::observe_files::FileBaseline;
use crate::run::store::event_log::EventLog;
use crate::run::store::run_dir::TrialDir;
use crate::run::store::trial_commit::PendingTrial;
use crate::run::store::trial_committer::{CommitQueue, Committed};
use crate::spec::LoadedJob;
use crate::trial::case::CaseSpec;
use crate::trial::events::{Role, RunEvent};
use crate::trial::{ConversationEnd, Sinks, Usage};

/// Settings shared by every case of a run.
pub struct RunContext {
    pub job: LoadedJob,
    pub environments: Arc<dyn EnvironmentFactory>,
    pub emulator: Arc<dyn UserEmulator>,
    pub judge: Arc<dyn Judge>,
    pub redactor: Redactor,
    /// The `opencode` binary on the host (mapped into the environment).
    pub opencode_bin: Option<PathBuf>,
    /// Points the agent at another model provider: (provider id, OpenCode provider config, model).
    pub provider_override: Option<(String, Value, String)>,
    pub turn_timeout: Duration,
    /// Time a case may take beyond the sum of its own timeouts (`case_bound::CASE_GRACE`).
    pub case_grace: Duration,
    /// Readers of every case's events besides its events.jsonl.
    pub sinks: Sinks,
}

/// A decided trial as the suite sees it.
pub(crate) struct CaseResult {
    pub(crate) verdict: VerdictFile,
    /// What its calls used, counted from its events while still in memory, so the summary
    /// does not read every trial's events.jsonl back.
    pub(crate) usage: Usage,
    /// The answer of its commit (see `trial_committer`).
    pub(crate) committed: Committed,
}

impl RunContext {
    /// What starting a case's agent needs of these settings.
    fn agent_inputs(&self) -> AgentInputs<'_> {
        AgentInputs {
            job: &self.job,
            opencode_bin: self.opencode_bin.as_deref(),
            provider_override: &self.provider_override,
            turn_timeout: self.turn_timeout,
        }
    }

    /// What deciding a case needs of these settings.
    fn deciding(&self) -> Deciding<'_> {
        Deciding {
            job: &self.job,
            judge: self.judge.as_ref(),
            redactor: &self.redactor,
        }
    }
}

/// Runs a case and writes its artifacts under `dir`; hands the decided trial to `commits`.
pub(crate) async fn run_case(
    ctx: &RunContext,
    case: &CaseSpec,
    dir: PathBuf,
    commits: &CommitQueue,
) -> std::io::Result<CaseResult> {
    let started = Instant::now();
    let mut log = open_log(ctx, case, &dir).await?;
    let env_started = Instant::now();
    let env = match ctx.environments.create(&case.id).await {
        Ok(env) => env,
        Err(e) => {
            let decided = without_environment(ctx, case, &dir, log, e, (started, env_started)).await;
            return hand_in(decided, commits).await;
        }
    };
    let sandbox_ms = env_started.elapsed().as_millis() as u64;
    let backend = env.backend();
    log.emit(RunEvent::SandboxReady {
        role: Role::Agent,
        watched: backend == "bubblewrap",
        backend,
        detail: env.workdir(),
    })?;
    let bound = CaseBound::for_case(&ctx.job.job, case.scenario.max_turns, ctx.turn_timeout, ctx.case_grace);
    let mut baseline = None;
    let end = talk_within_bound(ctx, case, env.as_ref(), &dir, &mut log, &bound, &mut baseline).await?;
    let end = record_sandbox_end(env.as_ref(), &mut log, end)?;
    let (end, files) = gather_before_close(ctx, env.as_ref(), &dir, &mut log, &bound, baseline, end).await?;
    let clock = CaseClock {
        started,
        sandbox_ms,
        setup_ms: setup_time(log.events()),
    };
    let verdict = finish(
        &ctx.deciding(),
        case,
        &dir,
        log,
        end,
        Some((env.as_ref(), files)),
        clock,
    )
    .await;
    // Handed in while the environment closes: a full commit queue must not keep a sandbox up.
    let (answer, ()) = futures::join!(hand_in(verdict, commits), env.close());
    answer
}

/// The case's event log, with the case as it ran written beside it.
async fn open_log(ctx: &RunContext, case: &CaseSpec, dir: &Path) -> std::io::Result<EventLog> {
    let (redactor, sinks, spec, at) = (ctx.redactor.clone(), ctx.sinks.clone(), case.clone(), dir.to_path_buf());
    crate::util::blocking::off_runtime(move || {
        let log = EventLog::create(&at, &spec.id, redactor, sinks)?.of_trial(spec.trial);
        // The case as it ran, so `rescore` can re-judge without the dataset.
        // Not synced here: the trial's commit in `finish` makes it durable with the rest.
        crate::util::durable::write_json_replace(&TrialDir::at(&at).case_file(), &spec)?;
        Ok(log)
    })
    .await
}

/// A case whose environment could not be made: an INFRA_ERROR of the sandbox, decided as usual.
async fn without_environment(
    ctx: &RunContext,
    case: &CaseSpec,
    dir: &Path,
    mut log: EventLog,
    error: EnvironmentError,
    (started, env_started): (Instant, Instant),
) -> std::io::Result<(VerdictFile, Usage, PendingTrial)> {
    let reason = error.to_string();
    let end = ConversationEnd::Infra {
        component: "sandbox".into(),
        reason: reason.clone(),
    };
    log.emit(RunEvent::InfraError {
        component: "sandbox".into(),
        reason,
    })?;
    let clock = CaseClock {
        started,
        sandbox_ms: env_started.elapsed().as_millis() as u64,
        setup_ms: 0,
    };
    finish(&ctx.deciding(), case, dir, log, end, None, clock).await
}

/// Setup and the conversation within the case's bound, with the agent host's output kept in
/// the trial's host log and Ghostlab's own model calls (the user emulator's) recorded.
async fn talk_within_bound(
    ctx: &RunContext,
    case: &CaseSpec,
    env: &dyn CaseEnvironment,
    dir: &Path,
    log: &mut EventLog,
    bound: &CaseBound,
    baseline: &mut Option<FileBaseline>,
) -> std::io::Result<ConversationEnd> {
    let inputs = CaseInputs {
        agent: ctx.agent_inputs(),
        emulator: ctx.emulator.as_ref(),
    };
    let bounded = async {
        let talk = prepare_and_converse(&inputs, case, env, log, baseline);
        match bound.within(talk).await {
            Some(prepared) => prepared,
            None => Ok(Err((
                "case".to_string(),
                bound.exceeded("setting up or talking to the agent"),
            ))),
        }
    };
    let ((conversation, calls), host_output) =
        crate::run::agents::host_output::capture(crate::llm::meter::metered(bounded)).await;
    let (log_path, redactor) = (TrialDir::at(dir).host_log(), ctx.redactor.clone());
    crate::util::blocking::off_runtime(move || {
        crate::run::agents::host_output::write(&log_path, &host_output, &redactor)
    })
    .await?;
    emit_model_calls(log, Role::Emulator, calls)?;
    match conversation? {
        Ok(end) => Ok(end),
        Err((component, reason)) => {
            log.emit(RunEvent::InfraError {
                component: component.clone(),
                reason: reason.clone(),
            })?;
            Ok(ConversationEnd::Infra { component, reason })
        }
    }
}

/// What the sandbox saw besides the conversation: a watch fault ends the case as INFRA_ERROR,
/// and every refused egress attempt is recorded.
fn record_sandbox_end(
    env: &dyn CaseEnvironment,
    log: &mut EventLog,
    mut end: ConversationEnd,
) -> std::io::Result<ConversationEnd> {
    // A watch that could not read what the agent's processes did leaves the record incomplete:
    // the case cannot be judged on it, whatever the conversation looked like.
    if let Some(reason) = env.watch_fault()
        && !matches!(end, ConversationEnd::Infra { .. })
    {
        let component = "sandbox watch".to_string();
        log.emit(RunEvent::InfraError {
            component: component.clone(),
            reason: reason.clone(),
        })?;
        end = ConversationEnd::Infra { component, reason };
    }
    for d in env.denials() {
        log.emit(RunEvent::EgressDenied {
            host: d.host,
            port: d.port,
            at: d.at,
        })?;
    }
    Ok(end)
}

/// What must be read before the environment closes, within the case's bound: the files the
/// agent changed and the `sandbox.download` paths. Past the bound the case ends as INFRA_ERROR.
async fn gather_before_close(
    ctx: &RunContext,
    env: &dyn CaseEnvironment,
    dir: &Path,
    log: &mut EventLog,
    bound: &CaseBound,
    baseline: Option<FileBaseline>,
    mut end: ConversationEnd,
) -> std::io::Result<(ConversationEnd, Option<FileFacts>)> {
    // Observed before the session (and its HOME and TMPDIR) is deleted, off the runtime and
    // within the case's bound: the walk must not hold a worker or outlive the case.
    let observed = match baseline {
        Some(b) => {
            let redactor = ctx.redactor.clone();
            bound
                .within(crate::util::blocking::off_runtime(move || Ok(b.observe(&redactor))))
                .await
        }
        None => Some(Ok(None)),
    };
    let files = match observed {
        Some(files) => files?,
        None => {
            end = over_bound(log, bound.exceeded("observing the final workspace"))?;
            None
        }
    };
    // Also before the environment closes (an OpenShell sandbox is deleted then).
    let fetched = crate::run::environment::downloads::fetch_downloads(env, &ctx.job.job.sandbox, dir, &ctx.redactor);
    match bound.within(fetched).await {
        Some(done) => done?,
        None => end = over_bound(log, bound.exceeded("downloading `sandbox.download` paths"))?,
    }
    Ok((end, files))
}

/// A case stopped at its bound: said in its events, and its end whatever it was before.
fn over_bound(log: &mut EventLog, reason: String) -> std::io::Result<ConversationEnd> {
    log.emit(RunEvent::InfraError {
        component: "case".into(),
        reason: reason.clone(),
    })?;
    Ok(ConversationEnd::Infra {
        component: "case".into(),
        reason,
    })
}

/// Hands a decided trial to the group commit.
async fn hand_in(
    decided: std::io::Result<(VerdictFile, Usage, PendingTrial)>,
    commits: &CommitQueue,
) -> std::io::Result<CaseResult> {
    let (verdict, usage, pending) = decided?;
    Ok(CaseResult {
        verdict,
        usage,
        committed: commits.submit(pending).await,
    })
}
