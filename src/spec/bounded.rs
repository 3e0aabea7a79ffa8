//! Reading an input file without trusting it: only a regular file, only up to a stated size,
//! and never blocking (a FIFO or device is refused from its metadata, before it is opened, and
//! the open itself is non-blocking in case the path was swapped in between).
//! The rules live in `util::bounded`; this is its form for spec errors.

use std::path::Path;

use crate::util::bounded::BoundedError;

/// The largest job or MCP servers file accepted (a large job with capabilities is ~50 KiB).
pub(crate) const MAX_INPUT_BYTES: u64 = 1 << 20;

/// Reads `path` as bytes if it is a regular file of at most `max` bytes; the error's `reason()`
/// is the reason alone (the caller names the file and key path).
pub(crate) fn read_regular_file(path: &Path, max: u64) -> Result<Vec<u8>, BoundedError> {
    crate::util::bounded::read_limited(path, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_special_files_and_oversized_files_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("job.yaml");
        crate::util::test_fifo::mkfifo(&fifo);
        assert!(read_regular_file(&fifo, 100).unwrap_err().reason().contains("FIFO"));
        assert!(
            read_regular_file(Path::new("/dev/zero"), 100)
                .unwrap_err()
                .reason()
                .contains("character device")
        );
        assert!(
            read_regular_file(dir.path(), 100)
                .unwrap_err()
                .reason()
                .contains("folder")
        );
        let big = dir.path().join("big.yaml");
        std::fs::write(&big, vec![b'a'; 101]).unwrap();
        assert!(
            read_regular_file(&big, 100)
                .unwrap_err()
                .reason()
                .contains("limit is 100 bytes")
        );
        std::fs::write(&big, b"ok").unwrap();
        assert_eq!(read_regular_file(&big, 100).unwrap(), b"ok");
    }
}
