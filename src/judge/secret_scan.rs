//! Known secrets left in the final workspace. The kept copy (`workspace-after/`) was masked at
//! the artifact boundary, so a file holding a known secret — as text in any form the redactor
//! knows, or inside a binary, which is replaced by the mask whole — holds the mask there.

use std::io::Read;
use std::path::Path;

use crate::redact::MASK;

/// Files read at most (the kept copy is bounded too).
const MAX_FILES: usize = 20_000;
/// Bytes read of one file.
const MAX_BYTES: u64 = 8 << 20;

/// The first MAX_BYTES of a regular file, opened without following a link and without blocking
/// on a FIFO swapped in after the walk.
fn head_of(path: &Path) -> Option<Vec<u8>> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The workspace files (relative paths) that hold a masked secret.
pub(crate) fn masked_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .min_depth(1)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .take(MAX_FILES);
    for entry in walk {
        if head_of(entry.path()).is_some_and(|bytes| bytes.windows(MASK.len()).any(|w| w == MASK.as_bytes())) {
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_holding_the_mask_are_named_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("deep/er")).unwrap();
        std::fs::write(dir.path().join("token.txt"), format!("token={MASK}\n")).unwrap();
        std::fs::write(dir.path().join("deep/er/blob.bin"), MASK).unwrap();
        std::fs::write(dir.path().join("clean.txt"), "REDACTED but not masked").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("link")).unwrap();
        assert_eq!(masked_files(dir.path()), vec!["deep/er/blob.bin", "token.txt"]);
        assert!(masked_files(&dir.path().join("missing")).is_empty());
    }
}
