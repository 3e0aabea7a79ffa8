//! A path a job file names, made absolute against the job's folder. A leaf: loading,
//! instruction globs and path policy all resolve paths, and none of them needs the others to.

use std::path::{Path, PathBuf};

/// Joins `rel` to `dir` unless it is already absolute.
pub fn resolve_against(dir: &Path, rel: &str) -> PathBuf {
    let p = Path::new(rel);
    let joined = if p.is_absolute() { p.to_path_buf() } else { dir.join(p) };
    // Drop `.` components so messages and emitted configs show clean paths.
    joined
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}
