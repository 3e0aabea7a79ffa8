//! Where each MCP server of a job is declared, for SARIF results: the server's key in its MCP
//! servers file (`mcpServers.github`) or its `agent.inputs.mcps[i]` entry in job.yaml, as a
//! relative URI under the source root plus line and column.
//!
//! The source root is the git work tree holding job.yaml (what GitHub resolves `%SRCROOT%`
//! against on a checkout), or job.yaml's folder outside git. A servers file outside the root
//! (`~/.cursor/mcp.json`) cannot be a relative URI: its results point at the job.yaml entry
//! that references it instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::sarif::{Declared, SarifSources, relative_uri};
use crate::spec::LoadedJob;
use crate::spec::diagnostics::index;
use crate::spec::key_position::key_position;
use crate::util::bounded::{BoundedError, FileKind, read_bounded_string};

/// The git work tree holding `job_file` (the nearest folder with a `.git`), else its folder.
pub(crate) fn default_source_root(job_file: &Path) -> PathBuf {
    let dir = job_file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let dir = dir.canonicalize().unwrap_or(dir);
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
        .unwrap_or(dir)
}

/// `file` relative to `root`, when it is inside it (both resolved through symlinks).
fn under_root(root: &Path, file: &Path) -> Option<PathBuf> {
    let file = file.canonicalize().ok()?;
    file.strip_prefix(root).ok().map(Path::to_path_buf)
}

/// Why a server's declaration cannot be pointed at.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SourcesError {
    #[error(transparent)]
    Unreadable(#[from] BoundedError),
    #[error("{}: `{key}` is not in the file any more", file.display())]
    KeyGone { file: PathBuf, key: String },
    #[error("{}: the source root: {source}", root.display())]
    Root {
        root: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is outside the source root {}: pass --source-root", job.display(), root.display())]
    JobOutsideRoot { job: PathBuf, root: PathBuf },
    #[error("server `{0}`: no agent.inputs.mcps entry names it")]
    NoEntry(String),
}

/// Where `key` is written in `file` (relative to `root` as `rel`).
fn declared_at(file: &Path, rel: &Path, key: &str) -> Result<Declared, SourcesError> {
    let text = read_bounded_string(file, FileKind::Config)?;
    let p = key_position(file, &text, key).ok_or_else(|| SourcesError::KeyGone {
        file: file.to_path_buf(),
        key: key.to_string(),
    })?;
    Ok(Declared {
        uri: relative_uri(rel),
        line: p.line,
        column: p.column,
        end_column: p.end_column,
    })
}

/// Where each server of `job` is declared under `root` (an absolute folder).
pub(crate) fn sources_for_job(job: &LoadedJob, root: &Path) -> Result<SarifSources, SourcesError> {
    let root = root.canonicalize().map_err(|source| SourcesError::Root {
        root: root.to_path_buf(),
        source,
    })?;
    let job_rel = under_root(&root, &job.file);
    let mut declared = BTreeMap::new();
    for mcp in &job.mcps {
        let (file, key) = &mcp.origin;
        let at = match under_root(&root, file) {
            Some(rel) => declared_at(file, &rel, key)?,
            None => {
                // The servers file is outside the root: the job.yaml entry that names it.
                let rel = job_rel.as_ref().ok_or_else(|| SourcesError::JobOutsideRoot {
                    job: job.file.clone(),
                    root: root.clone(),
                })?;
                let i = job
                    .job
                    .agent
                    .inputs
                    .mcps
                    .iter()
                    .position(|m| m.server.as_deref() == Some(mcp.name.as_str()))
                    .ok_or_else(|| SourcesError::NoEntry(mcp.name.clone()))?;
                declared_at(&job.file, rel, &index("agent.inputs.mcps", i))?
            }
        };
        declared.insert(mcp.name.clone(), at);
    }
    Ok(SarifSources { root, declared })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sources_error_names_the_file_or_server() {
        let gone = SourcesError::KeyGone {
            file: "mcp.json".into(),
            key: "mcpServers.github".into(),
        };
        assert_eq!(
            gone.to_string(),
            "mcp.json: `mcpServers.github` is not in the file any more"
        );
        let outside = SourcesError::JobOutsideRoot {
            job: "/a/job.yaml".into(),
            root: "/b".into(),
        };
        assert_eq!(
            outside.to_string(),
            "/a/job.yaml is outside the source root /b: pass --source-root"
        );
        assert_eq!(
            SourcesError::NoEntry("github".into()).to_string(),
            "server `github`: no agent.inputs.mcps entry names it"
        );
        let root = SourcesError::Root {
            root: "/nope".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert!(root.to_string().starts_with("/nope: the source root: "), "{root}");
        assert!(std::error::Error::source(&root).is_some());
    }
}
