//! The one way Ghostlab reads a file it did not just write: only a regular file, only up to a
//! size bound for its kind, and never blocking. A FIFO, socket or device is refused from its
//! metadata before it is opened; the open itself is non-blocking (`O_NONBLOCK`) and checked
//! again with `fstat`, in case the path was swapped in between. Without this, a FIFO left as
//! `summary.json` or an agent prompt hangs a command forever, and a 3 GiB sparse file makes
//! it allocate 3 GiB.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;

/// What a file is, which sets how large it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// job.yaml, agent.yaml, an MCP servers file, an OpenCode config.
    Config,
    /// Instructions, AGENTS.md, agent prompts, skills, markdown agents, `{file:}` targets.
    Text,
    /// A file the agent works with (an asset, a README shown to the generator).
    Asset,
    /// A recorded cassette (`--agent-cassette`, `--llm-cassette`).
    Cassette,
    /// A JSON file of a run, a dataset or the lab (summary, manifest, verdict, case).
    State,
    /// An append-only log (events.jsonl).
    Log,
}

impl FileKind {
    /// The largest size accepted for this kind, in bytes.
    pub(crate) const fn max_bytes(self) -> u64 {
        match self {
            FileKind::Config => MIB,
            FileKind::Text => 4 * MIB,
            FileKind::Asset => 32 * MIB,
            FileKind::Cassette => 64 * MIB,
            FileKind::State => 64 * MIB,
            FileKind::Log => 256 * MIB,
        }
    }
}

/// Why a file was not read. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum BoundedError {
    #[error("{}: {reason}", path.display())]
    Refused { path: PathBuf, reason: String },
    #[error("{}: cannot read the file: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not UTF-8 text (line {line}, column {column})", path.display())]
    NotUtf8 { path: PathBuf, line: usize, column: usize },
}

impl BoundedError {
    /// The reason without the path, for callers that report the path themselves.
    pub(crate) fn reason(&self) -> String {
        match self {
            BoundedError::Refused { reason, .. } => reason.clone(),
            BoundedError::Io { source, .. } => format!("cannot read the file: {source}"),
            BoundedError::NotUtf8 { line, column, .. } => {
                format!("not UTF-8 text (line {line}, column {column})")
            }
        }
    }

    /// True when the file does not exist (callers that treat a missing file as empty).
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, BoundedError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

impl From<BoundedError> for std::io::Error {
    fn from(e: BoundedError) -> Self {
        match e {
            BoundedError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => source,
            other => std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
        }
    }
}

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

fn refused(path: &Path, reason: String) -> BoundedError {
    BoundedError::Refused {
        path: path.to_path_buf(),
        reason,
    }
}

fn check(path: &Path, meta: &std::fs::Metadata, max: u64) -> Result<(), BoundedError> {
    if !meta.is_file() {
        let what = kind_of(&meta.file_type());
        return Err(refused(
            path,
            format!("is {what}, not a regular file; refusing to read it"),
        ));
    }
    if meta.len() > max {
        return Err(refused(
            path,
            format!("is {} bytes; the limit is {max} bytes", meta.len()),
        ));
    }
    Ok(())
}

/// Opens `path` for reading if it is a regular file, without blocking on a FIFO or device.
pub(crate) fn open_regular(path: &Path) -> Result<std::fs::File, BoundedError> {
    let io = |source| BoundedError::Io {
        path: path.to_path_buf(),
        source,
    };
    check(path, &std::fs::metadata(path).map_err(io)?, u64::MAX)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(io)?;
    check(path, &file.metadata().map_err(io)?, u64::MAX)?;
    Ok(file)
}

/// Reads `path` as bytes if it is a regular file of at most `max` bytes.
pub(crate) fn read_limited(path: &Path, max: u64) -> Result<Vec<u8>, BoundedError> {
    let io = |source| BoundedError::Io {
        path: path.to_path_buf(),
        source,
    };
    check(path, &std::fs::metadata(path).map_err(io)?, max)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    check(path, &meta, max)?;
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(refused(
            path,
            format!("grew past the limit of {max} bytes while being read"),
        ));
    }
    Ok(bytes)
}

/// Reads `path` as bytes, bounded by its kind.
pub(crate) fn read_bounded(path: &Path, kind: FileKind) -> Result<Vec<u8>, BoundedError> {
    read_limited(path, kind.max_bytes())
}

/// Reads `path` as UTF-8 text, bounded by its kind; bad UTF-8 is named by line and column.
pub(crate) fn read_bounded_string(path: &Path, kind: FileKind) -> Result<String, BoundedError> {
    let bytes = read_bounded(path, kind)?;
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = good.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
        BoundedError::NotUtf8 {
            path: path.to_path_buf(),
            line,
            column,
        }
    })
}

/// Like `read_bounded_string`, with a missing file as `None`.
pub(crate) fn read_optional_string(path: &Path, kind: FileKind) -> Result<Option<String>, BoundedError> {
    match read_bounded_string(path, kind) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::test_fifo::mkfifo;

    #[test]
    fn special_files_are_refused_without_blocking_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("summary.json");
        mkfifo(&fifo);
        let e = read_bounded(&fifo, FileKind::State).unwrap_err().to_string();
        assert!(e.contains("summary.json") && e.contains("FIFO"), "{e}");
        let e = read_bounded(Path::new("/dev/zero"), FileKind::Text).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        assert!(
            read_bounded(dir.path(), FileKind::Text)
                .unwrap_err()
                .to_string()
                .contains("folder")
        );
        let sock = dir.path().join("s.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert!(
            read_bounded(&sock, FileKind::Log)
                .unwrap_err()
                .to_string()
                .contains("socket")
        );
    }

    #[test]
    fn each_kind_has_its_bound_and_a_sparse_giant_is_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("AGENTS.md");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(3 << 30).unwrap();
        for kind in [
            FileKind::Config,
            FileKind::Text,
            FileKind::Cassette,
            FileKind::State,
            FileKind::Log,
        ] {
            let e = read_bounded(&big, kind).unwrap_err().to_string();
            assert!(e.contains("AGENTS.md") && e.contains("3221225472 bytes"), "{e}");
        }
        f.set_len(FileKind::Config.max_bytes() + 1).unwrap();
        assert!(read_bounded(&big, FileKind::Config).is_err());
        assert_eq!(read_bounded(&big, FileKind::Text).unwrap().len() as u64, MIB + 1);
    }

    #[test]
    fn text_reports_bad_utf8_by_line_and_column_and_missing_as_none() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.md");
        std::fs::write(&p, b"ok\nab\xffc").unwrap();
        let e = read_bounded_string(&p, FileKind::Text).unwrap_err().to_string();
        assert!(e.contains("line 2, column 3"), "{e}");
        assert!(
            read_optional_string(&dir.path().join("none"), FileKind::State)
                .unwrap()
                .is_none()
        );
        std::fs::write(&p, "fine").unwrap();
        assert_eq!(
            read_optional_string(&p, FileKind::State).unwrap().as_deref(),
            Some("fine")
        );
    }
}
