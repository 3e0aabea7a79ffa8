//! Choosing how OpenCode runs a case: warm (`opencode serve` once, `run --attach` per turn) or
//! cold (`opencode run` per turn).
//!
//! Warm needs the workspace to be a git repository: with OpenCode 1.18, `run --attach` in a
//! folder that has no `.git` stops streaming after the first step of a turn (the server goes on
//! and finishes the turn, the client has already exited), so every turn that calls a tool would
//! look cut off. Cold has no such need. The choice is made after the setup steps (one of them
//! may create the repository) and is recorded in the trial's events, never made silently.

use std::path::Path;

use crate::spec::job::OpencodeMode;

/// The mode a case runs in, and why when it is not what the job's defaults would give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModeChoice {
    pub(crate) mode: OpencodeMode,
    pub(crate) note: String,
}

/// An explicit `warm` in a workspace that is not a git repository, with the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "hosts.opencode.mode is `warm`, but the workspace is not a git repository and OpenCode's \
     `run --attach` stops after a turn's first step there; add a setup step that runs `git init` \
     in the workspace, or set hosts.opencode.mode: cold"
)]
pub(crate) struct WarmNeedsRepository;

/// Decides the mode from the job's explicit choice, whether this environment can keep a server
/// between turns, and the workspace copy as the setup steps left it. An explicit `warm` that
/// cannot work is an error naming the fix, not a case that fails turn after turn.
pub(crate) fn choose(
    explicit: Option<OpencodeMode>,
    warm_possible: bool,
    workspace: Option<&Path>,
) -> Result<ModeChoice, WarmNeedsRepository> {
    let repository = workspace.is_some_and(is_git_repository);
    match explicit {
        Some(OpencodeMode::Cold) => Ok(ModeChoice {
            mode: OpencodeMode::Cold,
            note: String::new(),
        }),
        Some(OpencodeMode::Warm) if !repository => Err(WarmNeedsRepository),
        Some(OpencodeMode::Warm) => Ok(ModeChoice {
            mode: OpencodeMode::Warm,
            note: String::new(),
        }),
        None if !warm_possible => Ok(ModeChoice {
            mode: OpencodeMode::Cold,
            note: String::new(),
        }),
        None if !repository => Ok(ModeChoice {
            mode: OpencodeMode::Cold,
            note: "cold, not warm: the workspace is not a git repository, which OpenCode's `run --attach` needs".into(),
        }),
        None => Ok(ModeChoice {
            mode: OpencodeMode::Warm,
            note: String::new(),
        }),
    }
}

/// A `.git` folder (not a file pointing elsewhere, not a link) at the workspace's root. Read
/// without running git: the repository was made by the job's setup and git would run its hooks
/// and `core.fsmonitor` on the host.
fn is_git_repository(workspace: &Path) -> bool {
    let git = workspace.join(".git");
    std::fs::symlink_metadata(&git).is_ok_and(|m| m.is_dir())
        && std::fs::symlink_metadata(git.join("HEAD")).is_ok_and(|m| m.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join(".git")).unwrap();
        std::fs::write(d.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        d
    }

    #[test]
    fn default_is_warm_only_in_a_git_repository() {
        let plain = tempfile::tempdir().unwrap();
        let cold = choose(None, true, Some(plain.path())).unwrap();
        assert_eq!(cold.mode, OpencodeMode::Cold);
        assert!(cold.note.contains("not a git repository"), "{}", cold.note);
        let r = repo();
        assert_eq!(choose(None, true, Some(r.path())).unwrap().mode, OpencodeMode::Warm);
        assert_eq!(choose(None, true, None).unwrap().mode, OpencodeMode::Cold);
    }

    #[test]
    fn an_environment_without_a_server_link_stays_cold_without_a_note() {
        let r = repo();
        let c = choose(None, false, Some(r.path())).unwrap();
        assert_eq!((c.mode, c.note.as_str()), (OpencodeMode::Cold, ""));
    }

    #[test]
    fn explicit_warm_outside_a_repository_is_refused_with_the_fix() {
        let plain = tempfile::tempdir().unwrap();
        let err = choose(Some(OpencodeMode::Warm), true, Some(plain.path()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("git init") && err.contains("mode: cold"), "{err}");
        assert_eq!(
            choose(Some(OpencodeMode::Cold), true, Some(plain.path())).unwrap().mode,
            OpencodeMode::Cold
        );
    }

    #[test]
    fn a_git_file_or_a_link_is_not_taken_for_a_repository() {
        // A worktree's `.git` file points outside the workspace; a link could point anywhere.
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(".git"), "gitdir: /elsewhere\n").unwrap();
        assert_eq!(choose(None, true, Some(d.path())).unwrap().mode, OpencodeMode::Cold);
        let r = repo();
        let l = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(r.path().join(".git"), l.path().join(".git")).unwrap();
        assert_eq!(choose(None, true, Some(l.path())).unwrap().mode, OpencodeMode::Cold);
        // A `.git` folder without HEAD is not a repository git (or OpenCode) would find.
        let e = tempfile::tempdir().unwrap();
        std::fs::create_dir(e.path().join(".git")).unwrap();
        assert_eq!(choose(None, true, Some(e.path())).unwrap().mode, OpencodeMode::Cold);
    }
}
