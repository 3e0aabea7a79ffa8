//! A path a job file names, made absolute against the job's folder. A leaf: loading,
//! instruction globs and path policy all resolve paths, and none of them needs the others to.

use std::path::{Component, Path, PathBuf};

/// `path` with `.` and `..` removed lexically, without touching the file system (a `..` at
/// the root stays at the root). The one path normaliser: the job's checks, imports, MCP
/// servers files and instruction globs all use it, so they agree on what a path names.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Joins `rel` to `dir` unless it is already absolute.
pub(crate) fn resolve_against(dir: &Path, rel: &str) -> PathBuf {
    let p = Path::new(rel);
    let joined = if p.is_absolute() { p.to_path_buf() } else { dir.join(p) };
    // Drop `.` components so messages and emitted configs show clean paths.
    joined
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}
