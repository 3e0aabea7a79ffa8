//! Reading an input file without trusting it: only a regular file, only up to a stated size,
//! and never blocking (a FIFO or device is refused from its metadata, before it is opened, and
//! the open itself is non-blocking in case the path was swapped in between).

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The largest job or MCP servers file accepted (a large job with capabilities is ~50 KiB).
pub const MAX_INPUT_BYTES: u64 = 1 << 20;

/// What kind of non-regular file a path is, for the message.
fn kind_of(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Reads `path` as bytes if it is a regular file of at most `max` bytes.
pub fn read_regular_file(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read the file: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "is {}, not a regular file; refusing to read it",
            kind_of(&meta.file_type())
        ));
    }
    if meta.len() > max {
        return Err(format!("is {} bytes; the limit is {max} bytes", meta.len()));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| format!("cannot read the file: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read the file: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "is {}, not a regular file; refusing to read it",
            kind_of(&meta.file_type())
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(format!("grew past the limit of {max} bytes while being read"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_special_files_and_oversized_files_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("job.yaml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(read_regular_file(&fifo, 100).unwrap_err().contains("FIFO"));
        assert!(
            read_regular_file(Path::new("/dev/zero"), 100)
                .unwrap_err()
                .contains("character device")
        );
        assert!(read_regular_file(dir.path(), 100).unwrap_err().contains("folder"));
        let big = dir.path().join("big.yaml");
        std::fs::write(&big, vec![b'a'; 101]).unwrap();
        assert!(read_regular_file(&big, 100).unwrap_err().contains("limit is 100 bytes"));
        std::fs::write(&big, b"ok").unwrap();
        assert_eq!(read_regular_file(&big, 100).unwrap(), b"ok");
    }
}
