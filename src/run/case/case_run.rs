//! Running one case end to end: environment → setup → agent runner → conversation → final
//! workspace and denials → judge and checks → events.jsonl and verdict.json.
//!
//! Any failure of the machinery becomes an INFRA_ERROR verdict with its reason; nothing here
//! can produce a PASS without the judge and the checks.

use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::judge::case_verdict::{VerdictFile, judge_case, verdict_bytes};
use crate::judge::checks::CheckInput;
use crate::judge::llm_judge::Judge;
use crate::redact::Redactor;
use crate::run::agents::refusal_attribution::AttributedRefusals;
use crate::run::agents::runner::AgentRunner;
use crate::run::case::agent_start::{AgentInputs, build_runner};
use crate::run::case::case_bound::CaseBound;
use crate::run::case::conversation::{ConversationEnd, converse};
use crate::run::case::emulator::UserEmulator;
use crate::run::environment::case_environment::{CaseEnvironment, EnvironmentFactory};
use crate::run::environment::observe_files::{FileBaseline, FileFacts};
use crate::run::environment::spawn::{CommandSpec, run_bounded};
use crate::run::store::event_log::EventLog;
use crate::run::store::run_dir::TrialDir;
use crate::run::store::trial_commit::PendingTrial;
use crate::run::store::trial_committer::{CommitQueue, Committed};
use crate::spec::LoadedJob;
use crate::trial::case::CaseSpec;
use crate::trial::events::{Role, RunEvent};
use crate::trial::{Sinks, Usage};

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
    pub verdict: VerdictFile,
    /// What its calls used, counted from its events while still in memory, so the summary
    /// does not read every trial's events.jsonl back.
    pub usage: Usage,
    /// The answer of its commit (see `trial_committer`).
    pub committed: Committed,
}

/// Runs a case and writes its artifacts under `dir`; hands the decided trial to `commits`.
pub(crate) async fn run_case(
    ctx: &RunContext,
    case: &CaseSpec,
    dir: PathBuf,
    commits: &CommitQueue,
) -> std::io::Result<CaseResult> {
    let started = Instant::now();
    let (redactor, sinks, spec, at) = (ctx.redactor.clone(), ctx.sinks.clone(), case.clone(), dir.clone());
    let mut log = crate::util::blocking::off_runtime(move || {
        let log = EventLog::create(&at, &spec.id, redactor, sinks)?.of_trial(spec.trial);
        // The case as it ran, so `rescore` can re-judge without the dataset.
        // Not synced here: the trial's commit in `finish` makes it durable with the rest.
        crate::util::durable::write_json_replace(&TrialDir::at(&at).case_file(), &spec)?;
        Ok(log)
    })
    .await?;
    let env_started = Instant::now();
    let env = match ctx.environments.create(&case.id).await {
        Ok(env) => env,
        Err(e) => {
            let reason = e.to_string();
            let end = ConversationEnd::Infra {
                component: "sandbox".into(),
                reason: reason.clone(),
            };
            log.emit(RunEvent::InfraError {
                component: "sandbox".into(),
                reason,
            })?;
            let sandbox_ms = env_started.elapsed().as_millis() as u64;
            let decided = finish(ctx, case, &dir, log, end, None, (started, sandbox_ms, 0)).await;
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
    let bounded = async {
        let talk = prepare_and_converse(ctx, case, env.as_ref(), &mut log, &mut baseline);
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
    let (log_path, redactor) = (TrialDir::at(&dir).host_log(), ctx.redactor.clone());
    crate::util::blocking::off_runtime(move || {
        crate::run::agents::host_output::write(&log_path, &host_output, &redactor)
    })
    .await?;
    emit_model_calls(&mut log, Role::Emulator, calls)?;
    let mut end = match conversation? {
        Ok(end) => end,
        Err((component, reason)) => {
            log.emit(RunEvent::InfraError {
                component: component.clone(),
                reason: reason.clone(),
            })?;
            ConversationEnd::Infra { component, reason }
        }
    };
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
            end = over_bound(&mut log, bound.exceeded("observing the final workspace"))?;
            None
        }
    };
    // Also before the environment closes (an OpenShell sandbox is deleted then).
    let fetched =
        crate::run::environment::downloads::fetch_downloads(env.as_ref(), &ctx.job.job.sandbox, &dir, &ctx.redactor);
    match bound.within(fetched).await {
        Some(done) => done?,
        None => end = over_bound(&mut log, bound.exceeded("downloading `sandbox.download` paths"))?,
    }
    let setup_ms = setup_time(log.events());
    let verdict = finish(
        ctx,
        case,
        &dir,
        log,
        end,
        Some((env.as_ref(), files)),
        (started, sandbox_ms, setup_ms),
    )
    .await;
    // Handed in while the environment closes: a full commit queue must not keep a sandbox up.
    let (answer, ()) = futures::join!(hand_in(verdict, commits), env.close());
    answer
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

type Prepared = Result<ConversationEnd, (String, String)>;

async fn prepare_and_converse(
    ctx: &RunContext,
    case: &CaseSpec,
    env: &dyn CaseEnvironment,
    log: &mut EventLog,
    baseline: &mut Option<FileBaseline>,
) -> std::io::Result<Prepared> {
    let job = &ctx.job.job;
    for step in &job.setup {
        let spec = CommandSpec {
            argv: step.run.clone(),
            env: vec![("HOME".into(), env.home())],
            workdir: Some(env.workdir()),
        };
        let timeout = Duration::from_secs(step.timeout.unwrap_or(120));
        let cmd = match env.factory().command(&spec) {
            Ok(c) => c,
            Err(e) => return Ok(Err(("setup".into(), format!("`{}` could not start: {e}", step.name)))),
        };
        let done = match run_bounded(cmd, None, timeout).await {
            Ok(d) => d,
            Err(e) => return Ok(Err(("setup".into(), format!("`{}` could not start: {e}", step.name)))),
        };
        let code = done.code.unwrap_or(-1);
        log.emit(RunEvent::SetupStep {
            name: step.name.clone(),
            exit_code: code,
            duration_ms: done.elapsed.as_millis() as u64,
        })?;
        if code != 0 {
            let why = if done.timed_out {
                "timed out".to_string()
            } else {
                format!("exited {code}: {}", done.stderr.trim())
            };
            return Ok(Err(("setup".into(), format!("`{}` {why}", step.name))));
        }
    }
    // After setup, so what setup installs is not taken for the agent's doing.
    if let Err(reason) = env.pull_results().await {
        return Ok(Err(("sandbox".into(), reason.to_string())));
    }
    *baseline = Some(FileBaseline::take(env));
    let mut host_note = String::new();
    let inputs = AgentInputs {
        job: &ctx.job,
        opencode_bin: ctx.opencode_bin.as_deref(),
        provider_override: &ctx.provider_override,
        turn_timeout: ctx.turn_timeout,
    };
    let runner: Box<dyn AgentRunner> = match build_runner(&inputs, env, case, &mut host_note) {
        Ok(r) => r,
        Err(reason) => return Ok(Err(("agent host".into(), reason.to_string()))),
    };
    // Said only when the mode is not what the job's defaults give: the usual events (and the
    // ids a judge cites) stay as they were.
    if !host_note.is_empty() {
        log.emit(RunEvent::AgentHost {
            label: runner.label(),
            note: host_note,
        })?;
    }
    if let Err(reason) = env.push_prepared().await {
        return Ok(Err(("sandbox".into(), reason.to_string())));
    }
    // A refused model request is told apart from a host the sandbox's policy blocked.
    let denied = || env.denials().into_iter().map(|d| (d.host, d.port)).collect();
    let mut runner = AttributedRefusals::new(runner, &denied);
    let mcp_servers: Vec<String> = ctx.job.mcps.iter().map(|m| m.name.clone()).collect();
    // What the setup steps and the servers' start ran is the user's, not the agent's.
    drop(env.take_programs());
    let programs = || env.take_programs();
    let end = converse(case, &mut runner, ctx.emulator.as_ref(), &mcp_servers, &programs, log).await?;
    runner.close().await;
    // What the last turn left running (`nohup … &`) until now is that turn's too.
    let last = super::conversation::last_turn(log);
    super::conversation::record_programs(log, last, env.take_programs())?;
    if let Err(reason) = env.pull_results().await {
        return Ok(Err(("sandbox".into(), reason.to_string())));
    }
    Ok(Ok(end))
}

/// Tools this agent can call: OpenCode built-ins plus `<server>_<tool>` from discovery.
/// `None` when discovery has not run, so unknown-tool checks cannot be applied.
pub fn known_tools(job: &LoadedJob) -> Option<Vec<String>> {
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
fn emit_model_calls(log: &mut EventLog, role: Role, calls: Vec<crate::llm::meter::MeteredCall>) -> std::io::Result<()> {
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

async fn finish(
    ctx: &RunContext,
    case: &CaseSpec,
    dir: &std::path::Path,
    mut log: EventLog,
    end: ConversationEnd,
    env: Option<(&dyn CaseEnvironment, Option<FileFacts>)>,
    (started, sandbox_ms, setup_ms): (Instant, u64, u64),
) -> std::io::Result<(VerdictFile, Usage, PendingTrial)> {
    let events = log.events().to_vec();
    let (env, files) = match env {
        Some((e, f)) => (Some(e), f),
        None => (None, None),
    };
    let workspace = env.and_then(|e| e.final_workspace());
    let by = env.map_or(crate::run::environment::workspace_keep::KeepBy::Copy, |e| {
        e.keep_final_workspace_by()
    });
    // Keep the final workspace with the run (bounded) so file checks can be re-run by
    // `rescore` and reviewers can see what the agent changed.
    let kept = match workspace.clone() {
        Some(ws) => {
            let (trial, redactor) = (TrialDir::at(dir), ctx.redactor.clone());
            crate::util::blocking::off_runtime(move || Ok(trial.keep_workspace(&ws, &redactor, by))).await?
        }
        None => None,
    };
    let workspace_masked = kept.is_some();
    // Not kept (too large): its changed files are searched for secrets where they lie.
    let live_secret_search = match (&kept, &workspace) {
        (None, Some(ws)) => {
            let (ws, facts, redactor) = (ws.clone(), files.clone(), ctx.redactor.clone());
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
    let workspace = kept.or(workspace);
    let known = known_tools(&ctx.job);
    let input = CheckInput {
        case,
        events: &events,
        workspace: workspace.as_deref(),
        workspace_masked,
        live_secret_search: live_secret_search.as_ref(),
        known_tools: known.as_deref(),
        egress_must_be_clean: ctx.job.job.review.gates.no_denied_egress == Some(true),
        files: files.as_ref(),
        observability: crate::judge::observability::Observability::of_run(&ctx.job.job, &events),
    };
    let judge_started = Instant::now();
    let (mut verdict, calls) = crate::llm::meter::metered(judge_case(case, &end, ctx.judge.as_ref(), &input)).await;
    let judge_ms = judge_started.elapsed().as_millis() as u64;
    emit_model_calls(&mut log, Role::Judge, calls)?;
    log.emit(RunEvent::CaseTiming {
        sandbox_ms,
        setup_ms,
        judge_ms,
    })?;
    verdict.duration_ms = started.elapsed().as_millis() as u64;
    log.emit(RunEvent::CaseFinished {
        verdict: verdict.verdict,
        duration_ms: started.elapsed().as_millis() as u64,
    })?;
    let usage = Usage::from_events(log.events().iter().map(|e| &e.event));
    let pending = PendingTrial {
        trial: TrialDir::at(dir),
        log: log.close(),
        verdict: verdict_bytes(&verdict, &ctx.redactor)?,
    };
    Ok((verdict, usage, pending))
}

/// The time the job's setup steps took, from their events.
fn setup_time(events: &[crate::trial::Envelope]) -> u64 {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::SetupStep { duration_ms, .. } => Some(*duration_ms),
            _ => None,
        })
        .sum()
}
