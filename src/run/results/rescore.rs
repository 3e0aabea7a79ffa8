//! Re-judging a stored run without re-running the agent: the events, the case and the kept
//! final workspace are read back, judged again, and written as a new run.
//! This reproduces inputs and harness behaviour, not the model's answers.

use std::path::Path;

use crate::judge::case_verdict::{judge_case, write_verdict};
use crate::judge::checks::CheckInput;
use crate::judge::facts::job_contract_facts;
use crate::judge::llm_judge::Judge;
use crate::redact::Redactor;
use crate::run::case::case_finish::known_tools;
use crate::run::store::run_dir::RunDir;
use crate::run::suite::{SuiteSummary, write_outcome};
use crate::spec::LoadedJob;
use crate::trial::ConversationEnd;
use crate::trial::case::CaseSpec;
use crate::trial::events::{RunEvent, StopReason};

/// How the stored conversation ended, read from its events.
pub(crate) fn end_from_events(events: &[crate::trial::events::Envelope]) -> ConversationEnd {
    for e in events {
        match &e.event {
            RunEvent::InfraError { component, reason } => {
                return ConversationEnd::Infra {
                    component: component.clone(),
                    reason: reason.clone(),
                };
            }
            RunEvent::EmulatorBreak { kind, evidence, .. } => {
                return ConversationEnd::EmulatorBroke {
                    kind: kind.clone(),
                    evidence: evidence.clone(),
                };
            }
            _ => {}
        }
    }
    let reason = events
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            RunEvent::Stopped { reason, .. } => Some(*reason),
            _ => None,
        })
        .unwrap_or(StopReason::Cancelled);
    ConversationEnd::Completed(reason)
}

/// Re-judges every trial of `src` into the new run folder `dst`.
pub async fn rescore(job: &LoadedJob, judge: &dyn Judge, src: &Path, dst: &Path) -> std::io::Result<SuiteSummary> {
    // The same contract facts `ghostlab test` reads; read before any work, so a corrupt
    // contract.json is refused up front.
    let facts = job_contract_facts(job).map_err(std::io::Error::other)?;
    crate::run::results::stored_versions::check_stored_run(src).map_err(std::io::Error::other)?;
    let mut redactor = Redactor::for_job(job);
    crate::run::case::dataset_cases::protect_dataset_names(&mut redactor, &job.state_dir())
        .map_err(std::io::Error::other)?;
    let known = known_tools(job);
    let mut verdicts = Vec::new();
    let (from, to) = (RunDir::new(src), RunDir::new(dst));
    // Only committed trials: a folder without verdict.json is a trial that never finished.
    let trial_dirs: Vec<_> = from.trials().into_iter().filter(|t| t.is_committed()).collect();
    if trial_dirs.is_empty() {
        return Err(std::io::Error::other(format!(
            "{}: no finished trials (cases/<id>/trial-<k>/verdict.json)",
            src.display()
        )));
    }
    for dir in trial_dirs {
        let case: CaseSpec = serde_json::from_str(&crate::util::bounded::read_bounded_string(
            &dir.case_file(),
            crate::util::bounded::FileKind::State,
        )?)
        .map_err(std::io::Error::other)?;
        let events = crate::run::store::events_file::read_events(&dir.events())?;
        let end = end_from_events(&events);
        let ws = dir.workspace_after();
        // File observations cannot be re-made after the session is gone; reuse the recorded ones.
        let files = crate::run::suite::read_verdict(&dir.verdict()).and_then(|v| v.observed.files);
        let input = CheckInput {
            case: &case,
            events: &events,
            workspace: ws.is_dir().then_some(ws.as_path()),
            workspace_masked: ws.is_dir(),
            live_secret_search: None,
            known_tools: known.as_deref(),
            egress_must_be_clean: job.job.review.gates.no_denied_egress == Some(true),
            files: files.as_ref(),
            observability: crate::judge::observability::Observability::of_run(&job.job, &events),
        };
        let verdict = judge_case(&case, &end, judge, &input).await;
        let out = to.trial(&dir.case_id, dir.trial);
        std::fs::create_dir_all(&out.path)?;
        crate::util::copy_atomic(&dir.case_file(), &out.case_file())?;
        crate::util::copy_atomic(&dir.events(), &out.events())?;
        write_verdict(&out.verdict(), &verdict, &redactor)?;
        verdicts.push(verdict);
    }
    if let Ok(text) = crate::util::bounded::read_bounded_string(&from.manifest(), crate::util::bounded::FileKind::State)
        && let Ok(mut manifest) = serde_json::from_str::<serde_json::Value>(&text)
    {
        manifest["rescored_from"] = serde_json::Value::String(src.to_string_lossy().into_owned());
        manifest["judge"] = serde_json::Value::String(judge.label());
        crate::util::write_json_atomic(&to.manifest(), &manifest)?;
    }
    write_outcome(&job.job.review.gates, &to.id(), &verdicts, dst, &facts)
}
