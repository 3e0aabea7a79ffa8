//! A case's work inside its environment, in order: the job's setup steps, the file baseline,
//! the agent's start, the conversation, and bringing the results back to the host.
//!
//! A failure of this machinery is returned as `(component, reason)` for the case's
//! INFRA_ERROR; only an error writing the case's events is an `io::Error`.

use std::time::Duration;

use crate::run::agents::refusal_attribution::AttributedRefusals;
use crate::run::agents::runner::AgentRunner;
use crate::run::case::agent_start::{AgentInputs, build_runner};
use crate::run::case::conversation::{converse, last_turn, record_programs};
use crate::run::case::emulator::UserEmulator;
use crate::run::environment::case_environment::CaseEnvironment;
use crate::run::environment::observe_files::FileBaseline;
use crate::run::environment::spawn::{CommandSpec, run_bounded};
use crate::run::store::event_log::EventLog;
use crate::trial::ConversationEnd;
use crate::trial::case::CaseSpec;
use crate::trial::events::RunEvent;

/// How the work ended: the conversation's end, or the component that failed and why.
pub(crate) type Prepared = Result<ConversationEnd, (String, String)>;

/// What the case's work needs of the run's settings (`case_run::RunContext`).
pub(crate) struct CaseInputs<'a> {
    pub(crate) agent: AgentInputs<'a>,
    pub(crate) emulator: &'a dyn UserEmulator,
}

/// Runs the setup steps, starts the agent and holds the conversation; `baseline` receives the
/// workspace as setup left it, so what setup wrote is not taken for the agent's doing.
pub(crate) async fn prepare_and_converse(
    inputs: &CaseInputs<'_>,
    case: &CaseSpec,
    env: &dyn CaseEnvironment,
    log: &mut EventLog,
    baseline: &mut Option<FileBaseline>,
) -> std::io::Result<Prepared> {
    if let Err(failed) = run_setup_steps(inputs, env, log).await? {
        return Ok(Err(failed));
    }
    // After setup, so what setup installs is not taken for the agent's doing.
    if let Err(reason) = env.pull_results().await {
        return Ok(Err(("sandbox".into(), reason.to_string())));
    }
    *baseline = Some(FileBaseline::take(env));
    let runner = match start_agent(inputs, case, env, log).await? {
        Ok(runner) => runner,
        Err(failed) => return Ok(Err(failed)),
    };
    // A refused model request is told apart from a host the sandbox's policy blocked.
    let denied = || env.denials().into_iter().map(|d| (d.host, d.port)).collect();
    let mut runner = AttributedRefusals::new(runner, &denied);
    let mcp_servers: Vec<String> = inputs.agent.job.mcps.iter().map(|m| m.name.clone()).collect();
    // What the setup steps and the servers' start ran is the user's, not the agent's.
    drop(env.take_programs());
    let programs = || env.take_programs();
    let end = converse(case, &mut runner, inputs.emulator, &mcp_servers, &programs, log).await?;
    runner.close().await;
    // What the last turn left running (`nohup … &`) until now is that turn's too.
    let last = last_turn(log);
    record_programs(log, last, env.take_programs())?;
    if let Err(reason) = env.pull_results().await {
        return Ok(Err(("sandbox".into(), reason.to_string())));
    }
    Ok(Ok(end))
}

/// The job's setup steps, each in the environment with its timeout, stopping at the first that
/// fails.
async fn run_setup_steps(
    inputs: &CaseInputs<'_>,
    env: &dyn CaseEnvironment,
    log: &mut EventLog,
) -> std::io::Result<Result<(), (String, String)>> {
    for step in &inputs.agent.job.job.setup {
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
    Ok(Ok(()))
}

/// The agent's runner with its config pushed to where the agent reads it.
async fn start_agent(
    inputs: &CaseInputs<'_>,
    case: &CaseSpec,
    env: &dyn CaseEnvironment,
    log: &mut EventLog,
) -> std::io::Result<Result<Box<dyn AgentRunner>, (String, String)>> {
    let mut host_note = String::new();
    let runner: Box<dyn AgentRunner> = match build_runner(&inputs.agent, env, case, &mut host_note) {
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
    Ok(Ok(runner))
}

/// The time the job's setup steps took, from their events.
pub(crate) fn setup_time(events: &[crate::trial::Envelope]) -> u64 {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::SetupStep { duration_ms, .. } => Some(*duration_ms),
            _ => None,
        })
        .sum()
}
