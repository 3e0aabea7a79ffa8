//! The wizard's files besides job.yaml: cached proposals and accepted artifacts under
//! `<state_dir>/lab/`. Every file is versioned and written atomically.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

use super::state::{Proposal, Saved};
use super::step::StepId;
use crate::spec::Job;

/// Format version of the lab's own files.
pub(crate) const LAB_FILES_VERSION: u32 = 1;

/// Errors writing or reading the lab's files.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("failed to write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("failed to read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
}

#[derive(Serialize, Deserialize)]
struct CachedFile {
    version: u32,
    step: StepId,
    proposal: Proposal,
}

#[derive(Serialize, Deserialize)]
struct ArtifactFile {
    version: u32,
    step: StepId,
    accepted: Value,
}

/// `<job dir>/<state_dir>/lab`.
pub fn lab_dir(job_file: &Path, job: &Job) -> PathBuf {
    crate::spec::relative_path::resolve_against(&crate::spec::load::job_dir(job_file), &job.paths.state_dir).join("lab")
}

fn proposal_path(dir: &Path, step: StepId) -> PathBuf {
    dir.join("proposals").join(format!("{}.json", step.id()))
}

fn artifact_path(dir: &Path, step: StepId) -> PathBuf {
    dir.join(step.artifact_file().unwrap_or("other.json"))
}

fn write(path: PathBuf, value: &impl Serialize) -> Result<(), StoreError> {
    crate::util::write_json_atomic(&path, value).map_err(|source| StoreError::Write { path, source })
}

/// Caches a generated proposal.
pub(crate) fn save_proposal(dir: &Path, step: StepId, proposal: &Proposal) -> Result<(), StoreError> {
    let file = CachedFile {
        version: LAB_FILES_VERSION,
        step,
        proposal: proposal.clone(),
    };
    write(proposal_path(dir, step), &file)
}

/// Forgets a cached proposal; a missing file is fine.
pub(crate) fn drop_proposal(dir: &Path, step: StepId) -> Result<(), StoreError> {
    let path = proposal_path(dir, step);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Write { path, source: e }),
        _ => Ok(()),
    }
}

/// Writes an accepted artifact.
pub fn save_artifact(dir: &Path, step: StepId, value: &Value) -> Result<(), StoreError> {
    let file = ArtifactFile {
        version: LAB_FILES_VERSION,
        step,
        accepted: value.clone(),
    };
    write(artifact_path(dir, step), &file)
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, StoreError> {
    let text = match crate::util::bounded::read_optional_string(path, crate::util::bounded::FileKind::State) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => {
            return Err(StoreError::Read {
                path: path.into(),
                reason: e.reason(),
            });
        }
    };
    serde_json::from_str(&text).map(Some).map_err(|e| StoreError::Read {
        path: path.into(),
        reason: e.to_string(),
    })
}

/// Reads back what a previous session left: cached proposals for unfinished steps and the
/// artifacts of accepted ones.
pub fn load_saved(dir: &Path, job: &Job) -> Result<Saved, StoreError> {
    let mut saved = Saved::default();
    // A dataset that does not load is left for `ghostlab dataset` to report; review starts pending.
    if let Some(state) = dir.parent() {
        saved.curation = crate::generate::store::read_artifact_opt(state, crate::generate::ArtifactKind::Dataset)
            .ok()
            .flatten();
    }
    for step in StepId::ALL {
        let done = job.lab.completed.iter().any(|c| c == step.id());
        if done {
            if step.artifact_file().is_some()
                && let Some(f) = read::<ArtifactFile>(&artifact_path(dir, step))?
            {
                saved.artifacts.insert(step, f.accepted);
            }
        } else if let Some(f) = read::<CachedFile>(&proposal_path(dir, step))? {
            saved.proposals.insert(step, f.proposal);
        }
    }
    Ok(saved)
}
