//! The harness's own look at the files a case touched, independent of any model: the
//! workspace copy (with `.git`) and the session's scratch folders (HOME, TMPDIR), snapshotted
//! after setup and again after the conversation, before the session is deleted.
//!
//! Writes in the scratch folders under the agent host's own state folders (OpenCode's, Codex's,
//! npm's caches) are labelled as the host's, not the agent's: the host writes there on every
//! run. What the agent's tools do there is indistinguishable from the host's own writes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

use super::environment::CaseEnvironment;
use super::workspace_diff::{GitChanges, Snapshot, TreeDiff, git_refs};

/// Folders (relative to HOME or TMPDIR) the agent hosts write to on their own on every run.
pub const AGENT_HOST_STATE: &[&str] = &[
    ".local/share/opencode",
    ".local/state/opencode",
    ".cache/opencode",
    ".config/opencode",
    ".codex",
    ".npm",
    ".bun",
    "opencode",
];

/// Files under `.git` that change without anyone asking: the index (read-only commands such as
/// `git status` refresh it) and OpenCode's project id, written on every run.
const GIT_HOST_FILES: &[&str] = &[".git/index", ".git/opencode"];

/// Native libraries the agent host's runtime (Bun, in OpenCode's binary) unpacks into the temp
/// folder on every start: `.<16 hex>-<8 hex>.so`.
static RUNTIME_UNPACK: std::sync::LazyLock<regex::Regex> =
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
    pub path: String,
    /// added, removed or changed.
    pub change: String,
    pub by: Party,
}

/// What the harness saw of the files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileFacts {
    /// Files of the workspace outside `.git`.
    pub workspace: TreeDiff,
    /// Files under `.git` other than objects and `GIT_HOST_FILES` (refs, HEAD, config, hooks).
    pub git_files: TreeDiff,
    /// Refs and config; `None` when the workspace has no `.git`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitChanges>,
    pub outside_writes: Vec<OutsideWrite>,
    /// The scratch folders that were looked at (`HOME`, `TMPDIR`).
    pub outside_observed: Vec<String>,
}

impl FileFacts {
    /// Writes outside the workspace attributed to the agent.
    pub fn agent_outside_writes(&self) -> impl Iterator<Item = &OutsideWrite> {
        self.outside_writes.iter().filter(|w| w.by == Party::Agent)
    }

    /// Every changed path of the workspace, `.git` included, with what happened to it.
    pub fn workspace_entries(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.workspace.entries().chain(self.git_files.entries())
    }
}

struct Tree {
    label: String,
    root: PathBuf,
    before: Snapshot,
}

/// Snapshots taken after setup, before the agent's first turn.
pub struct FileBaseline {
    workspace: Option<(Tree, BTreeMap<String, String>)>,
    scratch: Vec<Tree>,
}

impl FileBaseline {
    pub fn take(env: &dyn CaseEnvironment) -> FileBaseline {
        let workspace = env.final_workspace().map(|root| {
            let refs = git_refs(&root.join(".git"));
            let before = Snapshot::take(&root);
            (
                Tree {
                    label: "workspace".into(),
                    root,
                    before,
                },
                refs,
            )
        });
        let scratch = env
            .scratch_dirs()
            .into_iter()
            .map(|(label, root)| Tree {
                before: Snapshot::take(&root),
                label,
                root,
            })
            .collect();
        FileBaseline { workspace, scratch }
    }

    /// What changed since the baseline. `None` when there was no workspace to compare.
    pub fn observe(&self) -> Option<FileFacts> {
        let (ws, refs_before) = self.workspace.as_ref()?;
        let after = Snapshot::take(&ws.root);
        let in_git = |p: &str| p == ".git" || p.starts_with(".git/");
        let mut facts = FileFacts {
            workspace: TreeDiff::filtered(&ws.before, &after, |p| !in_git(p)),
            git_files: TreeDiff::filtered(&ws.before, &after, |p| {
                in_git(p) && !p.starts_with(".git/objects/") && !GIT_HOST_FILES.contains(&p)
            }),
            ..FileFacts::default()
        };
        let git_dir = ws.root.join(".git");
        if git_dir.is_dir() || !refs_before.is_empty() {
            let objects = TreeDiff::filtered(&ws.before, &after, |p| p.starts_with(".git/objects/"));
            let mut g = GitChanges::between(refs_before, &git_refs(&git_dir), &facts.git_files);
            g.objects_added = objects.added_count;
            facts.git = Some(g);
        }
        for tree in &self.scratch {
            facts.outside_observed.push(tree.label.clone());
            let diff = TreeDiff::between(&tree.before, &Snapshot::take(&tree.root));
            for (change, path) in diff.entries() {
                facts.outside_writes.push(OutsideWrite {
                    path: format!("{}/{path}", tree.label),
                    change: change.into(),
                    by: owner_of(path),
                });
            }
        }
        Some(facts)
    }
}

/// A sandbox session's scratch folders: its HOME, and its TMPDIR (`tmp` beside HOME in the
/// session folder). `/tmp` inside the sandbox is a tmpfs gone with each command: not observable.
pub fn session_scratch(home: &std::path::Path, session_dir: &std::path::Path) -> Vec<(String, PathBuf)> {
    vec![
        ("HOME".into(), home.to_path_buf()),
        ("TMPDIR".into(), session_dir.join("tmp")),
    ]
}

/// The agent host's own state folders and sockets are the host's; the rest is the agent's.
fn owner_of(rel: &str) -> Party {
    let host_state = AGENT_HOST_STATE
        .iter()
        .any(|d| rel == *d || rel.starts_with(&format!("{d}/")));
    if host_state || rel.ends_with(".sock") || RUNTIME_UNPACK.is_match(rel) {
        Party::AgentHost
    } else {
        Party::Agent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
