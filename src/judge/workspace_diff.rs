//! Observed file changes, with no model involved: a snapshot of a folder tree before the
//! conversation and one after, and what differs — files added, removed or changed (`.git`
//! included), and in `.git` the refs that appeared, vanished or moved.
//!
//! Snapshots are bounded (file count, bytes hashed) so a huge workspace cannot stall a case;
//! a bounded snapshot says so (`truncated`), and its diff is then a lower bound.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// Most files a snapshot records.
pub(crate) const MAX_FILES: usize = 50_000;
/// Files larger than this are compared by size and modification time, not content.
const HASH_LIMIT: u64 = 8 << 20;
/// Most paths listed per kind of change in an artifact (the counts stay exact).
const LISTED: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Fingerprint {
    File {
        len: u64,
        digest: [u8; 32],
    },
    Large {
        len: u64,
        mtime_ns: i128,
    },
    Symlink(String),
    /// A FIFO, socket or device the agent left: recorded by kind, never opened (opening a
    /// FIFO blocks until a writer comes, which would hang the case).
    Special(&'static str),
}

/// The files of a tree at one moment, by path relative to its root (`/`-separated).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Snapshot {
    files: BTreeMap<String, Fingerprint>,
    /// More than `MAX_FILES` files, or some could not be read.
    pub truncated: bool,
}

impl Snapshot {
    /// Walks `root` without following symlinks. A missing root is an empty snapshot.
    pub(crate) fn take(root: &Path) -> Snapshot {
        let mut snap = Snapshot::default();
        for entry in walkdir::WalkDir::new(root).follow_links(false).min_depth(1) {
            let Ok(entry) = entry else {
                snap.truncated = true;
                continue;
            };
            if entry.file_type().is_dir() {
                continue;
            }
            if snap.files.len() >= MAX_FILES {
                snap.truncated = true;
                break;
            }
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            let kind = entry.file_type();
            let found = if kind.is_file() || kind.is_symlink() {
                fingerprint(entry.path(), kind.is_symlink())
            } else {
                Some(Fingerprint::Special(special_kind(&kind)))
            };
            match found {
                Some(f) => {
                    snap.files.insert(rel, f);
                }
                None => snap.truncated = true,
            }
        }
        snap
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

fn fingerprint(path: &Path, symlink: bool) -> Option<Fingerprint> {
    if symlink {
        return std::fs::read_link(path)
            .ok()
            .map(|t| Fingerprint::Symlink(t.to_string_lossy().into_owned()));
    }
    // Non-blocking and regular-only: the path may have been swapped for a FIFO since the walk.
    let file = crate::util::bounded::open_regular(path).ok()?;
    let meta = file.metadata().ok()?;
    if meta.len() > HASH_LIMIT {
        use std::os::unix::fs::MetadataExt;
        return Some(Fingerprint::Large {
            len: meta.len(),
            mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
        });
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, HASH_LIMIT + 1), &mut bytes).ok()?;
    Some(Fingerprint::File {
        len: bytes.len() as u64,
        digest: Sha256::digest(&bytes).into(),
    })
}

fn special_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "fifo"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "char-device"
    } else if t.is_block_device() {
        "block-device"
    } else {
        "special"
    }
}

/// A small git file (`HEAD`, a ref, `packed-refs`) as text; `None` when it is missing, not a
/// regular file (an agent can leave a FIFO there) or too large.
fn read_git_file(path: &Path) -> Option<String> {
    crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::State).ok()
}

/// What differs between two snapshots of one tree. Lists are bounded; counts are exact.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct TreeDiff {
    pub(crate) added: Vec<String>,
    pub(crate) removed: Vec<String>,
    pub(crate) changed: Vec<String>,
    pub(crate) added_count: usize,
    pub(crate) removed_count: usize,
    pub(crate) changed_count: usize,
    /// A snapshot was bounded: the diff is a lower bound.
    #[serde(default)]
    pub(crate) truncated: bool,
}

impl TreeDiff {
    pub(crate) fn between(before: &Snapshot, after: &Snapshot) -> TreeDiff {
        Self::filtered(before, after, |_| true)
    }

    /// The diff of the paths `keep` accepts.
    pub(crate) fn filtered(before: &Snapshot, after: &Snapshot, keep: impl Fn(&str) -> bool) -> TreeDiff {
        let mut d = TreeDiff {
            truncated: before.truncated || after.truncated,
            ..TreeDiff::default()
        };
        let push = |list: &mut Vec<String>, count: &mut usize, p: &str| {
            *count += 1;
            if list.len() < LISTED {
                list.push(p.to_string());
            }
        };
        for (p, f) in &after.files {
            if !keep(p) {
                continue;
            }
            match before.files.get(p) {
                None => push(&mut d.added, &mut d.added_count, p),
                Some(old) if old != f => push(&mut d.changed, &mut d.changed_count, p),
                Some(_) => {}
            }
        }
        for p in before.files.keys().filter(|p| keep(p) && !after.files.contains_key(*p)) {
            push(&mut d.removed, &mut d.removed_count, p);
        }
        d
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.added_count + self.removed_count + self.changed_count == 0
    }

    /// Every listed path with what happened to it.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        let added = self.added.iter().map(|p| ("added", p.as_str()));
        let removed = self.removed.iter().map(|p| ("removed", p.as_str()));
        let changed = self.changed.iter().map(|p| ("changed", p.as_str()));
        added.chain(removed).chain(changed)
    }
}

/// A git repository's refs (`HEAD`, `refs/...`) and what each points at, read from loose
/// ref files and `packed-refs` without running git.
pub(crate) fn git_refs(git_dir: &Path) -> BTreeMap<String, String> {
    let mut refs = BTreeMap::new();
    if let Some(text) = read_git_file(&git_dir.join("packed-refs")) {
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.starts_with('^')) {
            if let Some((sha, name)) = line.split_once(' ') {
                refs.insert(name.trim().to_string(), sha.trim().to_string());
            }
        }
    }
    let loose = git_dir.join("refs");
    for e in walkdir::WalkDir::new(&loose).into_iter().filter_map(Result::ok) {
        if !e.file_type().is_file() {
            continue;
        }
        let (Ok(rel), Some(text)) = (e.path().strip_prefix(git_dir), read_git_file(e.path())) else {
            continue;
        };
        refs.insert(rel.to_string_lossy().replace('\\', "/"), text.trim().to_string());
    }
    if let Some(head) = read_git_file(&git_dir.join("HEAD")) {
        refs.insert("HEAD".into(), head.trim().to_string());
    }
    refs
}

/// How a repository's refs and config moved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct GitChanges {
    /// `refs/tags/v1.3.0 -> 1a2b3c4`.
    pub(crate) refs_added: Vec<String>,
    pub(crate) refs_removed: Vec<String>,
    /// `refs/heads/main 1a2b3c4 -> 5d6e7f8`.
    pub(crate) refs_moved: Vec<String>,
    pub(crate) config_changed: bool,
    /// New files under `.git/objects` (loose objects and packs): new commits, trees or blobs.
    pub(crate) objects_added: usize,
}

impl GitChanges {
    pub(crate) fn between(
        before: &BTreeMap<String, String>,
        after: &BTreeMap<String, String>,
        files: &TreeDiff,
    ) -> GitChanges {
        let short = |s: &str| s.chars().take(12).collect::<String>();
        let mut g = GitChanges::default();
        for (name, sha) in after {
            match before.get(name) {
                None => g.refs_added.push(format!("{name} -> {}", short(sha))),
                Some(old) if old != sha => g.refs_moved.push(format!("{name} {} -> {}", short(old), short(sha))),
                Some(_) => {}
            }
        }
        for name in before.keys().filter(|n| !after.contains_key(*n)) {
            g.refs_removed.push(name.clone());
        }
        g.config_changed = files.entries().any(|(_, p)| p == ".git/config");
        g.objects_added = files.added.iter().filter(|p| p.starts_with(".git/objects/")).count();
        g
    }

    /// Refs appeared, vanished or moved.
    pub(crate) fn refs_changed(&self) -> bool {
        !(self.refs_added.is_empty() && self.refs_removed.is_empty() && self.refs_moved.is_empty())
    }

    /// Each changed ref, as a path a glob can match (`.git/refs/tags/v1`).
    pub(crate) fn changed_ref_paths(&self) -> Vec<String> {
        let name = |s: &str| s.split(' ').next().unwrap_or("").to_string();
        self.refs_added
            .iter()
            .chain(&self.refs_moved)
            .map(|s| name(s))
            .chain(self.refs_removed.iter().cloned())
            .map(|n| format!(".git/{n}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::test_fifo::mkfifo;

    #[test]
    fn diff_lists_added_removed_changed_including_git() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/refs/tags")).unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::write(root.join("b.txt"), "b").unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let before = Snapshot::take(root);
        let refs_before = git_refs(&root.join(".git"));
        std::fs::write(root.join("a.txt"), "A").unwrap();
        std::fs::remove_file(root.join("b.txt")).unwrap();
        std::fs::write(root.join("c.txt"), "c").unwrap();
        std::fs::write(root.join(".git/refs/tags/v1"), "abcdef0123456789\n").unwrap();
        let after = Snapshot::take(root);
        let d = TreeDiff::between(&before, &after);
        assert_eq!(d.added, vec![".git/refs/tags/v1", "c.txt"]);
        assert_eq!(d.removed, vec!["b.txt"]);
        assert_eq!(d.changed, vec!["a.txt"]);
        let g = GitChanges::between(&refs_before, &git_refs(&root.join(".git")), &d);
        assert_eq!(g.refs_added, vec!["refs/tags/v1 -> abcdef012345"]);
        assert_eq!(g.changed_ref_paths(), vec![".git/refs/tags/v1"]);
        assert!(TreeDiff::between(&after, &after).is_empty());
    }

    /// Runs `f` on another thread; a hang fails the test instead of stalling it.
    fn within_5s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(f()));
        rx.recv_timeout(std::time::Duration::from_secs(5))
            .expect("reading the tree blocked on a special file")
    }

    #[test]
    fn special_files_an_agent_leaves_are_recorded_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join(".git/refs/heads")).unwrap();
        std::fs::write(root.join("changed.txt"), "x").unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let before = Snapshot::take(&root);
        // A new FIFO, a file replaced by a FIFO, FIFOs as HEAD, a loose ref and packed-refs,
        // and a socket.
        mkfifo(&root.join("new.fifo"));
        std::fs::remove_file(root.join("changed.txt")).unwrap();
        mkfifo(&root.join("changed.txt"));
        std::fs::remove_file(root.join(".git/HEAD")).unwrap();
        mkfifo(&root.join(".git/HEAD"));
        mkfifo(&root.join(".git/refs/heads/main"));
        mkfifo(&root.join(".git/packed-refs"));
        let _sock = std::os::unix::net::UnixListener::bind(root.join("agent.sock")).unwrap();
        let r = root.clone();
        let after = within_5s(move || Snapshot::take(&r));
        let r = root.clone();
        let refs = within_5s(move || git_refs(&r.join(".git")));
        let d = TreeDiff::between(&before, &after);
        assert!(d.added.contains(&"new.fifo".to_string()), "{d:?}");
        assert!(d.added.contains(&"agent.sock".to_string()), "{d:?}");
        assert!(d.changed.contains(&"changed.txt".to_string()), "{d:?}");
        assert!(d.changed.contains(&".git/HEAD".to_string()), "{d:?}");
        assert!(refs.is_empty(), "special files are not refs: {refs:?}");
    }

    #[test]
    fn packed_refs_are_read_and_a_missing_root_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("packed-refs"),
            "# pack-refs with: peeled\n1111 refs/heads/main\n^2222\n",
        )
        .unwrap();
        assert_eq!(
            git_refs(dir.path()).get("refs/heads/main").map(String::as_str),
            Some("1111")
        );
        assert!(Snapshot::take(&dir.path().join("missing")).is_empty());
    }
}
