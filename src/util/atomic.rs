//! Atomic writes: a temp file in the same folder, fsync, then rename over the target.
//!
//! A crash at any instant leaves either the old file or the new one, never a torn file.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// Prefix of the temp files `write_atomic` creates beside its target.
pub(crate) const TEMP_PREFIX: &str = ".ghostlab-tmp-";

/// How old a temp file must be before a sweep removes it: far longer than any write takes, so a
/// concurrent writer's file is never swept from under it.
pub(crate) const STALE_TEMP_AGE: Duration = Duration::from_secs(60);

/// A new temp file in `dir`, beside the file it will replace; `dir` (and the folders above it)
/// are made only when missing. Most writes go to a folder that exists: trying the file first
/// spares each of them a failing `mkdir` and a `stat` (`create_dir_all` on an existing folder).
pub(crate) fn temp_file_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let make = || tempfile::Builder::new().prefix(TEMP_PREFIX).tempfile_in(dir);
    match make() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir)?;
            make()
        }
        made => made,
    }
}

/// Writes `bytes` to `path` through a temp file in the same directory and a rename.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = temp_file_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    // Make the rename itself durable; ignore filesystems that cannot fsync a directory.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Removes `write_atomic` temp files older than `min_age` from `dir` (left by a process killed
/// between creating and renaming one). Returns how many were removed.
pub(crate) fn sweep_stale_temps(dir: &Path, min_age: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.filter_map(Result::ok) {
        let stale = e.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
            && e.metadata().is_ok_and(|m| {
                m.is_file()
                    && m.modified()
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age >= min_age)
            });
        if stale && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Copies the file `src` to `dst` atomically (an artifact copied into another run).
/// Only a regular file is copied, bounded like a log (the largest artifact kind): a FIFO or a
/// giant left in a run folder is an error naming it, not a hang or an allocation failure.
pub(crate) fn copy_atomic(src: &Path, dst: &Path) -> std::io::Result<()> {
    let bytes = super::bounded::read_bounded(src, super::bounded::FileKind::Log).map_err(std::io::Error::other)?;
    write_atomic(dst, &bytes)
}

/// Serializes `value` as pretty JSON (with a trailing newline) and writes it atomically.
pub fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let mut text = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    text.push(b'\n');
    write_atomic(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_existing_file_and_leaves_no_temp_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("job.yaml");
        std::fs::write(&target, "old").unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "temp file left behind: {names:?}");
    }

    #[test]
    fn sweeps_only_stale_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(format!("{TEMP_PREFIX}old"));
        let fresh = dir.path().join(format!("{TEMP_PREFIX}fresh"));
        let other = dir.path().join("job.yaml");
        for p in [&old, &fresh, &other] {
            std::fs::write(p, "x").unwrap();
        }
        let f = std::fs::File::options().write(true).open(&old).unwrap();
        f.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        assert_eq!(sweep_stale_temps(dir.path(), STALE_TEMP_AGE), 1);
        assert!(!old.exists() && fresh.exists() && other.exists());
    }

    #[test]
    fn creates_missing_parent_directories() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a/b/c.json");
        write_json_atomic(&target, &serde_json::json!({"version": 1})).unwrap();
        assert!(std::fs::read_to_string(&target).unwrap().ends_with("}\n"));
    }
}
