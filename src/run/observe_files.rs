//! Takes the harness's own look at the files a case touched, independent of any model: the
//! workspace copy (with `.git`) and the session's scratch folders (HOME, TMPDIR), snapshotted
//! after setup and again after the conversation, before the session is deleted. What it saw is
//! `judge::file_facts::FileFacts`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::environment::CaseEnvironment;
pub use crate::judge::file_facts::{FileFacts, OutsideWrite, Party};
use crate::judge::file_facts::{GIT_HOST_FILES, owner_of};
use crate::judge::workspace_diff::{GitChanges, Snapshot, TreeDiff, git_refs};

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
        let touched: Vec<(&str, String)> = facts.workspace.entries().map(|(c, p)| (c, p.to_string())).collect();
        facts.links_out =
            crate::judge::file_facts::links_leaving(&ws.root, touched.iter().map(|(c, p)| (*c, p.as_str())));
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
