//! Combining the shards of a partitioned run (`ghostlab test --partition I/N` on several
//! machines) into one run: the trials are copied, then summary, gates and JUnit are recomputed
//! over all of them. Two shards holding the same trial is an error, not a silent overwrite.
//! The gates read the same contract facts as `ghostlab test` (`judge::facts::job_contract_facts`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::judge::GateFacts;
use crate::judge::case_verdict::VerdictFile;
use crate::run::store::run_dir::RunDir;
use crate::run::suite::{SuiteSummary, write_outcome};
use crate::spec::Gates;

/// Merges shard run folders into `dst`, applying `gates` with `facts`.
pub fn merge_runs(shards: &[PathBuf], dst: &Path, gates: &Gates, facts: &GateFacts) -> std::io::Result<SuiteSummary> {
    let mut seen: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    let mut verdicts = Vec::new();
    let mut manifests = Vec::new();
    let out = RunDir::new(dst);
    for shard in shards {
        let run = RunDir::new(shard);
        if !run.has_cases() {
            return Err(std::io::Error::other(format!(
                "{}: not a run folder (no cases/)",
                shard.display()
            )));
        }
        // A shard of a newer Ghostlab is refused, not merged minus the trials it cannot read.
        crate::run::results::stored_versions::check_stored_run(shard).map_err(std::io::Error::other)?;
        for trial in run.trials() {
            // A trial without verdict.json never finished (it is not in the shard's summary
            // either); one whose verdict.json this build cannot read is an error, not a gap.
            let Some(v) = read_shard_verdict(&trial.verdict())? else {
                continue;
            };
            let rel = trial.relative();
            if let Some(first) = seen.insert(rel.clone(), shard.clone()) {
                return Err(std::io::Error::other(format!(
                    "{} is in both {} and {}",
                    rel.display(),
                    first.display(),
                    shard.display()
                )));
            }
            copy_artifacts(&trial.path, &dst.join(&rel))?;
            verdicts.push(v);
        }
        if let Some(text) =
            crate::util::bounded::read_optional_string(&run.manifest(), crate::util::bounded::FileKind::State)?
        {
            manifests.push(serde_json::from_str::<serde_json::Value>(&text).map_err(std::io::Error::other)?);
        }
    }
    verdicts.sort_by(|a, b| (a.case.as_str(), a.trial).cmp(&(b.case.as_str(), b.trial)));
    let merged = serde_json::json!({ "version": 1, "merged_from": shards, "shards": manifests });
    crate::util::write_json_atomic(&out.manifest(), &merged)?;
    write_outcome(gates, &out.id(), &verdicts, dst, facts)
}

/// A shard trial's verdict: `None` when the file is absent; an error naming the file and why when
/// it is there but not a verdict this build reads (its version is checked before, by
/// `stored_versions`: this catches the right version in the wrong shape).
fn read_shard_verdict(path: &Path) -> std::io::Result<Option<VerdictFile>> {
    let text = match crate::util::bounded::read_optional_string(path, crate::util::bounded::FileKind::State) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => return Err(std::io::Error::other(format!("{}: {}", path.display(), e.reason()))),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| std::io::Error::other(format!("{}: not a verdict.json this build reads: {e}", path.display())))
}

/// Copies a trial folder file by file, each atomically, so a merge interrupted at any instant
/// leaves only whole artifacts behind.
fn copy_artifacts(src: &Path, dst: &Path) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(src).follow_links(false) {
        let entry = entry.map_err(std::io::Error::other)?;
        let target = dst.join(entry.path().strip_prefix(src).map_err(std::io::Error::other)?);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if entry.file_type().is_file() {
            crate::util::copy_atomic(entry.path(), &target)?;
        }
    }
    Ok(())
}
