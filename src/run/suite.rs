//! Running many cases: bounded parallelism, K trials each, resume after an interruption,
//! then the summary, gates and JUnit.

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::judge::case_verdict::VerdictFile;
use crate::judge::default_gates::{effective_gates, label_defaults, something_judged};
use crate::judge::junit::{JunitCase, render_junit};
use crate::judge::{CaseTrials, GateFacts, GateResult, Summary, apply_gates, summarize};
use crate::run::case::case_run::{RunContext, run_case};
use crate::run::store::run_dir::RunDir;
use crate::run::store::trial_committer::{Committed, commit_queue, wait_for_earlier_commits};
use crate::trial::case::CaseSpec;
use crate::trial::{Usage, Verdict};

pub(crate) const SUMMARY_VERSION: u32 = 1;

#[derive(Debug, Clone)]
pub struct SuiteOptions {
    pub repeat: u32,
    pub parallel: usize,
    /// Reuse finished trials (a readable verdict.json) in this run folder; INFRA_ERROR trials
    /// are re-run, their failed attempt kept under `attempts/`.
    pub resume: bool,
}

/// summary.json (its JSON Schema: `ghostlab schema --kind summary`, schemas/summary.schema.json).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SuiteSummary {
    pub version: u32,
    pub run_id: String,
    pub summary: Summary,
    pub gates: Vec<GateResult>,
    pub gates_met: bool,
    pub cases: Vec<CaseTrials>,
    /// Tokens and cost per role over every trial (absent in summaries written before it).
    #[serde(default)]
    pub usage: Usage,
}

/// The folder of one trial.
pub fn trial_dir(run_dir: &Path, case_id: &str, trial: u32) -> PathBuf {
    RunDir::new(run_dir).trial(case_id, trial).path
}

/// Runs every case `repeat` times with at most `parallel` at once; writes summary.json and
/// junit.xml into `run_dir`.
pub async fn run_suite(
    ctx: Arc<RunContext>,
    cases: Vec<CaseSpec>,
    opts: &SuiteOptions,
    run_dir: &Path,
    facts: GateFacts,
) -> std::io::Result<SuiteSummary> {
    let mut work = Vec::new();
    for case in &cases {
        for trial in 1..=opts.repeat.max(1) {
            let mut c = case.clone();
            c.trial = trial;
            work.push(c);
        }
    }
    // A batch of a dropped earlier run may still be landing: not while trial folders are read.
    wait_for_earlier_commits().await;
    // Decided trials are committed in batches beside the cases (`trial_committer`); a case's
    // slot does not wait for its commit, and the summary waits for all of them.
    let (commits, committer) = commit_queue(2 * opts.parallel.max(1));
    let case_ctx = ctx.clone();
    // The closure owns the queue's last clone, so the queue closes when the stream is dropped:
    // `join!` drops each future as soon as it completes, which ends `committer.run()`.
    let cases_done = futures::stream::iter(work.into_iter().map(move |case| {
        let (ctx, commits) = (case_ctx.clone(), commits.clone());
        let dir = trial_dir(run_dir, &case.id, case.trial);
        let resume = opts.resume;
        spawn_case(async move {
            if resume {
                match read_verdict(&dir.join("verdict.json")) {
                    Some(done) if done.verdict != crate::judge::Verdict::InfraError => return Ok((done, None)),
                    // An infrastructure error or an interrupted attempt is re-run; the old
                    // attempt stays in the trial's history.
                    _ if dir.exists() => {
                        crate::run::case::attempts::archive_attempt(&dir)?;
                    }
                    _ => {}
                }
            }
            let ran = run_case(&ctx, &case, dir, &commits).await?;
            Ok((ran.verdict, Some((ran.usage, ran.committed))))
        })
    }))
    .buffer_unordered(opts.parallel.max(1))
    .collect::<Vec<std::io::Result<(VerdictFile, Option<(Usage, Committed)>)>>>();
    let (results, ()) = futures::join!(cases_done, committer.run());
    let mut verdicts = Vec::with_capacity(results.len());
    let mut first_error = None;
    for r in results {
        match r {
            Ok((verdict, ran)) => {
                // Every commit has answered by now: the committer ran until the queue closed.
                let usage = match ran {
                    Some((usage, committed)) => {
                        if let Err(e) = committed.landed().await {
                            first_error.get_or_insert(e);
                        }
                        Some(usage)
                    }
                    // Judged in an earlier attempt: its usage is read from its events.
                    None => None,
                };
                verdicts.push((verdict, usage));
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    verdicts.sort_by(|(a, _), (b, _)| (a.case.as_str(), a.trial).cmp(&(b.case.as_str(), b.trial)));
    let (verdicts, usages): (Vec<VerdictFile>, Vec<Option<Usage>>) = verdicts.into_iter().unzip();
    let run_id = RunDir::new(run_dir).id();
    let summary = write_outcome_with(&ctx.job.job.review.gates, &run_id, &verdicts, usages, run_dir, &facts)?;
    Ok(summary)
}

/// Runs a case as a task of its own, started when its slot is free (the stream pulls it): the
/// runtime's worker threads share the cases instead of the one thread polling the suite.
/// Dropping the returned future (a cancelled run) aborts the case; a panic in it is carried on.
fn spawn_case<T: Send + 'static>(
    case: impl std::future::Future<Output = std::io::Result<T>> + Send + 'static,
) -> impl std::future::Future<Output = std::io::Result<T>> {
    use tracing::Instrument;
    let task = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(case.in_current_span()));
    async move {
        match task.await {
            Ok(outcome) => outcome,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(std::io::Error::other(format!("a case's task ended early: {e}"))),
        }
    }
}

/// Aggregates verdicts, applies gates, writes summary.json and junit.xml.
pub fn write_outcome(
    gates: &crate::spec::Gates,
    run_id: &str,
    verdicts: &[VerdictFile],
    run_dir: &Path,
    facts: &GateFacts,
) -> std::io::Result<SuiteSummary> {
    write_outcome_with(gates, run_id, verdicts, vec![None; verdicts.len()], run_dir, facts)
}

/// `write_outcome` with each trial's usage where it is already known (`None`: read from the
/// trial's events).
fn write_outcome_with(
    gates: &crate::spec::Gates,
    run_id: &str,
    verdicts: &[VerdictFile],
    known_usages: Vec<Option<Usage>>,
    run_dir: &Path,
    facts: &GateFacts,
) -> std::io::Result<SuiteSummary> {
    // One entry per verdict: the zips below would otherwise drop trials from junit.xml.
    debug_assert_eq!(known_usages.len(), verdicts.len());
    let cases = trials_by_case(verdicts);
    let mut summary = summarize(&cases);
    let by_evidence: Vec<bool> = verdicts
        .iter()
        .map(|v| crate::judge::evidence_criteria::decided_by_evidence(v.verdict, &v.criteria, &v.checks))
        .collect();
    for (v, settled) in verdicts.iter().zip(&by_evidence) {
        summary.pass_by_evidence += usize::from(*settled && v.verdict == Verdict::Pass);
        summary.fail_by_evidence += usize::from(*settled && v.verdict == Verdict::Fail);
    }
    // The no_denied_egress gate reads the agent's own recorded attempts (host lookups aside).
    let facts = GateFacts {
        denied_egress: verdicts.iter().map(|v| v.observed.agent_network().count()).sum(),
        reviewed_inconclusive: reviewed_inconclusive(verdicts, run_dir, facts),
        ..facts.clone()
    };
    let gate_results = gate_results(gates, &summary, &cases, &facts);
    let met = gate_results.iter().all(|g| g.met);
    let run = RunDir::new(run_dir);
    let usages = trial_usages(&run, verdicts, known_usages);
    let mut usage = Usage::default();
    for u in &usages {
        usage.add(u);
    }
    let out = SuiteSummary {
        version: SUMMARY_VERSION,
        run_id: run_id.into(),
        summary,
        gates: gate_results,
        gates_met: met,
        cases,
        usage,
    };
    // Both written (temp file + rename each), then made durable together: one fsync wave
    // for the two files and one for their folder, instead of two waits per file in turn.
    crate::util::durable::write_json_replace(&run.summary(), &out)?;
    write_junit(&run, verdicts, usages, by_evidence)?;
    crate::util::durable::sync_files(&[run.summary(), run.junit()])?;
    Ok(out)
}

/// Each case's trial verdicts, cases in the order they first appear.
fn trials_by_case(verdicts: &[VerdictFile]) -> Vec<CaseTrials> {
    let mut cases: Vec<CaseTrials> = Vec::new();
    for v in verdicts {
        match cases.iter_mut().find(|c| c.case_id == v.case) {
            Some(c) => c.trials.push(v.verdict),
            None => cases.push(CaseTrials {
                case_id: v.case.clone(),
                trials: vec![v.verdict],
            }),
        }
    }
    cases
}

/// The INCONCLUSIVE trials whose every finding a reviewer has decided (`facts.decisions`).
fn reviewed_inconclusive(verdicts: &[VerdictFile], run_dir: &Path, facts: &GateFacts) -> usize {
    verdicts
        .iter()
        .filter(|v| v.verdict == crate::trial::Verdict::Inconclusive)
        .filter(|v| {
            let trial = RunDir::new(run_dir).trial(&v.case, v.trial);
            read_case_spec(&trial.case_file()).is_some_and(|spec| {
                let found = crate::judge::verdict_findings::trial_findings(v, &spec);
                crate::judge::verdict_findings::reviewed_inconclusive(v, &found, &facts.decisions)
            })
        })
        .count()
}

/// The job's gates (or the defaults, labelled so) applied, plus the gate that something was judged.
fn gate_results(
    gates: &crate::spec::Gates,
    summary: &Summary,
    cases: &[CaseTrials],
    facts: &GateFacts,
) -> Vec<GateResult> {
    let (gates, defaulted) = effective_gates(gates);
    let mut results = apply_gates(&gates, summary, cases, facts);
    if defaulted {
        label_defaults(&mut results);
    }
    results.push(something_judged(summary));
    results
}

/// Each trial's tokens and cost: known, else from its events (a trial without readable events
/// has none).
fn trial_usages(run: &RunDir, verdicts: &[VerdictFile], known_usages: Vec<Option<Usage>>) -> Vec<Usage> {
    verdicts
        .iter()
        .zip(known_usages)
        .map(|(v, known)| {
            known.unwrap_or_else(|| {
                let events = run.trial(&v.case, v.trial).read_events().unwrap_or_default();
                Usage::from_events(events.iter().map(|e| &e.event))
            })
        })
        .collect()
}

/// junit.xml: one test case per trial, grouped by persona and scenario where its case is known.
fn write_junit(
    run: &RunDir,
    verdicts: &[VerdictFile],
    usages: Vec<Usage>,
    by_evidence: Vec<bool>,
) -> std::io::Result<()> {
    let junit: Vec<JunitCase<'_>> = verdicts
        .iter()
        .zip(usages)
        .zip(by_evidence)
        .map(|((v, usage), by_evidence)| {
            let spec = read_case_spec(&run.trial(&v.case, v.trial).case_file());
            JunitCase {
                persona: spec.as_ref().map(|c| c.persona.id.clone()),
                scenario: spec.map(|c| c.scenario.title),
                case_id: &v.case,
                trial: v.trial,
                verdict: v.verdict,
                reasons: &v.reasons,
                duration_s: v.duration_ms as f64 / 1000.0,
                usage,
                by_evidence,
            }
        })
        .collect();
    crate::util::durable::write_replace(&run.junit(), render_junit("ghostlab", &junit).as_bytes())
}

/// The case a trial ran (persona and scenario), for junit.xml's grouping; `None` when absent.
fn read_case_spec(path: &Path) -> Option<crate::trial::CaseSpec> {
    let text = crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::State).ok()?;
    serde_json::from_str(&text).ok()
}

/// Reads a finished trial's verdict; `None` when absent or unreadable (it is then re-run).
pub fn read_verdict(path: &Path) -> Option<VerdictFile> {
    let text = crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::State).ok()?;
    let v: VerdictFile = serde_json::from_str(&text).ok()?;
    (v.version == crate::judge::case_verdict::VERDICT_VERSION).then_some(v)
}

#[cfg(test)]
#[path = "suite_tests.rs"]
mod tests;
