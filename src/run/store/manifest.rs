//! The replay manifest of a run: inputs, their fingerprints, harness version and settings.
//! A run can be re-judged from it (`ghostlab rescore`); it reproduces inputs and harness
//! behaviour, not model determinism, and says so in the file.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

use crate::spec::LoadedJob;

pub(crate) const MANIFEST_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    pub run_id: String,
    pub harness: String,
    pub started: chrono::DateTime<chrono::Utc>,
    pub job_file: String,
    /// sha256 of every input: job.yaml, instructions, prompts, skills, MCP files, workspace.
    pub fingerprints: BTreeMap<String, String>,
    /// The instruction files the agent was given, globs expanded (sorted), in order.
    #[serde(default)]
    pub instructions: Vec<String>,
    pub repeat: u32,
    pub partition: Option<(u32, u32)>,
    pub cases: Vec<String>,
    pub emulator: String,
    pub judge: String,
    pub agent_runner: String,
    pub replay_note: String,
}

impl Manifest {
    pub fn new(
        job: &LoadedJob,
        run_id: &str,
        cases: Vec<String>,
        repeat: u32,
        partition: Option<(u32, u32)>,
        emulator: String,
        judge: String,
    ) -> Self {
        let mut fingerprints = BTreeMap::new();
        let mut paths = vec![job.file.clone()];
        paths.extend(job.input_paths());
        paths.extend(job.workspace());
        paths.push(job.state_dir().join("dataset.json"));
        // The job's own files change with every run; a workspace that holds them is
        // fingerprinted without them, and `replay_check` skips them the same way.
        let own = job.own_paths();
        for p in paths {
            // Absolute, so a later check from another folder compares the same files.
            let p = std::path::absolute(&p).unwrap_or(p);
            if let Some(h) = fingerprint_skipping(&p, &own) {
                fingerprints.insert(p.to_string_lossy().into_owned(), h);
            }
        }
        Manifest {
            version: MANIFEST_VERSION,
            run_id: run_id.into(),
            harness: format!("ghostlab {}", env!("CARGO_PKG_VERSION")),
            started: chrono::Utc::now(),
            job_file: job.file.to_string_lossy().into_owned(),
            fingerprints,
            instructions: job.instruction_files().iter().map(|p| p.to_string_lossy().into_owned()).collect(),
            repeat,
            partition,
            cases,
            emulator,
            judge,
            agent_runner: format!("{:?}", job.job.agent.runtime.backend).to_lowercase(),
            replay_note: "Replaying this run reproduces its inputs and Ghostlab's behaviour; model answers are only reproduced where a cassette recorded them.".into(),
        }
    }
}

/// sha256 of a file, or of a folder's files (relative names and contents, in order), leaving
/// out `skip` (and everything under a skipped folder) inside a folder.
pub(crate) fn fingerprint_skipping(path: &Path, skip: &[std::path::PathBuf]) -> Option<String> {
    let mut h = Sha256::new();
    // Streamed through a non-blocking open: a large input is hashed without being held in
    // memory, and a FIFO swapped in is refused instead of waited on.
    let hash_file = |h: &mut Sha256, p: &Path| -> Option<()> {
        let mut file = crate::util::bounded::open_regular(p).ok()?;
        std::io::copy(&mut file, h).ok()?;
        Some(())
    };
    if path.is_file() {
        hash_file(&mut h, path)?;
    } else if path.is_dir() {
        let mut files: Vec<_> = walkdir::WalkDir::new(path)
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !skip.iter().any(|s| e.path() == s))
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .collect();
        files.sort_by(|a, b| a.path().cmp(b.path()));
        for f in files {
            h.update(f.path().strip_prefix(path).ok()?.to_string_lossy().as_bytes());
            h.update([0]);
            hash_file(&mut h, f.path())?;
        }
    } else {
        return None;
    }
    Some(hex::encode(h.finalize()))
}

/// A sortable, unique run id: `20261129T201500Z-3fa2`.
pub(crate) fn new_run_id() -> String {
    format!(
        "{}-{:04x}",
        chrono::Utc::now().format("%Y%m%dT%H%M%SZ"),
        rand::random::<u16>()
    )
}

/// Whether `case_id` belongs to shard `index` of `count` (1-based); stable as cases are added.
pub fn in_partition(case_id: &str, index: u32, count: u32) -> bool {
    let digest = Sha256::digest(case_id.as_bytes());
    let n = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    n % count == index - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_cover_every_case_exactly_once() {
        let ids: Vec<String> = (0..200).map(|i| format!("case-{i}")).collect();
        for id in &ids {
            let owners = (1..=4).filter(|i| in_partition(id, *i, 4)).count();
            assert_eq!(owners, 1);
        }
        let first = ids.iter().filter(|id| in_partition(id, 1, 4)).count();
        assert!((30..=70).contains(&first), "unbalanced shard: {first}");
    }
}
