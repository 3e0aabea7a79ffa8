//! Group commit: many files written without an fsync each, then made durable together, with
//! one small file written last as the commit marker.
//!
//! `write_atomic` pays two fsyncs per file (the temp file and its folder). A trial writes
//! several files, so a run paid ~7 fsyncs per trial, each waiting for a journal commit. Here
//! the files of one unit (a trial) are written with `write_replace` (temp file + rename: a
//! killed process leaves the old or the new file, never a torn one), then `commit` fsyncs them
//! all, writes the marker atomically and fsyncs the folders once. A reader treats a unit
//! without its marker as not done, so a power loss before the marker is on disk loses the
//! unit, never half of it.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::atomic::TEMP_PREFIX;

/// Writes `bytes` to `path` through a temp file and a rename, without fsync: atomic against a
/// killed process, durable only once a later `commit` or `sync_files` covers it.
pub fn write_replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = parent_of(path);
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(TEMP_PREFIX).tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `write_replace` of pretty JSON with a trailing newline.
pub fn write_json_replace<T: serde::Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let mut text = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    text.push(b'\n');
    write_replace(path, &text)
}

/// Makes `files` (and every regular file under a folder among them) durable, then their
/// folders. Concurrent fsyncs share the filesystem journal's commit, so each wave runs on a
/// few threads: one wait for the files, one for the folders.
pub fn sync_files(files: &[PathBuf]) -> std::io::Result<()> {
    let (regular, dirs) = expand(files);
    parallel_sync(&regular, sync_file)?;
    parallel_sync(&dirs, sync_dir)
}

/// Commits a unit: writes `marker` to a temp file; makes it, `files` and the folders holding
/// them durable together (their names too: a rename such as events.jsonl's is durable before
/// the marker exists); renames the marker into place; then fsyncs its folder and the one above.
/// Two journal waits, whatever the number of files.
pub fn commit(files: &[PathBuf], marker: &Path, marker_bytes: &[u8]) -> std::io::Result<()> {
    let dir = parent_of(marker);
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(TEMP_PREFIX).tempfile_in(dir)?;
    tmp.write_all(marker_bytes)?;
    let (mut first, dirs) = expand(files);
    first.push(tmp.path().to_path_buf());
    first.extend(dirs);
    parallel_sync(&first, sync_path)?;
    tmp.persist(marker).map_err(|e| e.error)?;
    let mut last = vec![dir.to_path_buf()];
    if let Some(above) = dir.parent() {
        last.push(above.to_path_buf());
    }
    parallel_sync(&last, sync_dir)
}

/// The regular files among `files` and under folders among them, and every folder holding
/// one of them (sorted, once each).
fn expand(files: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut regular = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for f in files {
        if f.is_dir() {
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
        } else if f.is_file() {
            regular.push(f.clone());
            dirs.push(parent_of(f).to_path_buf());
        }
    }
    dirs.sort();
    dirs.dedup();
    (regular, dirs)
}

fn sync_file(path: &Path) -> std::io::Result<()> {
    std::fs::File::open(path)?.sync_all()
}

fn sync_path(path: &Path) -> std::io::Result<()> {
    if path.is_dir() { sync_dir(path) } else { sync_file(path) }
}

/// fsyncs a folder (its entries); filesystems that cannot are ignored.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Up to four parallel parts: enough for the journal to batch, few enough for two cores.
/// The parts run on reused threads (`util::blocking::run_parallel`), not new ones per commit.
fn parallel_sync(paths: &[PathBuf], f: fn(&Path) -> std::io::Result<()>) -> std::io::Result<()> {
    if paths.len() <= 1 {
        return paths.iter().try_for_each(|p| f(p));
    }
    let chunk = paths.len().div_ceil(4);
    let jobs = paths
        .chunks(chunk)
        .map(|part| {
            let part = part.to_vec();
            Box::new(move || part.iter().try_for_each(|p| f(p))) as Box<dyn FnOnce() -> std::io::Result<()> + Send>
        })
        .collect();
    super::blocking::run_parallel(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_writes_the_marker_after_the_files_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let unit = dir.path().join("trial-1");
        write_replace(&unit.join("a.json"), b"a").unwrap();
        write_json_replace(&unit.join("sub/b.json"), &serde_json::json!({"version": 1})).unwrap();
        write_replace(&unit.join("a.json"), b"a2").unwrap();
        commit(
            &[unit.join("a.json"), unit.join("sub")],
            &unit.join("verdict.json"),
            b"{}\n",
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(unit.join("a.json")).unwrap(), "a2");
        assert_eq!(std::fs::read_to_string(unit.join("verdict.json")).unwrap(), "{}\n");
        let temps = walkdir::WalkDir::new(&unit)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
            .count();
        assert_eq!(temps, 0);
    }

    #[test]
    fn syncing_a_missing_file_is_not_an_error_but_an_unreadable_marker_folder_is() {
        let dir = tempfile::tempdir().unwrap();
        sync_files(&[dir.path().join("gone")]).unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "x").unwrap();
        assert!(commit(&[], &blocker.join("verdict.json"), b"{}").is_err());
    }
}
