//! Taking decisions on a job's findings — the contract's, and a run's verdict findings
//! (`judge::verdict_findings`) — : the one code path behind `ghostlab findings` and the lab's
//! results screen. It reads the job's contract and inventory, checks every id
//! before writing anything (a typo must not half-apply), and appends the decisions to
//! `<job>.decisions.json` under the folder's lock.

use serde_json::Value;
use std::path::{Path, PathBuf};

use super::Contract;
use super::decisions::{
    Decision, Decisions, DecisionsError, Standing, Verdict, decisions_path, evidence_digest, finding_id, load, save,
    standing,
};
use super::finding::Finding;
use crate::util::bounded::{FileKind, read_bounded_string, read_optional_string};

/// Why a decision could not be taken or the findings not listed.
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    #[error("{}: no contract yet; run `ghostlab discover --job {}` first", path.display(), job.display())]
    NoContract { path: PathBuf, job: PathBuf },
    #[error("{}: {reason}", path.display())]
    Contract { path: PathBuf, reason: String },
    #[error("no finding `{id}` in the job's contract or the run's verdicts; `ghostlab findings list --job {}` shows the ids", job.display())]
    UnknownFinding { id: String, job: PathBuf },
    #[error("the reason must say why (it is shown in the report)")]
    EmptyReason,
    #[error("{0}")]
    Decisions(#[from] DecisionsError),
    #[error("{0}")]
    Lock(String),
}

/// A job's findings with what was decided on each.
#[derive(Debug, Clone)]
pub(crate) struct JobFindings {
    pub(crate) contract: Contract,
    /// inventory.json as JSON, for the evidence digests.
    pub(crate) inventory: Option<Value>,
    pub(crate) decisions: Decisions,
}

/// One finding as a person decides on it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FindingRow {
    pub(crate) id: String,
    pub(crate) finding: Finding,
    pub(crate) standing: Standing,
}

impl JobFindings {
    /// Every finding, in the contract's order, with its standing.
    pub(crate) fn rows(&self) -> Vec<FindingRow> {
        self.contract
            .findings
            .iter()
            .map(|f| FindingRow {
                id: finding_id(f),
                finding: f.clone(),
                standing: standing(f, self.inventory.as_ref(), &self.decisions),
            })
            .collect()
    }
}

/// Reads the contract, inventory and decisions of the job at `job_file` (state in `state_dir`).
pub(crate) fn job_findings(job_file: &Path, state_dir: &Path) -> Result<JobFindings, DecideError> {
    let path = state_dir.join("contract.json");
    let text = match read_optional_string(&path, FileKind::State) {
        Ok(Some(t)) => t,
        Ok(None) => {
            return Err(DecideError::NoContract {
                path,
                job: job_file.to_path_buf(),
            });
        }
        Err(e) => {
            return Err(DecideError::Contract {
                path,
                reason: e.reason(),
            });
        }
    };
    let contract: Contract = serde_json::from_str(&text).map_err(|e| DecideError::Contract {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let inventory = read_bounded_string(&state_dir.join("inventory.json"), FileKind::State)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let decisions = load(&decisions_path(job_file))?;
    Ok(JobFindings {
        contract,
        inventory,
        decisions,
    })
}

/// A finding from outside the contract that a decision may name: its id and evidence digest
/// now (a run's verdict findings, `judge::verdict_findings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KnownFinding {
    pub(crate) id: String,
    pub(crate) evidence: String,
}

/// As `decide`, where an id may also be one of `known`. The contract is read only when some id
/// is not among `known`, so a job without one can still decide on its verdict findings.
pub(crate) fn decide_with(
    job_file: &Path,
    state_dir: &Path,
    known: &[KnownFinding],
    ids: &[String],
    verdict: Verdict,
    reason: &str,
    who: &str,
) -> Result<PathBuf, DecideError> {
    if reason.trim().is_empty() {
        return Err(DecideError::EmptyReason);
    }
    let path = decisions_path(job_file);
    // One decision at a time per folder, so concurrent ones (a CLI and a lab) keep each other's.
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let _lock = crate::util::folder_lock::lock_folder(folder).map_err(|e| DecideError::Lock(e.to_string()))?;
    // Read under the lock: what another decider wrote a moment ago is kept.
    let mut decisions = load(&path)?;
    let all_known = ids.iter().all(|id| known.iter().any(|k| &k.id == id));
    let contract = if all_known {
        None
    } else {
        match job_findings(job_file, state_dir) {
            Ok(found) => Some(found),
            // With run findings to choose from, a missing contract is an unknown id below.
            Err(DecideError::NoContract { .. }) if !known.is_empty() => None,
            Err(e) => return Err(e),
        }
    };
    let when = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    for id in ids {
        let from_contract = || {
            let found = contract.as_ref()?;
            let f = found.contract.findings.iter().find(|f| &finding_id(f) == id)?;
            Some(evidence_digest(f, found.inventory.as_ref()))
        };
        let evidence = match known.iter().find(|k| &k.id == id) {
            Some(k) => k.evidence.clone(),
            None => from_contract().ok_or_else(|| DecideError::UnknownFinding {
                id: id.clone(),
                job: job_file.to_path_buf(),
            })?,
        };
        decisions.decisions.push(Decision {
            finding: id.clone(),
            decision: verdict,
            reason: reason.trim().to_string(),
            who: who.to_string(),
            when: when.clone(),
            evidence,
        });
    }
    save(&path, &decisions)?;
    Ok(path)
}

/// The word for a verdict, as lists and reports print it.
pub(crate) fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Accepted => "accepted",
        Verdict::Waived => "waived",
    }
}

/// A standing in a few words: `open`, `waived by ana (why)`, `accepted by ana, EXPIRED: …`.
pub(crate) fn describe(s: &Standing) -> String {
    match s {
        Standing::Open => "open".to_string(),
        Standing::Decided(d) => format!("{} by {} ({})", verdict_word(d.decision), d.who, d.reason),
        Standing::Expired(d) => format!(
            "{} by {}, EXPIRED: the finding's evidence changed",
            verdict_word(d.decision),
            d.who
        ),
    }
}

/// Who decides: the login name, as the environment gives it.
pub(crate) fn who() -> String {
    ["GHOSTLAB_USER", "USER", "LOGNAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "unknown".into())
}
