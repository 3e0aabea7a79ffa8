//! How a final workspace crosses into the run folder as `workspace-after/`: copied with its
//! secrets masked, or — when it is the harness's own copy, removed at close anyway — masked in
//! place and renamed, which spares making every file and folder again and removing the old ones.
//!
//! The move changes nothing until it knows it can finish: the tree is first renamed to a private
//! name (a process writing by absolute path no longer finds it), checked for processes still
//! working in it, and read whole; only then are files replaced (never written through, so a hard
//! link cannot carry the mask out) and the folder renamed into the trial folder. Anything it
//! cannot vouch for (a workspace that became a symlink, another file system or a mount inside,
//! a process left behind, an unreadable entry, extended attributes it would carry along) leaves
//! the tree as it was, for the copy.

use std::borrow::Cow;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::redact::{MASK, Redactor};
use crate::sandbox::beneath;
use crate::sandbox::files::{copied_file_mode, copied_folder_mode};

/// Largest final workspace kept with a run.
pub(in crate::run) const KEEP_WORKSPACE_LIMIT: u64 = 32 << 20;
/// Most entries (files, folders, links) a kept workspace may have. The walk stops here too:
/// an agent that leaves millions of empty files must not make the harness walk and hold them all.
const KEEP_WORKSPACE_ENTRIES: usize = 100_000;

/// How the final workspace is kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeepBy {
    Copy,
    /// The folder is the harness's and removed at close; `processes_may_remain` when a command
    /// ran there (a process it left behind may still write into the tree).
    Move {
        processes_may_remain: bool,
    },
}

/// What of a final workspace is kept: its folders and regular files outside any `.git`, and
/// what is not (the `.git` folders, symlinks and special files).
pub(in crate::run) struct WorkspaceWalk {
    kept: Vec<walkdir::DirEntry>,
    dropped: Vec<walkdir::DirEntry>,
    pub(crate) bytes: u64,
    /// A folder or file could not be read: only the copy (which leaves it out) may keep it.
    unread: bool,
}

impl WorkspaceWalk {
    pub(crate) fn of(src: &Path) -> WorkspaceWalk {
        let mut walk = WorkspaceWalk {
            kept: Vec::new(),
            dropped: Vec::new(),
            bytes: 0,
            unread: false,
        };
        // A workspace the agent replaced by a symlink is not followed out (to the user's files).
        let mut entries = walkdir::WalkDir::new(src)
            .follow_links(false)
            .follow_root_links(false)
            .into_iter();
        while let Some(entry) = entries.next() {
            let Ok(e) = entry else {
                walk.unread = true;
                continue;
            };
            let git = e.depth() > 0 && e.file_name() == ".git";
            if git && e.file_type().is_dir() {
                entries.skip_current_dir();
            }
            if walk.kept.len() + walk.dropped.len() >= KEEP_WORKSPACE_ENTRIES || walk.bytes > KEEP_WORKSPACE_LIMIT {
                // Too large to keep: stop walking (the caller sees the size and keeps nothing).
                walk.bytes = walk.bytes.max(KEEP_WORKSPACE_LIMIT + 1);
                break;
            }
            if git || !(e.file_type().is_dir() || e.file_type().is_file()) {
                walk.dropped.push(e);
                continue;
            }
            if e.file_type().is_file() {
                match e.metadata() {
                    Ok(m) => walk.bytes += m.len(),
                    Err(_) => walk.unread = true,
                }
            }
            walk.kept.push(e);
        }
        walk
    }

    /// Copies the kept entries masked. The tree is the agent's and a process it left behind
    /// may still change it: every entry is reached from `src` without following a link in
    /// any folder (one swapped in since the walk fails the copy rather than bringing a host
    /// file along), and what is written is Ghostlab's, with permission bits only.
    pub(crate) fn copy_masked(&self, src: &Path, dst: &Path, redactor: &Redactor) -> std::io::Result<()> {
        if self.kept.is_empty() {
            return Ok(());
        }
        let root = match src.parent() {
            Some(parent) => {
                let name = src
                    .file_name()
                    .ok_or_else(|| std::io::Error::other("no workspace folder name"))?;
                beneath::open_dir_beneath(&beneath::open_root(parent)?, Path::new(name))?
            }
            None => beneath::open_root(src)?,
        };
        for e in &self.kept {
            let rel = e.path().strip_prefix(src).map_err(std::io::Error::other)?;
            let target = dst.join(rel);
            if e.file_type().is_dir() {
                drop(beneath::open_dir_beneath(&root, rel)?);
                std::fs::create_dir_all(&target)?;
            } else {
                // Read once: the bytes are both checked for secrets and written. Regular files
                // only, opened without blocking (a FIFO swapped in since the walk), at most
                // what the walk counted in all (a file still growing cannot make the harness
                // read without end).
                let (bytes, mode) = beneath::read_beneath(&root, rel, KEEP_WORKSPACE_LIMIT)?;
                std::fs::write(&target, masked(redactor, &bytes))?;
                std::fs::set_permissions(&target, std::fs::Permissions::from_mode(copied_file_mode(mode)))?;
            }
        }
        Ok(())
    }
}

/// A file's bytes as they may leave: masked text, or the mask alone for a binary that holds a
/// secret.
fn masked<'a>(redactor: &Redactor, bytes: &'a [u8]) -> Cow<'a, [u8]> {
    redactor
        .redact_file_bytes(bytes)
        .unwrap_or(Cow::Borrowed(MASK.as_bytes()))
}

/// Why a workspace was not moved, and where its tree is now (for the copy): `src`, or the
/// private name it was set aside under when it could not be put back.
pub(in crate::run) struct NotMoved {
    pub(crate) why: String,
    pub(crate) tree: PathBuf,
}

/// Moves `src` to `dst` masked, or says why not with the tree left as it was.
pub(in crate::run) fn move_masked(
    src: &Path,
    dst: &Path,
    redactor: &Redactor,
    processes_may_remain: bool,
) -> Result<(), NotMoved> {
    let refuse = |why: String| NotMoved {
        why,
        tree: src.to_path_buf(),
    };
    let parent = dst.parent().ok_or_else(|| refuse("no trial folder".into()))?;
    let real_folder = std::fs::symlink_metadata(src).map_err(|e| refuse(format!("{}: {e}", src.display())))?;
    if !real_folder.is_dir() {
        return Err(refuse("the workspace is no longer a folder".into()));
    }
    let parent_dev = std::fs::metadata(parent).map_err(|e| refuse(format!("{}: {e}", parent.display())))?;
    if real_folder.dev() != parent_dev.dev() {
        return Err(refuse("the run folder is on another file system".into()));
    }
    let staging = src.with_file_name(format!(".ghostlab-keeping-{:016x}", rand::random::<u64>()));
    std::fs::rename(src, &staging).map_err(|e| refuse(format!("cannot set the workspace aside: {e}")))?;
    let restore = |why: String| match std::fs::rename(&staging, src) {
        Ok(()) => refuse(why),
        Err(e) => {
            tracing::warn!(
                "the workspace could not be put back ({e}); it is kept from {}",
                staging.display()
            );
            NotMoved {
                why,
                tree: staging.clone(),
            }
        }
    };
    if processes_may_remain {
        match crate::sandbox::procs::pids_using(&staging) {
            Some(pids) if pids.is_empty() => {}
            Some(pids) => {
                tracing::warn!(
                    ?pids,
                    "processes left behind by the agent still work in its workspace; it is copied"
                );
                return Err(restore(format!("processes {pids:?} still work in it")));
            }
            None => return Err(restore("cannot tell whether a process still works in it".into())),
        }
    }
    let walk = WorkspaceWalk::of(&staging);
    // Before any file is read: a tree over the limit is not kept at all (the copy says so).
    if walk.unread || walk.bytes > KEEP_WORKSPACE_LIMIT {
        return Err(restore("part of it could not be read, or it is too large".into()));
    }
    let plan = Replacements::read(&walk, redactor, real_folder.dev()).map_err(|e| restore(e.to_string()))?;
    // From here the tree changes; a failure still puts it back where the copy looks for it.
    let finish = || -> std::io::Result<()> {
        plan.apply(&walk)?;
        std::fs::rename(&staging, dst)
    };
    finish().map_err(|e| restore(format!("moving it failed: {e}")))
}

/// Why a tree cannot be moved masked (it is copied instead); each names the path.
#[derive(Debug, thiserror::Error)]
enum Unmovable {
    #[error("{} has extended attributes", .0.display())]
    ExtendedAttributes(PathBuf),
    #[error("{}: {source}", path.display())]
    Metadata {
        path: PathBuf,
        #[source]
        source: walkdir::Error,
    },
    #[error("{} is on another file system", .0.display())]
    OtherFileSystem(PathBuf),
    #[error(transparent)]
    Read(#[from] crate::util::bounded::BoundedError),
}

/// What the move must change: files whose bytes may not leave as they are, or that share their
/// inode with a file elsewhere (rewritten); files and folders whose owner or bits the agent
/// chose (a setuid, setgid or sticky bit, the sandbox user as owner: made Ghostlab's in place,
/// as a copy would be); folders the run folder's owner could not remove later.
struct Replacements {
    files: Vec<(PathBuf, Vec<u8>, u32)>,
    /// (path, mode, whether it must be given to Ghostlab's user), folders first.
    normalised: Vec<(PathBuf, u32, bool)>,
}

impl Replacements {
    /// Reads every kept file once; refuses a tree with extended attributes (an origin URL with
    /// a token in it would travel unmasked; the copy leaves them behind) or with another file
    /// system mounted in it (an agent's FUSE mount must not be changed, nor land in the run).
    fn read(walk: &WorkspaceWalk, redactor: &Redactor, dev: u64) -> Result<Replacements, Unmovable> {
        let mut plan = Replacements {
            files: Vec::new(),
            normalised: Vec::new(),
        };
        let mut files_in_place = Vec::new();
        // SAFETY: trivial getters.
        let me = unsafe { (libc::geteuid(), libc::getegid()) };
        for e in &walk.kept {
            let path = e.path();
            if has_xattrs(path) {
                return Err(Unmovable::ExtendedAttributes(path.to_path_buf()));
            }
            let meta = e.metadata().map_err(|source| Unmovable::Metadata {
                path: path.to_path_buf(),
                source,
            })?;
            if meta.dev() != dev {
                return Err(Unmovable::OtherFileSystem(path.to_path_buf()));
            }
            let mode = meta.permissions().mode() & 0o7777;
            let foreign = (meta.uid(), meta.gid()) != me;
            if e.file_type().is_dir() {
                let want = copied_folder_mode(mode);
                if want != mode || foreign {
                    plan.normalised.push((path.to_path_buf(), want, foreign));
                }
                continue;
            }
            let want = copied_file_mode(mode);
            let bytes = crate::util::bounded::read_limited(path, u64::MAX)?;
            let kept = masked(redactor, &bytes);
            let clean = matches!(kept, Cow::Borrowed(b) if std::ptr::eq(b, bytes.as_slice()));
            if !clean || meta.nlink() > 1 {
                // A new inode of Ghostlab's: a hard link's other names keep theirs untouched.
                plan.files.push((path.to_path_buf(), kept.into_owned(), want));
            } else if want != mode || foreign {
                files_in_place.push((path.to_path_buf(), want, foreign));
            }
        }
        plan.normalised.extend(files_in_place);
        Ok(plan)
    }

    fn apply(&self, walk: &WorkspaceWalk) -> std::io::Result<()> {
        // SAFETY: trivial getters.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        for (path, mode, foreign) in &self.normalised {
            // Owner first: the kernel clears setuid/setgid on a chown; the bits are set after.
            // Not root and not ours: the chown fails and the tree is put back for the copy.
            if *foreign {
                std::os::unix::fs::lchown(path, Some(uid), Some(gid))?;
            }
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode))?;
        }
        for e in walk.dropped.iter().rev() {
            if e.file_type().is_dir() {
                std::fs::remove_dir_all(e.path())?;
            } else {
                std::fs::remove_file(e.path())?;
            }
        }
        // A new file renamed over the old name (unsynced: the trial's commit covers it): a full
        // disk leaves the old file whole, and a hard link's other names keep their bytes.
        for (path, bytes, mode) in &self.files {
            crate::util::durable::write_replace(path, bytes)?;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode))?;
        }
        Ok(())
    }
}

/// Whether `path` (not followed) carries extended attributes other than `security.*` (an
/// SELinux label is on every file there, and says nothing the agent wrote).
fn has_xattrs(path: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return true;
    };
    // SAFETY: a size query (null buffer, length 0) on a NUL-terminated path.
    let size = unsafe { libc::llistxattr(c.as_ptr(), std::ptr::null_mut(), 0) };
    if size <= 0 {
        return false;
    }
    let mut names = vec![0u8; size as usize];
    // SAFETY: the buffer's pointer and length match; the kernel writes at most that many bytes.
    let got = unsafe { libc::llistxattr(c.as_ptr(), names.as_mut_ptr().cast(), names.len()) };
    if got < 0 {
        return true; // changed since the size query: not vouched for
    }
    names[..got as usize]
        .split(|b| *b == 0)
        .any(|name| !name.is_empty() && !name.starts_with(b"security."))
}

#[cfg(test)]
#[path = "workspace_keep_tests.rs"]
mod tests;
