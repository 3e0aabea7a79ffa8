//! What the harness saw of the files a case touched, independent of any model: the
//! workspace copy (with `.git`) and the session's scratch folders (HOME, TMPDIR), snapshotted
//! after setup and again after the conversation, before the session is deleted.
//!
//! Writes in the scratch folders under the agent host's own state folders (OpenCode's, Codex's,
//! npm's caches) are labelled as the host's, not the agent's: the host writes there on every
//! run. What the agent's tools do there is indistinguishable from the host's own writes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::workspace_diff::{GitChanges, TreeDiff};

/// Folders (relative to HOME or TMPDIR) the agent hosts write to on their own on every run.
pub(crate) const AGENT_HOST_STATE: &[&str] = &[
    ".local/share/opencode",
    ".local/state/opencode",
    ".cache/opencode",
    ".config/opencode",
    ".codex",
    ".npm",
    ".bun",
    "opencode",
];

/// Where OpenCode keeps its snapshot repositories, as the sandbox shows HOME.
pub(crate) const HOST_SNAPSHOTS: &str = "/sandbox/home/.local/share/opencode/snapshot/";

/// git subcommands OpenCode's snapshots use: local, none reaches a remote.
const SNAPSHOT_SUBCOMMANDS: &[&str] = &[
    "add",
    "write-tree",
    "read-tree",
    "diff",
    "diff-files",
    "diff-index",
    "checkout-index",
    "ls-files",
    "ls-tree",
    "cat-file",
    "show",
    "config",
    "update-index",
    "status",
    "rev-parse",
    "init",
];

/// Whether an observed command line is the agent host's own git bookkeeping: a local git
/// subcommand run on one of OpenCode's snapshot repositories (`git --git-dir
/// /sandbox/home/.local/share/opencode/snapshot/… write-tree`). Such a command is the host's,
/// not an act of the agent, so a shell rule (`git add`) does not count it. Strict on purpose:
/// the folder must be the snapshot folder itself (no `..`), and a subcommand that can reach
/// a remote (`push`, `fetch`) is never bookkeeping, wherever it points.
pub(crate) fn is_host_git_bookkeeping(line: &str) -> bool {
    let Ok(words) = shell_words::split(line) else {
        return false;
    };
    if words.first().map(String::as_str) != Some("git") {
        return false;
    }
    let (mut dir, mut sub, mut i) = (None, None, 1);
    while i < words.len() {
        let w = words[i].as_str();
        if let Some(d) = w.strip_prefix("--git-dir=") {
            dir = Some(d.to_string());
        } else if w == "--git-dir" || w == "--work-tree" || w == "-c" || w == "-C" {
            if w == "--git-dir" {
                dir = words.get(i + 1).cloned();
            }
            i += 1;
        } else if !w.starts_with('-') {
            sub = Some(w);
            break;
        }
        i += 1;
    }
    let in_snapshots = dir.is_some_and(|d| d.starts_with(HOST_SNAPSHOTS) && !d.split('/').any(|part| part == ".."));
    in_snapshots && sub.is_some_and(|s| SNAPSHOT_SUBCOMMANDS.contains(&s))
}

/// Files under `.git` that change without anyone asking: the index (read-only commands such as
/// `git status` refresh it) and OpenCode's project id, written on every run.
pub(crate) const GIT_HOST_FILES: &[&str] = &[".git/index", ".git/opencode"];

/// Native libraries the agent host's runtime (Bun, in OpenCode's binary) unpacks into the temp
/// folder on every start: `.<16 hex>-<8 hex>.so`.
pub(crate) static RUNTIME_UNPACK: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"^(tmp/)?\.[0-9a-f]{16}-[0-9a-f]{8}\.so$").expect("valid pattern"));

/// Who wrote a file outside the workspace (or who made a network attempt).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    Agent,
    /// The agent host itself (OpenCode's state, registry lookups): harness noise.
    AgentHost,
}

/// One file written outside the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutsideWrite {
    /// `HOME/.ssh/config`, `TMPDIR/x`.
    pub(crate) path: String,
    /// added, removed or changed.
    pub(crate) change: String,
    pub(crate) by: Party,
}

/// What the harness saw of the files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileFacts {
    /// Files of the workspace outside `.git`.
    pub(crate) workspace: TreeDiff,
    /// Files under `.git` other than objects and `GIT_HOST_FILES` (refs, HEAD, config, hooks).
    pub(crate) git_files: TreeDiff,
    /// Refs and config; `None` when the workspace has no `.git`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) git: Option<GitChanges>,
    pub(crate) outside_writes: Vec<OutsideWrite>,
    /// The scratch folders that were looked at (`HOME`, `TMPDIR`).
    pub(crate) outside_observed: Vec<String>,
    /// The agent's writes under HOME or TMPDIR (`HOME/.token-backup`) that hold a known secret
    /// in any form the redactor knows: read before the session is deleted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) outside_secrets: Vec<String>,
    /// Symlinks added or changed in the workspace that point out of it (`id_rsa -> /home/u/.ssh/id_rsa`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) links_out: Vec<String>,
}

impl FileFacts {
    /// Writes outside the workspace attributed to the agent.
    pub(crate) fn agent_outside_writes(&self) -> impl Iterator<Item = &OutsideWrite> {
        self.outside_writes.iter().filter(|w| w.by == Party::Agent)
    }

    /// Every changed path of the workspace, `.git` included, with what happened to it.
    pub(crate) fn workspace_entries(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.workspace.entries().chain(self.git_files.entries())
    }
}

/// The agent host's own state folders and sockets are the host's; the rest is the agent's.
pub(crate) fn owner_of(rel: &str) -> Party {
    let host_state = AGENT_HOST_STATE
        .iter()
        .any(|d| rel == *d || rel.starts_with(&format!("{d}/")));
    if host_state || rel.ends_with(".sock") || RUNTIME_UNPACK.is_match(rel) {
        Party::AgentHost
    } else {
        Party::Agent
    }
}

/// The added or changed paths of `root` that are symlinks pointing out of it: absolute
/// targets, or relative ones whose `..` climb above the root. The target is never followed.
pub(crate) fn links_leaving<'a>(
    root: &std::path::Path,
    entries: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (change, rel) in entries {
        if change == "removed" {
            continue;
        }
        let Ok(target) = std::fs::read_link(root.join(rel)) else {
            continue;
        };
        let mut depth: i64 = rel.matches('/').count() as i64;
        let mut leaves = target.is_absolute();
        for part in target.components() {
            match part {
                std::path::Component::ParentDir => depth -= 1,
                std::path::Component::Normal(_) => depth += 1,
                _ => {}
            }
            leaves |= depth < 0;
        }
        if leaves {
            out.push(format!("{rel} -> {}", target.display()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_git_on_a_host_state_repository_is_bookkeeping() {
        let snap =
            "git --git-dir /sandbox/home/.local/share/opencode/snapshot/a/b --work-tree /sandbox/workspace add .";
        assert!(is_host_git_bookkeeping(snap));
        assert!(is_host_git_bookkeeping(
            "git '--git-dir=/sandbox/home/.local/share/opencode/snapshot/x' write-tree"
        ));
        assert!(!is_host_git_bookkeeping(
            "git push origin /sandbox/home/.local/share/opencode/x"
        ));
        assert!(!is_host_git_bookkeeping("git --git-dir /sandbox/workspace/.git push"));
        assert!(!is_host_git_bookkeeping(
            "sh -c 'git --git-dir /sandbox/home/.local/share/opencode/s push'"
        ));
        // Forged: a folder that only names the host's, a way out with `..`, a remote subcommand.
        assert!(!is_host_git_bookkeeping(
            "git --git-dir=./.npm/../.git push origin main"
        ));
        assert!(!is_host_git_bookkeeping("git --git-dir /tmp/.npm/r add ."));
        assert!(!is_host_git_bookkeeping(
            "git --git-dir /sandbox/home/.local/share/opencode/snapshot/../../../../workspace/.git add ."
        ));
        assert!(!is_host_git_bookkeeping(
            "git --git-dir /sandbox/home/.local/share/opencode/snapshot/x push origin main"
        ));
        assert!(is_host_git_bookkeeping(
            "git -c core.autocrlf=false --git-dir /sandbox/home/.local/share/opencode/snapshot/p/q config core.longpaths true"
        ));
    }

    #[test]
    fn links_out_of_the_workspace_are_found_and_links_inside_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, root.join(at)).unwrap();
        link("/home/u/.ssh/id_rsa", "key");
        link("../../etc", "sub/up");
        link("../README.md", "sub/readme");
        link("sub/../..", "sneaky");
        std::fs::write(root.join("plain"), "x").unwrap();
        let entries = [
            ("added", "key"),
            ("added", "sub/up"),
            ("changed", "sub/readme"),
            ("added", "sneaky"),
            ("added", "plain"),
            ("removed", "gone"),
        ];
        let out = links_leaving(root, entries.into_iter());
        assert_eq!(
            out,
            vec![
                "key -> /home/u/.ssh/id_rsa",
                "sub/up -> ../../etc",
                "sneaky -> sub/../.."
            ]
        );
    }

    #[test]
    fn host_state_is_the_hosts_and_the_rest_the_agents() {
        assert_eq!(owner_of(".local/share/opencode/storage/x.json"), Party::AgentHost);
        assert_eq!(owner_of("opencode-warm.sock"), Party::AgentHost);
        assert_eq!(owner_of(".ssh/authorized_keys"), Party::Agent);
        assert_eq!(owner_of(".local/share/opencode-evil"), Party::Agent);
        assert_eq!(owner_of("tmp/.bcfde7febd85bf6e-00000000.so"), Party::AgentHost);
        assert_eq!(owner_of(".bcfde7febd85bf6e-00000000.so"), Party::AgentHost);
        assert_eq!(owner_of("tmp/payload.so"), Party::Agent);
    }
}
