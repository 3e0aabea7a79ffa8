//! People's decisions on findings (the contract's, and the evidence policy's in a run's verdicts): a finding can be **accepted** (true, and the risk is
//! taken knowingly) or **waived** (does not apply here), always with a reason, who and when.
//!
//! Decisions live beside the job (`<job>.decisions.json`, so they are reviewed and committed
//! with it) and hold a digest of the finding's evidence: the finding's words and the inventory
//! node it points at. When a server's tool changes, the digest no longer matches and the
//! decision expires: the finding counts again until someone decides anew.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

use super::finding::Finding;
use crate::util::bounded::{FileKind, read_optional_string};

/// The decisions file format version this build reads and writes.
pub(crate) const DECISIONS_VERSION: u32 = 1;

/// What was decided about a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The finding is right; the risk is accepted.
    Accepted,
    /// The finding does not apply (a false positive, or out of scope).
    Waived,
}

/// One decision on one finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// `finding_id` of the finding, e.g. `GL020:release/publish_release@1a2b3c`.
    pub finding: String,
    pub decision: Verdict,
    pub reason: String,
    pub who: String,
    /// RFC 3339 time of the decision.
    pub when: String,
    /// `evidence_digest` of the finding when it was decided.
    pub evidence: String,
}

/// `<job>.decisions.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decisions {
    pub version: u32,
    #[serde(default)]
    pub decisions: Vec<Decision>,
}

impl Default for Decisions {
    fn default() -> Self {
        Decisions {
            version: DECISIONS_VERSION,
            decisions: Vec::new(),
        }
    }
}

/// Why the decisions file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DecisionsError {
    #[error("{}: {reason}", path.display())]
    Read { path: PathBuf, reason: String },
    #[error("{}: {reason}", path.display())]
    Invalid { path: PathBuf, reason: String },
    #[error("{}: cannot write: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// A finding's stable name: rule code, server, item and a short digest of its words, since
/// one rule can find several things in one tool (`GL017:notes/add_note@3f9a1c`).
pub fn finding_id(f: &Finding) -> String {
    let words = format!("{:x}", Sha256::digest(f.message.as_bytes()));
    match &f.item {
        Some(item) => format!("{}:{}/{item}@{}", f.code, f.server, &words[..6]),
        None => format!("{}:{}@{}", f.code, f.server, &words[..6]),
    }
}

/// A digest of what the finding rests on: its words and the inventory node it points at.
pub fn evidence_digest(f: &Finding, inventory: Option<&Value>) -> String {
    let node = inventory
        .and_then(|inv| inv.pointer(&f.pointer))
        .map(|v| v.to_string())
        .unwrap_or_default();
    let mut h = Sha256::new();
    for part in [
        f.code.as_str(),
        &f.server,
        f.item.as_deref().unwrap_or(""),
        &f.message,
        &node,
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    format!("sha256:{:x}", h.finalize())
}

/// The decisions file of a job file: `job.yaml` → `job.decisions.json` beside it.
pub(crate) fn decisions_path(job_file: &Path) -> PathBuf {
    job_file.with_extension("decisions.json")
}

/// Reads the decisions file; a missing file is no decisions, anything else unreadable is an error.
pub(crate) fn load(path: &Path) -> Result<Decisions, DecisionsError> {
    let text = read_optional_string(path, FileKind::State).map_err(|e| DecisionsError::Read {
        path: path.to_path_buf(),
        reason: e.reason(),
    })?;
    let Some(text) = text else {
        return Ok(Decisions::default());
    };
    let d: Decisions = serde_json::from_str(&text).map_err(|e| DecisionsError::Invalid {
        path: path.to_path_buf(),
        reason: format!("not a decisions file: {e}"),
    })?;
    if d.version != DECISIONS_VERSION {
        return Err(DecisionsError::Invalid {
            path: path.to_path_buf(),
            reason: format!(
                "format version {} is not {DECISIONS_VERSION}, the one this build reads",
                d.version
            ),
        });
    }
    Ok(d)
}

/// Writes the decisions file atomically.
pub fn save(path: &Path, d: &Decisions) -> Result<(), DecisionsError> {
    let mut text = serde_json::to_vec_pretty(d).map_err(|e| DecisionsError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    text.push(b'\n');
    crate::util::write_atomic(path, &text).map_err(|source| DecisionsError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// How one finding stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// No decision: it counts.
    Open,
    /// Decided, and the evidence is what was decided on: it does not count.
    Decided(Decision),
    /// Decided on other evidence (the server changed since): it counts again.
    Expired(Decision),
}

impl Standing {
    /// Whether gates count the finding.
    pub(crate) fn counts(&self) -> bool {
        !matches!(self, Standing::Decided(_))
    }
}

/// The standing of `f` under `decisions` (the latest decision on it wins).
pub(crate) fn standing(f: &Finding, inventory: Option<&Value>, decisions: &Decisions) -> Standing {
    standing_of_id(&finding_id(f), &evidence_digest(f, inventory), decisions)
}

/// The standing of the finding named `id` whose evidence digests to `evidence` now: contract
/// findings and verdict findings (`judge::verdict_findings`) share the file and this rule.
pub(crate) fn standing_of_id(id: &str, evidence: &str, decisions: &Decisions) -> Standing {
    match decisions.decisions.iter().rev().find(|d| d.finding == id) {
        None => Standing::Open,
        Some(d) if d.evidence == evidence => Standing::Decided(d.clone()),
        Some(d) => Standing::Expired(d.clone()),
    }
}

#[cfg(test)]
#[path = "decisions_tests.rs"]
mod tests;
