//! Builds the [`Report`] from a run folder, the job and the job's state folder.
//!
//! Every text passes through the job's `Redactor` here, once more than the run already did:
//! a secret that slipped into an artifact must still not reach the report. Generated files
//! owned by other commands are read as loose JSON; a missing one is reported as such.

use std::path::Path;

use super::config::config_section;
use super::generated::{dataset, items};
use super::summary::{role_tokens, summary_page};

use super::critique::build_critique;
use super::error::ReportError;
use super::model::*;
use super::read::{read_json, read_value, red};
use crate::judge::case_verdict::VerdictFile;
use crate::judge::{Answer, CheckOutcome};
use crate::mcp::contract::decisions::{decisions_path, load as load_decisions};
use crate::redact::Redactor;
use crate::run::store::manifest::Manifest;
use crate::run::store::run_dir::{RunDir, TrialDir};
use crate::run::suite::SuiteSummary;
use crate::spec::LoadedJob;
use crate::trial::{CaseSpec, Envelope, RunEvent, ToolCallRef};

/// Assembles the report of `run_dir` for `job`.
pub fn build_report(job: &LoadedJob, run_dir: &Path) -> Result<Report, ReportError> {
    let redactor = redactor_for_report(job);
    build_report_with(job, run_dir, &redactor)
}

/// The job's redactor, leaving the dataset's ids and names whole. A name holding a secret
/// (refused by `test` already) stays masked here rather than failing the report.
pub(crate) fn redactor_for_report(job: &LoadedJob) -> Redactor {
    let mut r = Redactor::for_job(job);
    // On a refusal `protect` leaves `r` as it was: everything is masked as before.
    let _refused = crate::run::case::dataset_cases::protect_dataset_names(&mut r, &job.state_dir());
    r
}

/// Same as [`build_report`] with a caller's redactor (which may know extra secrets).
pub fn build_report_with(job: &LoadedJob, run_dir: &Path, r: &Redactor) -> Result<Report, ReportError> {
    if !run_dir.is_dir() {
        return Err(ReportError::NoRun(run_dir.to_path_buf()));
    }
    // Files of a newer Ghostlab (or without a version) stop the report, naming the file; a
    // torn one is shown on its trial instead.
    crate::run::results::stored_versions::check_stored_versions(run_dir)?;
    let state = job.state_dir();
    let run = RunDir::new(run_dir);
    let manifest: Option<Manifest> = read_json(&run.manifest());
    let suite: Option<SuiteSummary> = read_json(&run.summary());
    let trials = read_trials(&run, r);
    let run_id = run.id();
    let agent = &job.job.agent;
    let title = format!(
        "Rollout report: {}",
        agent.name.clone().unwrap_or_else(|| agent.id.clone())
    );
    let critique = build_critique(
        &trials,
        read_value(&state.join("contract.json")),
        read_value(&state.join("inventory.json")),
        load_decisions(&decisions_path(&job.file)),
        &crate::run::results::run_findings::run_findings(run_dir),
        r,
    );
    let mut summary = summary_page(manifest.as_ref(), suite.as_ref(), &trials, r);
    summary.tokens = role_tokens(&trials, manifest.as_ref().map(|m| m.emulator.as_str()));
    if let Some(time) = run_timing(&trials) {
        summary
            .manifest
            .push(("Where the time went".into(), time.shares_line()));
    }
    let dataset = dataset(&state.join("dataset.json"), r);
    let mut personas = items(&state.join("personas.json"), "personas", &trials, r);
    let mut scenarios = items(&state.join("scenarios.json"), "scenarios", &trials, r);
    // Curated-away items are summarised; printing them in full made the example's PDF long.
    let of = |col: usize| -> Vec<(String, String)> {
        dataset.cases.iter().map(|c| (c[col].clone(), c[3].clone())).collect()
    };
    personas.set_aside_rejected(&of(1));
    scenarios.set_aside_rejected(&of(2));
    Ok(Report {
        version: REPORT_VERSION,
        title: r.redact(&title).into_owned(),
        agent_id: r.redact(&agent.id).into_owned(),
        run_id: r.redact(&run_id).into_owned(),
        job_file: r.redact(&job.file.to_string_lossy()).into_owned(),
        generated: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
        summary,
        config: config_section(job, run_dir, r),
        profile: super::profile_section::profile_section(&state.join("agent-profile.json"), r),
        personas,
        scenarios,
        dataset,
        trials,
        critique,
        gates: GatesSection {
            gates: suite
                .as_ref()
                .map(|s| {
                    s.gates
                        .iter()
                        .map(|g| crate::judge::GateResult {
                            gate: r.redact(&g.gate).into_owned(),
                            required: r.redact(&g.required).into_owned(),
                            actual: r.redact(&g.actual).into_owned(),
                            met: g.met,
                            figures: g.figures.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            gates_met: suite.as_ref().map(|s| s.gates_met),
        },
    })
}

/// The trials' timings summed; `None` when no trial recorded any.
fn run_timing(trials: &[TrialReport]) -> Option<super::timing::Timing> {
    let mut timed = trials.iter().filter_map(|t| t.timing.as_ref()).peekable();
    timed.peek()?;
    let mut run = super::timing::Timing::default();
    timed.for_each(|t| run.add(t));
    Some(run)
}

/// Every trial's report, in the run folder's order; a large run's trials are read and parsed
/// on a few threads at once.
fn read_trials(run: &RunDir, r: &Redactor) -> Vec<TrialReport> {
    crate::util::blocking::map_in_shares(&run.trials(), TRIALS_PER_READER, |i, t| read_trial(i, t, r))
}

/// Below this many trials per thread a reader thread's start costs more than it saves.
const TRIALS_PER_READER: usize = 32;

fn read_trial(index: usize, dir: &TrialDir, r: &Redactor) -> TrialReport {
    let (case_id, trial) = (dir.case_id.as_str(), dir.trial);
    let mut problems = Vec::new();
    let spec: Option<CaseSpec> = read_json(&dir.case_file());
    if spec.is_none() {
        problems.push("case.json missing or unreadable".to_string());
    }
    let verdict: Option<VerdictFile> = read_json(&dir.verdict());
    if verdict.is_none() {
        problems.push("verdict.json missing or unreadable (trial did not finish)".to_string());
    }
    let events = match dir.read_events() {
        Ok(ev) => ev,
        Err(e) => {
            problems.push(format!("events: {e}"));
            Vec::new()
        }
    };
    let usage = crate::trial::Usage::from_events(events.iter().map(|e| &e.event));
    let (persona, scenario_id, scenario, goal) = match &spec {
        Some(s) => (
            if s.persona.name.is_empty() {
                s.persona.id.clone()
            } else {
                s.persona.name.clone()
            },
            s.scenario.id.clone(),
            if s.scenario.title.is_empty() {
                s.scenario.id.clone()
            } else {
                s.scenario.title.clone()
            },
            s.scenario.goal.clone(),
        ),
        None => Default::default(),
    };
    TrialReport {
        case_id: red(r, case_id),
        trial,
        anchor: format!("t{}", index + 1),
        persona: red(r, &persona),
        scenario_id: red(r, &scenario_id),
        scenario: red(r, &scenario),
        goal: red(r, &goal),
        verdict: verdict.as_ref().map(|v| v.verdict),
        reasons: verdict
            .as_ref()
            .map(|v| v.reasons.iter().map(|x| red(r, x)).collect())
            .unwrap_or_default(),
        judge: verdict.as_ref().map(|v| red(r, &v.judge)).unwrap_or_default(),
        duration_ms: verdict.as_ref().map(|v| v.duration_ms).unwrap_or(0),
        entries: events.iter().filter_map(|e| entry(e, r)).collect(),
        criteria: verdict.as_ref().map(|v| criteria(v, r)).unwrap_or_default(),
        checks: verdict.as_ref().map(|v| checks(v, r)).unwrap_or_default(),
        observed: verdict
            .as_ref()
            .map(|v| {
                super::observed_rows::observed_rows(&v.observed)
                    .into_iter()
                    .map(|(k, x)| (k, red(r, &x)))
                    .collect()
            })
            .unwrap_or_default(),
        tokens: usage.total().tokens,
        cost_usd: usage.total().cost_usd,
        usage,
        problems,
        timing: super::timing::Timing::from_envelopes(&events),
    }
}

fn entry(e: &Envelope, r: &Redactor) -> Option<Entry> {
    let seq = e.seq;
    let note = |turn: Option<u32>, text: String| {
        Some(Entry::Note {
            seq,
            turn,
            text: red(r, &text),
        })
    };
    match &e.event {
        RunEvent::UserMessage { turn, text, latency_ms } => Some(Entry::User {
            seq,
            turn: *turn,
            text: truncate(&red(r, text), MAX_MESSAGE_TEXT),
            latency_ms: *latency_ms,
        }),
        RunEvent::AgentMessage {
            turn,
            text,
            latency_ms,
            tokens,
            ..
        } => Some(Entry::Agent {
            seq,
            turn: *turn,
            text: truncate(&red(r, text), MAX_MESSAGE_TEXT),
            latency_ms: *latency_ms,
            tokens: *tokens,
        }),
        RunEvent::ToolCall { .. } => e.event.tool_call().map(|call| Entry::Tool(tool_entry(seq, call, r))),
        RunEvent::CaseStarted { .. }
        | RunEvent::ModelCall { .. }
        | RunEvent::CaseFinished { .. }
        | RunEvent::TurnTiming { .. }
        | RunEvent::CaseTiming { .. } => None,
        RunEvent::SandboxReady { role, backend, .. } => note(None, format!("sandbox ready for {role:?} ({backend})")),
        RunEvent::AgentHost { label, note: why } if why.is_empty() => note(None, format!("agent host: {label}")),
        RunEvent::AgentHost { label, note: why } => note(None, format!("agent host: {label} ({why})")),
        RunEvent::SetupStep {
            name,
            exit_code,
            duration_ms,
        } => note(
            None,
            format!("setup `{name}` exited {exit_code} after {duration_ms} ms"),
        ),
        RunEvent::UserRefusal { turn, about } => note(Some(*turn), format!("the user refused: {about}")),
        RunEvent::UserConfirmation { turn, about } => note(Some(*turn), format!("the user confirmed: {about}")),
        RunEvent::EgressDenied { host, port, .. } => note(None, format!("egress denied: {host}:{port}")),
        // Dozens a turn, the agent host's own included: they stay in events.jsonl, and a check
        // that matched one names it in its detail.
        RunEvent::CommandsSeen { .. } => None,
        RunEvent::EmulatorBreak { turn, kind, evidence } => note(
            Some(*turn),
            format!("user emulator broke character ({kind}): {evidence}"),
        ),
        RunEvent::InfraError { component, reason } => {
            note(None, format!("infrastructure error in {component}: {reason}"))
        }
        RunEvent::Stopped { reason, detail } if detail.is_empty() => {
            note(None, format!("stopped: {}", reason.describe()))
        }
        RunEvent::Stopped { reason, detail } => note(None, format!("stopped: {} ({detail})", reason.describe())),
    }
}

/// A tool call as the report shows it: arguments pretty-printed, both texts redacted and cut.
fn tool_entry(seq: u64, call: ToolCallRef<'_>, r: &Redactor) -> ToolCall {
    let mut args = call.arguments.clone();
    r.redact_value(&mut args);
    let args = serde_json::to_string_pretty(&args).unwrap_or_default();
    ToolCall {
        seq,
        turn: call.turn,
        tool: red(r, call.tool),
        status: format!("{:?}", call.status),
        arguments: truncate(&red(r, &args), MAX_TOOL_TEXT),
        result: truncate(&red(r, call.result), MAX_TOOL_TEXT),
        latency_ms: call.latency_ms,
    }
}

fn criteria(v: &VerdictFile, r: &Redactor) -> Vec<CriterionRow> {
    v.criteria
        .iter()
        .map(|c| {
            let (answer, rationale, evidence) = match &c.answer {
                Answer::Upheld { evidence, rationale } => ("upheld", rationale.clone(), evidence.clone()),
                Answer::Violated { evidence, rationale } => ("violated", rationale.clone(), evidence.clone()),
                Answer::Unanswered { reason } => ("unanswered", reason.clone(), Vec::new()),
            };
            CriterionRow {
                id: red(r, &c.id),
                kind: format!("{:?}", c.kind),
                text: red(r, &c.text),
                answer: answer.into(),
                rationale: red(r, &rationale),
                evidence: evidence.iter().map(|x| red(r, x)).collect(),
            }
        })
        .collect()
}

fn checks(v: &VerdictFile, r: &Redactor) -> Vec<CheckRow> {
    v.checks
        .iter()
        .map(|c| {
            let (outcome, detail) = match &c.outcome {
                CheckOutcome::Passed { detail } => ("passed", detail),
                CheckOutcome::Failed { detail } => ("failed", detail),
                CheckOutcome::Errored { detail } => ("errored", detail),
                CheckOutcome::NotObservable { detail } => ("not_observable", detail),
            };
            CheckRow {
                name: red(r, &c.name),
                outcome: outcome.into(),
                detail: red(r, detail),
            }
        })
        .collect()
}
