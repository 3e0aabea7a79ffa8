//! Builds the [`Report`] from a run folder, the job and the job's state folder.
//!
//! Every text passes through the job's `Redactor` here, once more than the run already did:
//! a secret that slipped into an artifact must still not reach the report. Generated files
//! owned by other commands are read as loose JSON; a missing one is reported as such.

use serde_json::Value;
use std::path::{Path, PathBuf};

use super::ReportError;
use super::critique::build_critique;
use super::model::*;
use crate::judge::case_verdict::VerdictFile;
use crate::judge::{Answer, CheckOutcome, Verdict};
use crate::redact::{MASK, Redactor};
use crate::run::case::CaseSpec;
use crate::run::event_log::read_events;
use crate::run::events::{Envelope, Role, RunEvent};
use crate::run::manifest::Manifest;
use crate::run::suite::SuiteSummary;
use crate::spec::{LoadedJob, McpTransport};
use crate::util::secret_ref::{has_reference, is_secret_name};

/// Assembles the report of `run_dir` for `job`.
pub fn build_report(job: &LoadedJob, run_dir: &Path) -> Result<Report, ReportError> {
    let redactor = Redactor::for_job(job);
    build_report_with(job, run_dir, &redactor)
}

/// Same as [`build_report`] with a caller's redactor (which may know extra secrets).
pub fn build_report_with(job: &LoadedJob, run_dir: &Path, r: &Redactor) -> Result<Report, ReportError> {
    if !run_dir.is_dir() {
        return Err(ReportError::NoRun(run_dir.to_path_buf()));
    }
    let state = job.state_dir();
    let manifest: Option<Manifest> = read_json(&run_dir.join("manifest.json"));
    let suite: Option<SuiteSummary> = read_json(&run_dir.join("summary.json"));
    let trials = read_trials(run_dir, r);
    let run_id = run_dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let agent = &job.job.agent;
    let title = format!(
        "Rollout report: {}",
        agent.name.clone().unwrap_or_else(|| agent.id.clone())
    );
    let critique = build_critique(
        &trials,
        read_value(&state.join("contract.json")),
        read_value(&state.join("inventory.json")),
        r,
    );
    let mut summary = summary_page(manifest.as_ref(), suite.as_ref(), &trials, r);
    summary.tokens = role_tokens(run_dir);
    Ok(Report {
        version: REPORT_VERSION,
        title: r.redact(&title).into_owned(),
        agent_id: r.redact(&agent.id).into_owned(),
        run_id: r.redact(&run_id).into_owned(),
        job_file: r.redact(&job.file.to_string_lossy()).into_owned(),
        generated: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
        summary,
        config: config_section(job, run_dir, r),
        profile: generated(&state.join("agent-profile.json"), r),
        personas: items(&state.join("personas.json"), "personas", &trials, r),
        scenarios: items(&state.join("scenarios.json"), "scenarios", &trials, r),
        dataset: dataset(&state.join("dataset.json"), r),
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
                        })
                        .collect()
                })
                .unwrap_or_default(),
            gates_met: suite.as_ref().map(|s| s.gates_met),
        },
    })
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn read_value(path: &Path) -> Option<Value> {
    read_json(path)
}

fn red(r: &Redactor, s: &str) -> String {
    r.redact(s).into_owned()
}

/// Every `cases/<id>/trial-<k>` folder, sorted by case then trial number.
fn trial_dirs(run_dir: &Path) -> Vec<(String, u32, PathBuf)> {
    let mut out = Vec::new();
    let Ok(cases) = std::fs::read_dir(run_dir.join("cases")) else {
        return out;
    };
    for case in cases.filter_map(Result::ok) {
        let Ok(trials) = std::fs::read_dir(case.path()) else {
            continue;
        };
        for t in trials.filter_map(Result::ok) {
            let name = t.file_name().to_string_lossy().into_owned();
            if let Some(k) = name.strip_prefix("trial-").and_then(|k| k.parse().ok()) {
                out.push((case.file_name().to_string_lossy().into_owned(), k, t.path()));
            }
        }
    }
    out.sort_by(|a, b| (a.0.as_str(), a.1).cmp(&(b.0.as_str(), b.1)));
    out
}

fn read_trials(run_dir: &Path, r: &Redactor) -> Vec<TrialReport> {
    trial_dirs(run_dir)
        .into_iter()
        .enumerate()
        .map(|(i, (case_id, trial, dir))| read_trial(i, &case_id, trial, &dir, r))
        .collect()
}

fn read_trial(index: usize, case_id: &str, trial: u32, dir: &Path, r: &Redactor) -> TrialReport {
    let mut problems = Vec::new();
    let spec: Option<CaseSpec> = read_json(&dir.join("case.json"));
    if spec.is_none() {
        problems.push("case.json missing or unreadable".to_string());
    }
    let verdict: Option<VerdictFile> = read_json(&dir.join("verdict.json"));
    if verdict.is_none() {
        problems.push("verdict.json missing or unreadable (trial did not finish)".to_string());
    }
    let events_path = dir.join("events.jsonl");
    let partial = dir.join("events.jsonl.partial");
    let events = match read_events(&events_path).or_else(|_| read_events(&partial)) {
        Ok(ev) => ev,
        Err(e) => {
            problems.push(format!("events: {e}"));
            Vec::new()
        }
    };
    let (tokens, cost_usd) = events.iter().fold((0, 0.0), |(t, c), e| match &e.event {
        RunEvent::AgentMessage { tokens, cost_usd, .. } => (t + tokens, c + cost_usd),
        RunEvent::ModelCall {
            prompt_tokens,
            completion_tokens,
            cost_usd,
            ..
        } => (t + prompt_tokens + completion_tokens, c + cost_usd),
        _ => (t, c),
    });
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
        tokens,
        cost_usd,
        problems,
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
        RunEvent::ToolCall {
            turn,
            tool,
            arguments,
            result,
            status,
            latency_ms,
            ..
        } => {
            let mut args = arguments.clone();
            r.redact_value(&mut args);
            let args = serde_json::to_string_pretty(&args).unwrap_or_default();
            Some(Entry::Tool {
                seq,
                turn: *turn,
                tool: red(r, tool),
                status: format!("{status:?}"),
                arguments: truncate(&red(r, &args), MAX_TOOL_TEXT),
                result: truncate(&red(r, result), MAX_TOOL_TEXT),
                latency_ms: *latency_ms,
            })
        }
        RunEvent::CaseStarted { .. } | RunEvent::ModelCall { .. } | RunEvent::CaseFinished { .. } => None,
        RunEvent::SandboxReady { role, backend, .. } => note(None, format!("sandbox ready for {role:?} ({backend})")),
        RunEvent::SetupStep {
            name,
            exit_code,
            duration_ms,
        } => note(
            None,
            format!("setup `{name}` exited {exit_code} after {duration_ms} ms"),
        ),
        RunEvent::UserRefusal { turn, about } => note(Some(*turn), format!("the user refused: {about}")),
        RunEvent::EgressDenied { host, port, .. } => note(None, format!("egress denied: {host}:{port}")),
        RunEvent::EmulatorBreak { turn, kind, evidence } => note(
            Some(*turn),
            format!("user emulator broke character ({kind}): {evidence}"),
        ),
        RunEvent::InfraError { component, reason } => {
            note(None, format!("infrastructure error in {component}: {reason}"))
        }
        RunEvent::Stopped { reason, detail } => note(None, format!("stopped: {reason:?} {detail}")),
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
            };
            CheckRow {
                name: red(r, &c.name),
                outcome: outcome.into(),
                detail: red(r, detail),
            }
        })
        .collect()
}

fn summary_page(m: Option<&Manifest>, s: Option<&SuiteSummary>, trials: &[TrialReport], r: &Redactor) -> SummaryPage {
    let mut manifest = Vec::new();
    if let Some(m) = m {
        manifest.push(("Harness".into(), m.harness.clone()));
        manifest.push(("Started".into(), m.started.format("%Y-%m-%d %H:%M:%S UTC").to_string()));
        manifest.push(("Agent runner".into(), m.agent_runner.clone()));
        manifest.push(("User emulator".into(), m.emulator.clone()));
        manifest.push(("Judge".into(), m.judge.clone()));
        manifest.push(("Trials per case".into(), m.repeat.to_string()));
        if let Some((i, n)) = m.partition {
            manifest.push(("Partition".into(), format!("{i} of {n}")));
        }
        manifest.push(("Replay".into(), m.replay_note.clone()));
    } else {
        manifest.push(("Manifest".into(), "manifest.json not found in the run folder".into()));
    }
    let manifest = manifest.into_iter().map(|(k, v)| (k, red(r, &v))).collect();
    let mut chart: Vec<ScenarioBar> = Vec::new();
    for t in trials {
        let name = if t.scenario_id.is_empty() {
            t.case_id.clone()
        } else {
            t.scenario_id.clone()
        };
        let idx = match chart.iter().position(|b| b.scenario == name) {
            Some(i) => i,
            None => {
                chart.push(ScenarioBar {
                    scenario: name,
                    ..Default::default()
                });
                chart.len() - 1
            }
        };
        let bar = &mut chart[idx];
        match t.verdict {
            Some(Verdict::Pass) => bar.pass += 1,
            Some(Verdict::Fail) => bar.fail += 1,
            Some(Verdict::Inconclusive) => bar.inconclusive += 1,
            // An unfinished trial has no verdict; it is an infrastructure problem, never a pass.
            Some(Verdict::InfraError) | None => bar.infra_error += 1,
        }
    }
    SummaryPage {
        figures: s.map(|s| s.summary.clone()),
        tokens: TokenTotals::default(),
        readiness: readiness(s),
        chart,
        manifest,
    }
}

/// READY only with a finished run, at least one trial, and every gate met (or, with no gates
/// configured, every trial a PASS). INCONCLUSIVE and INFRA_ERROR never help.
fn readiness(s: Option<&SuiteSummary>) -> Readiness {
    let not = |reasons: Vec<String>| Readiness {
        ready: false,
        label: "NOT READY".into(),
        reasons,
    };
    let Some(s) = s else {
        return not(vec!["the run has no summary.json: it did not finish".into()]);
    };
    if s.summary.trials == 0 {
        return not(vec!["the run has no trials: an empty run proves nothing".into()]);
    }
    let mut reasons: Vec<String> = s
        .gates
        .iter()
        .filter(|g| !g.met)
        .map(|g| format!("gate {} not met: required {}, actual {}", g.gate, g.required, g.actual))
        .collect();
    if s.gates.is_empty() && s.summary.pass < s.summary.trials {
        reasons.push(format!(
            "no gates configured and {} of {} trials did not pass",
            s.summary.trials - s.summary.pass,
            s.summary.trials
        ));
    }
    if reasons.is_empty() {
        let why = if s.gates.is_empty() {
            "no gates configured; every trial passed".to_string()
        } else {
            format!("all {} gates met", s.gates.len())
        };
        Readiness {
            ready: true,
            label: "READY".into(),
            reasons: vec![why],
        }
    } else {
        not(reasons)
    }
}

/// Token and cost totals per role, summed over every trial's events.
fn role_tokens(run_dir: &Path) -> TokenTotals {
    let mut t = TokenTotals::default();
    for (_, _, dir) in trial_dirs(run_dir) {
        let Ok(events) = read_events(&dir.join("events.jsonl")) else {
            continue;
        };
        for e in events {
            match e.event {
                RunEvent::AgentMessage { tokens, cost_usd, .. } => {
                    t.agent_tokens += tokens;
                    t.cost_usd += cost_usd;
                }
                RunEvent::ModelCall {
                    role,
                    prompt_tokens,
                    completion_tokens,
                    cost_usd,
                    ..
                } => {
                    t.model_calls += 1;
                    t.cost_usd += cost_usd;
                    let n = prompt_tokens + completion_tokens;
                    match role {
                        Role::Agent => t.agent_tokens += n,
                        Role::Emulator => t.emulator_tokens += n,
                        Role::Judge => t.judge_tokens += n,
                    }
                }
                _ => {}
            }
        }
    }
    t
}

fn config_section(job: &LoadedJob, run_dir: &Path, r: &Redactor) -> ConfigSection {
    let a = &job.job.agent;
    let rt = &a.runtime;
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "—".into());
    let list = |v: &[String]| if v.is_empty() { "—".to_string() } else { v.join(", ") };
    let mut agent = vec![
        ("Agent id".to_string(), a.id.clone()),
        ("Name".into(), opt(&a.name)),
        ("Description".into(), opt(&a.description)),
        ("Runtime backend".into(), format!("{:?}", rt.backend).to_lowercase()),
        ("Model".into(), opt(&rt.model)),
        ("Small model".into(), opt(&rt.small_model)),
        ("Default agent".into(), opt(&rt.default_agent)),
        ("Instructions".into(), list(&rt.instructions)),
        ("Skills".into(), list(&rt.skills.paths)),
        ("Workspace".into(), opt(&a.workspace)),
    ];
    if !rt.tools.is_empty() {
        let tools: Vec<String> = rt.tools.iter().map(|(k, v)| format!("{k}={v}")).collect();
        agent.push(("Tools".into(), tools.join(", ")));
    }
    if let Some(p) = &rt.permission {
        agent.push(("Permission".into(), masked_json(p)));
    }
    if !rt.agents.is_empty() {
        agent.push((
            "Sub-agents".into(),
            rt.agents.keys().cloned().collect::<Vec<_>>().join(", "),
        ));
    }
    let agent = agent.into_iter().map(|(k, v)| (k, red(r, &v))).collect();
    let mcps = job
        .mcps
        .iter()
        .map(|m| {
            let (transport, target, env) = match &m.transport {
                McpTransport::Stdio { command, env, .. } => ("stdio".to_string(), command.join(" "), pairs(env)),
                McpTransport::Remote { url, headers, kind } => {
                    (format!("{kind:?}").to_lowercase(), url.clone(), pairs(headers))
                }
            };
            McpRow {
                name: red(r, &m.name),
                transport,
                target: red(r, &target),
                env: red(r, &env),
                enabled: m.enabled,
            }
        })
        .collect();
    let mut agent_value = serde_json::to_value(a).unwrap_or(Value::Null);
    mask_secret_keys(&mut agent_value);
    r.redact_value(&mut agent_value);
    let agent_yaml = yaml_serde::to_string(&agent_value).unwrap_or_default();
    let sb = &job.job.sandbox;
    let mut seen: Vec<String> = Vec::new();
    let mut denied = Vec::new();
    for (_, trial, dir) in trial_dirs(run_dir) {
        for e in read_events(&dir.join("events.jsonl")).unwrap_or_default() {
            match &e.event {
                RunEvent::SandboxReady { role, backend, .. } => {
                    let s = format!("{backend} ({role:?})");
                    if !seen.contains(&s) {
                        seen.push(s);
                    }
                }
                RunEvent::EgressDenied { host, port, at } => denied.push(DeniedEgress {
                    case: red(r, &e.case),
                    trial,
                    host: red(r, host),
                    port: *port,
                    at: at.format("%H:%M:%S").to_string(),
                }),
                _ => {}
            }
        }
    }
    let sandbox = vec![
        (
            "Configured backend".to_string(),
            format!("{:?}", sb.backend).to_lowercase(),
        ),
        ("Backends used".into(), list(&seen)),
        ("Image".into(), opt(&sb.image)),
        ("Workdir".into(), sb.workdir.clone()),
        ("Network".into(), format!("{:?}", sb.network).to_lowercase()),
        ("Allowlist".into(), list(&sb.allow)),
        ("Policy".into(), opt(&sb.policy)),
        ("Environment allowlist (names)".into(), list(&sb.env_allowlist)),
        ("Credential variables (names)".into(), list(&sb.credentials.env)),
        ("OpenCode auth mounted".into(), sb.credentials.opencode_auth.to_string()),
        (
            "CPU".into(),
            sb.cpu.map(|c| c.to_string()).unwrap_or_else(|| "—".into()),
        ),
        ("Memory".into(), opt(&sb.memory)),
        ("Timeout".into(), opt(&sb.timeout)),
        (
            "Processes".into(),
            sb.processes.map(|c| c.to_string()).unwrap_or_else(|| "—".into()),
        ),
        ("File size".into(), opt(&sb.file_size)),
        ("Keep after run".into(), sb.keep.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k, red(r, &v)))
    .collect();
    ConfigSection {
        agent,
        mcps,
        agent_yaml: red(r, &agent_yaml),
        sandbox,
        denied,
    }
}

/// `KEY=value` pairs where a secret-named key shows only its reference, never a literal.
fn pairs(map: &indexmap::IndexMap<String, String>) -> String {
    map.iter()
        .map(|(k, v)| {
            let shown = if has_reference(v) || !is_secret_name(k) {
                v.as_str()
            } else {
                MASK
            };
            format!("{k}={shown}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn masked_json<T: serde::Serialize>(v: &T) -> String {
    let mut value = serde_json::to_value(v).unwrap_or(Value::Null);
    mask_secret_keys(&mut value);
    serde_json::to_string(&value).unwrap_or_default()
}

/// Replaces literal values of secret-named keys; `${VAR}` references stay as they are.
fn mask_secret_keys(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, val) in map.iter_mut() {
                match val {
                    Value::String(s) if is_secret_name(k) && !has_reference(s) => *s = MASK.into(),
                    other => mask_secret_keys(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_secret_keys),
        _ => {}
    }
}

fn generated(path: &Path, r: &Redactor) -> Generated {
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match read_value(path) {
        Some(mut v) => {
            mask_secret_keys(&mut v);
            r.redact_value(&mut v);
            let mut lines = Vec::new();
            outline(&v, 0, &mut lines);
            Generated {
                file,
                present: true,
                outline: lines
                    .into_iter()
                    .map(|(d, t)| (d, truncate(&t, MAX_TOOL_TEXT)))
                    .collect(),
            }
        }
        None => Generated {
            file,
            present: false,
            outline: Vec::new(),
        },
    }
}

/// Personas or scenarios from the generated file; else from the run's case.json files.
fn items(path: &Path, key: &str, trials: &[TrialReport], r: &Redactor) -> ItemsSection {
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(mut v) = read_value(path) {
        mask_secret_keys(&mut v);
        r.redact_value(&mut v);
        let list = match v.get(key) {
            Some(Value::Array(a)) => a.clone(),
            _ => v.as_array().cloned().unwrap_or_default(),
        };
        return ItemsSection {
            source: file.clone(),
            file,
            items: list.iter().map(item_of).collect(),
        };
    }
    let mut out: Vec<Item> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for t in trials {
        let (id, title, desc) = if key == "personas" {
            (t.persona.clone(), t.persona.clone(), String::new())
        } else {
            (t.scenario_id.clone(), t.scenario.clone(), t.goal.clone())
        };
        if !id.is_empty() && seen.insert(id.clone()) {
            out.push(Item {
                id,
                title,
                description: desc,
                why: format!("not generated: {file} is absent; taken from the run's case.json"),
                details: Vec::new(),
            });
        }
    }
    ItemsSection {
        source: format!("{file} not generated; listed from the run's case.json files"),
        file,
        items: out,
    }
}

fn dataset(path: &Path, r: &Redactor) -> DatasetSection {
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(mut v) = read_value(path) else {
        return DatasetSection {
            file,
            present: false,
            cases: Vec::new(),
        };
    };
    mask_secret_keys(&mut v);
    r.redact_value(&mut v);
    let list = match v.get("cases") {
        Some(Value::Array(a)) => a.clone(),
        _ => v.as_array().cloned().unwrap_or_default(),
    };
    let field = |c: &Value, k: &str| c.get(k).map(scalar).unwrap_or_default();
    DatasetSection {
        file,
        present: true,
        cases: list
            .iter()
            .map(|c| {
                [
                    field(c, "id"),
                    field(c, "persona"),
                    field(c, "scenario"),
                    field(c, "status"),
                    field(c, "note"),
                ]
            })
            .collect(),
    }
}

fn item_of(v: &Value) -> Item {
    let get = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| v.get(*k).filter(|x| !x.is_null()))
            .map(|x| match x {
                Value::Object(_) => {
                    let mut lines = Vec::new();
                    outline(x, 0, &mut lines);
                    lines.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join("; ")
                }
                other => scalar(other),
            })
            .unwrap_or_default()
    };
    let used = [
        "id",
        "name",
        "title",
        "summary",
        "goal",
        "description",
        "why",
        "rationale",
        "reason",
    ];
    let details = v
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| !used.contains(&k.as_str()))
                .map(|(k, x)| {
                    let text = match x {
                        Value::Object(_) | Value::Array(_)
                            if !x.as_array().is_some_and(|a| a.iter().all(|i| !i.is_object())) =>
                        {
                            serde_json::to_string(x).unwrap_or_default()
                        }
                        other => scalar(other),
                    };
                    (k.clone(), truncate(&text, MAX_TOOL_TEXT))
                })
                .collect()
        })
        .unwrap_or_default();
    Item {
        id: get(&["id"]),
        title: get(&["name", "title"]),
        description: get(&["summary", "goal", "description"]),
        why: {
            let w = get(&["why", "rationale", "reason"]);
            if w.is_empty() { "no reason recorded".into() } else { w }
        },
        details,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{GateResult, Summary};

    fn suite(pass: usize, trials: usize, gates: Vec<GateResult>) -> SuiteSummary {
        SuiteSummary {
            version: 1,
            run_id: "r".into(),
            summary: Summary {
                cases: 1,
                trials,
                pass,
                inconclusive: trials - pass,
                ..Summary::default()
            },
            gates_met: gates.iter().all(|g| g.met),
            gates,
            cases: vec![],
        }
    }

    fn gate(met: bool) -> GateResult {
        GateResult {
            gate: "min_pass_rate".into(),
            required: ">= 80%".into(),
            actual: "50%".into(),
            met,
        }
    }

    #[test]
    fn readiness_needs_a_finished_non_empty_run_and_every_gate() {
        assert!(!readiness(None).ready);
        assert!(!readiness(Some(&suite(0, 0, vec![]))).ready);
        assert!(!readiness(Some(&suite(1, 2, vec![gate(false)]))).ready);
        assert!(readiness(Some(&suite(1, 2, vec![gate(true)]))).ready);
        // Without gates an INCONCLUSIVE trial is not a pass.
        assert!(!readiness(Some(&suite(1, 2, vec![]))).ready);
        assert!(readiness(Some(&suite(2, 2, vec![]))).ready);
    }

    #[test]
    fn secret_named_literals_are_masked_and_references_kept() {
        let mut v =
            serde_json::json!({"env": {"API_TOKEN": "literal-value", "GH_TOKEN": "${GH_TOKEN}", "MODE": "fast"}});
        mask_secret_keys(&mut v);
        assert_eq!(v["env"]["API_TOKEN"], MASK);
        assert_eq!(v["env"]["GH_TOKEN"], "${GH_TOKEN}");
        assert_eq!(v["env"]["MODE"], "fast");
    }
}
