//! Group commit: many files written without an fsync each, then made durable together, with
//! one small file written last as the commit marker.
//!
//! `write_atomic` pays two fsyncs per file (the temp file and its folder). A trial writes
//! several files, so a run paid ~7 fsyncs per trial, each waiting for a journal commit. Here
//! the files of one unit (a trial) are written with `write_replace` (temp file + rename: a
//! killed process leaves the old or the new file, never a torn one), then `commit_batch`
//! fsyncs them all — and those of every other unit ready at the same time, or syncs their file
//! system whole when that is cheaper (`util::fs_sync`) — writes each marker atomically and
//! fsyncs the folders once. A reader treats a unit without its marker
//! as not done, so a power loss before the marker is on disk loses the unit, never half of it.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::atomic::temp_file_in;
use super::fs_sync::{syncfs_all, syncfs_anchors};
use super::path_fsync::{parallel_sync, sync_dir, sync_each, sync_file};

/// Writes `bytes` to `path` through a temp file and a rename, without fsync: atomic against a
/// killed process, durable only once a later `commit_batch` or `sync_files` covers it.
pub(crate) fn write_replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = temp_file_in(parent_of(path))?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `write_replace` unless `path` already holds exactly `bytes`; returns whether it wrote. For
/// regenerated files (a re-rendered report rewrites thousands of identical critiques): an equal
/// file is left as it is, so it needs no new rename and no new fsync.
pub(crate) fn write_replace_if_changed(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    // Read no more than could be equal, and never block on a special file left there.
    if super::bounded::read_limited(path, bytes.len() as u64).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    write_replace(path, bytes)?;
    Ok(true)
}

/// `write_replace` of pretty JSON with a trailing newline.
pub(crate) fn write_json_replace<T: serde::Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let mut text = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    text.push(b'\n');
    write_replace(path, &text)
}

/// Makes `files` (and every regular file under a folder among them) durable, then their
/// folders. Concurrent fsyncs share the filesystem journal's commit, so each wave runs on a
/// few threads: one wait for the files, one for the folders.
/// A large wave takes one syncfs per file system instead (`util::fs_sync`).
pub(crate) fn sync_files(files: &[PathBuf]) -> std::io::Result<()> {
    let (regular, dirs) = expand(files);
    if let Some(anchors) = syncfs_anchors(regular.len() + dirs.len(), &dirs) {
        return syncfs_all(&anchors);
    }
    parallel_sync(&regular, |p| sync_file(p))?;
    parallel_sync(&dirs, |p| sync_dir(p))
}

/// One unit of a commit: files written with `write_replace` (or folders of them) and the
/// marker that says they are all there.
pub(crate) struct Unit {
    pub(crate) files: Vec<PathBuf>,
    pub(crate) marker: PathBuf,
    pub(crate) marker_bytes: Vec<u8>,
}

/// Commits units together (a trial each): writes every marker to a temp file beside it; makes
/// those, every unit's files and the folders holding them durable in one wave (their names
/// too: a rename such as events.jsonl's is durable before any marker exists); renames each
/// marker into place; then fsyncs the markers' folders and the ones above in a second wave.
/// Two journal waits per call, whatever the number of units or files; a large batch makes each
/// wave durable with one syncfs per file system (`util::fs_sync`). Returns one result per
/// unit, in order: a unit whose marker cannot be staged or renamed fails alone; a failed
/// fsync wave fails every unit it covered (none of their markers is renamed).
pub(crate) fn commit_batch(units: Vec<Unit>) -> Vec<std::io::Result<()>> {
    commit_batch_by(units, syncfs_anchors)
}

/// `commit_batch` with `by_syncfs` choosing, from a wave's size and folders, the folders whose
/// file systems are synced whole (`None`: per-path fsyncs); tests force either way with it.
fn commit_batch_by(
    units: Vec<Unit>,
    by_syncfs: impl Fn(usize, &[PathBuf]) -> Option<Vec<PathBuf>>,
) -> Vec<std::io::Result<()>> {
    let mut results: Vec<Option<std::io::Result<()>>> = units.iter().map(|_| None).collect();
    let mut staged = Vec::new();
    let mut first = Vec::new();
    let mut dirs = Vec::new();
    for (i, unit) in units.iter().enumerate() {
        match stage_marker(&unit.marker, &unit.marker_bytes) {
            Ok(tmp) => {
                let (files, unit_dirs) = expand(&unit.files);
                first.extend(files);
                first.push(tmp.path().to_path_buf());
                dirs.extend(unit_dirs);
                dirs.push(parent_of(&unit.marker).to_path_buf());
                staged.push((i, tmp));
            }
            Err(e) => results[i] = Some(Err(e)),
        }
    }
    dirs.sort();
    dirs.dedup();
    let wave_size = first.len() + dirs.len();
    let syncfs_first = by_syncfs(wave_size, &dirs);
    let synced = match &syncfs_first {
        Some(anchors) => syncfs_all(anchors),
        None => sync_each(first, dirs),
    };
    if let Err(e) = synced {
        for (i, _) in &staged {
            results[*i] = Some(Err(std::io::Error::new(e.kind(), e.to_string())));
        }
        return every_answer(results);
    }
    let mut last = Vec::new();
    for (i, tmp) in staged {
        let dir = parent_of(&units[i].marker).to_path_buf();
        match tmp.persist(&units[i].marker) {
            Ok(_) => {
                last.extend(dir.parent().map(Path::to_path_buf));
                last.push(dir);
                results[i] = Some(Ok(()));
            }
            Err(e) => results[i] = Some(Err(e.error)),
        }
    }
    last.sort();
    last.dedup();
    // A folder that cannot be opened or synced is skipped (`sync_dir`), but the wave itself can
    // fail (a thread that never answered): then the renamed markers are not known durable.
    let synced = match syncfs_first.and_then(|_| by_syncfs(wave_size, &last)) {
        Some(anchors) => syncfs_all(&anchors),
        None => parallel_sync(&last, |p| sync_dir(p)),
    };
    if let Err(e) = synced {
        for r in results.iter_mut().flatten() {
            if r.is_ok() {
                *r = Err(std::io::Error::new(e.kind(), e.to_string()));
            }
        }
    }
    every_answer(results)
}

/// Unwraps per-item results once each item has been given one.
pub(crate) fn every_answer(results: Vec<Option<std::io::Result<()>>>) -> Vec<std::io::Result<()>> {
    results
        .into_iter()
        .map(|r| r.expect("every item has its result"))
        .collect()
}

/// `marker_bytes` in a temp file in the marker's folder (made if missing).
fn stage_marker(marker: &Path, marker_bytes: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    let mut tmp = temp_file_in(parent_of(marker))?;
    tmp.write_all(marker_bytes)?;
    Ok(tmp)
}

/// The regular files among `files` and under folders among them, and every folder holding
/// one of them (sorted, once each).
fn expand(files: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut regular = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for f in files {
        // One look per listed path (it may be missing: a trial without downloads).
        let Ok(meta) = std::fs::metadata(f) else { continue };
        if meta.is_dir() {
            for e in walkdir::WalkDir::new(f)
                .follow_links(false)
                .into_iter()
                .filter_map(Result::ok)
            {
                if e.file_type().is_file() {
                    regular.push(e.path().to_path_buf());
                    dirs.push(parent_of(e.path()).to_path_buf());
                }
            }
        } else if meta.is_file() {
            regular.push(f.clone());
            dirs.push(parent_of(f).to_path_buf());
        }
    }
    dirs.sort();
    dirs.dedup();
    (regular, dirs)
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::atomic::TEMP_PREFIX;

    fn unit(files: Vec<PathBuf>, marker: PathBuf, bytes: &[u8]) -> Unit {
        Unit {
            files,
            marker,
            marker_bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn commit_writes_the_marker_after_the_files_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let unit_dir = dir.path().join("trial-1");
        write_replace(&unit_dir.join("a.json"), b"a").unwrap();
        write_json_replace(&unit_dir.join("sub/b.json"), &serde_json::json!({"version": 1})).unwrap();
        write_replace(&unit_dir.join("a.json"), b"a2").unwrap();
        let files = vec![unit_dir.join("a.json"), unit_dir.join("sub")];
        let results = commit_batch(vec![unit(files, unit_dir.join("verdict.json"), b"{}\n")]);
        assert!(results.into_iter().all(|r| r.is_ok()));
        assert_eq!(std::fs::read_to_string(unit_dir.join("a.json")).unwrap(), "a2");
        assert_eq!(std::fs::read_to_string(unit_dir.join("verdict.json")).unwrap(), "{}\n");
        let temps = walkdir::WalkDir::new(&unit_dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
            .count();
        assert_eq!(temps, 0);
    }

    #[test]
    fn a_replace_and_a_marker_make_their_missing_folders() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a/b/case.json");
        write_replace(&file, b"c").unwrap();
        let marker = dir.path().join("x/y/verdict.json");
        let results = commit_batch(vec![unit(vec![file.clone()], marker.clone(), b"{}")]);
        assert!(results.into_iter().all(|r| r.is_ok()));
        assert_eq!(std::fs::read(&file).unwrap(), b"c");
        assert_eq!(std::fs::read(&marker).unwrap(), b"{}");
    }

    #[test]
    fn a_unit_whose_marker_cannot_be_written_fails_alone_in_its_batch() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "x").unwrap();
        let mut units = Vec::new();
        for i in 0..3 {
            let d = dir.path().join(format!("trial-{i}"));
            write_replace(&d.join("events.jsonl"), b"e").unwrap();
            units.push(unit(vec![d.join("events.jsonl")], d.join("verdict.json"), b"{}"));
        }
        // The middle unit's marker would go inside a file.
        units[1].marker = blocker.join("verdict.json");
        let results = commit_batch(units);
        assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
        assert!(results[1].is_err());
        assert!(dir.path().join("trial-0/verdict.json").exists());
        assert!(dir.path().join("trial-2/verdict.json").exists());
        assert!(!dir.path().join("trial-1/verdict.json").exists());
    }

    /// Commits 32 trials (each with a file and a kept workspace) the way `by_syncfs` chooses,
    /// and checks every unit landed whole with no temp file left.
    fn commit_large_batch(by_syncfs: impl Fn(usize, &[PathBuf]) -> Option<Vec<PathBuf>>) {
        let dir = tempfile::tempdir().unwrap();
        let n = crate::util::fs_sync::SYNCFS_FROM_PATHS;
        let mut units = Vec::new();
        for i in 0..n {
            let d = dir.path().join(format!("c{i}/trial-1"));
            write_replace(&d.join("events.jsonl"), b"e").unwrap();
            write_replace(&d.join("workspace-after/src/a.rs"), b"fn a() {}").unwrap();
            units.push(unit(
                vec![d.join("events.jsonl"), d.join("workspace-after")],
                d.join("verdict.json"),
                b"{}",
            ));
        }
        let (files, dirs) = expand(&units.iter().flat_map(|u| u.files.clone()).collect::<Vec<_>>());
        assert!(files.len() + dirs.len() >= n);
        let results = commit_batch_by(units, by_syncfs);
        assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
        for i in 0..n {
            let t = dir.path().join(format!("c{i}/trial-1"));
            assert_eq!(std::fs::read(t.join("verdict.json")).unwrap(), b"{}");
            assert_eq!(std::fs::read(t.join("workspace-after/src/a.rs")).unwrap(), b"fn a() {}");
        }
        let temps = walkdir::WalkDir::new(dir.path())
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
            .count();
        assert_eq!(temps, 0);
        sync_files(&[dir.path().to_path_buf()]).unwrap();
    }

    #[test]
    fn a_large_batch_commits_every_unit_by_syncfs_by_fsyncs_and_as_this_machine_chooses() {
        // One anchor per device, whatever this machine's kernel, file system and dirty data.
        commit_large_batch(|_, dirs| crate::util::fs_sync::anchors_by_device(dirs));
        commit_large_batch(|_, _| None);
        commit_large_batch(syncfs_anchors);
    }

    #[test]
    fn a_failed_syncfs_fails_every_unit_of_its_wave_and_renames_no_marker() {
        let dir = tempfile::tempdir().unwrap();
        let mut units = Vec::new();
        for i in 0..3 {
            let d = dir.path().join(format!("trial-{i}"));
            write_replace(&d.join("events.jsonl"), b"e").unwrap();
            units.push(unit(vec![d.join("events.jsonl")], d.join("verdict.json"), b"{}"));
        }
        // An anchor that is gone: its syncfs fails.
        let results = commit_batch_by(units, |_, _| Some(vec![dir.path().join("gone")]));
        assert!(
            results
                .iter()
                .all(|r| r.as_ref().is_err_and(|e| e.to_string().contains("gone")))
        );
        for i in 0..3 {
            assert!(!dir.path().join(format!("trial-{i}/verdict.json")).exists());
        }
    }

    #[test]
    fn syncing_a_missing_file_is_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        sync_files(&[dir.path().join("gone")]).unwrap();
    }
}
