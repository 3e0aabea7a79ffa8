//! The per-role session log (`sandbox-<role>-<session>.log`): what was run, what was denied, which
//! limits were hit.
//!
//! Durability: the log is diagnostic. Each burst of lines replaces the file through a temporary
//! file and a rename without an fsync, so a reader never sees a torn file; [`SessionLog::sync`]
//! (called once when the session is deleted) makes it durable. A machine crash mid-session can
//! lose the lines since the last sync or leave the previous version; it never leaves a torn one.
//!
//! It never contains an environment value: every line passes through the redactor.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use std::io::Write;

/// Log format version, written in the first line.
pub(crate) const LOG_VERSION: u32 = 1;
/// How long `flush` waits for the writer before giving up.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(10);
/// A longer line is cut: what the sandbox asks for (a host name, a command) can be any size.
pub(crate) const MAX_LINE: usize = 2048;
/// The log keeps at most this many bytes of lines; later lines are counted, not kept. The
/// sandbox can make lines (refused requests) as fast as it likes, and each burst rewrites the
/// file.
pub(crate) const MAX_LOG_BYTES: usize = 4 << 20;

/// An append-only, redacting session log shared by a session and its proxy.
///
/// Lines are kept in memory and the file is rewritten atomically by a writer thread, so a
/// command never waits for an fsync; `flush` waits until the file holds every line.
#[derive(Debug, Clone)]
pub(crate) struct SessionLog {
    path: PathBuf,
    shared: Arc<(Mutex<LogInner>, Condvar)>,
    wake: Sender<()>,
}

#[derive(Debug)]
struct LogInner {
    lines: Vec<String>,
    secrets: Vec<String>,
    /// How many lines the file on disk holds.
    written: usize,
    /// Bytes of `lines`.
    bytes: usize,
    /// Lines not kept past [`MAX_LOG_BYTES`].
    dropped: u64,
    /// The last write error, reported by `flush`.
    error: Option<String>,
}

impl SessionLog {
    /// A log at `path` that replaces every occurrence of `secrets` with `***`.
    pub(crate) fn create(path: &Path, header: &str, secrets: Vec<String>) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // Very short values would redact ordinary words; they are still never logged as values.
        let secrets = secrets.into_iter().filter(|s| s.len() >= 4).collect();
        let shared = Arc::new((
            Mutex::new(LogInner {
                lines: vec![format!("# ghostlab sandbox log version {LOG_VERSION}")],
                secrets,
                written: 0,
                bytes: 0,
                dropped: 0,
                error: None,
            }),
            Condvar::new(),
        ));
        let (wake, rx) = channel();
        let (p, sh) = (path.to_path_buf(), shared.clone());
        std::thread::Builder::new()
            .name("ghostlab-sandbox-log".into())
            .spawn(move || writer(p, sh, rx))?;
        let log = SessionLog {
            path: path.to_path_buf(),
            shared,
            wake,
        };
        log.write(header)?;
        Ok(log)
    }

    /// Where the log lives on the host.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one timestamped, redacted line; the writer thread persists it.
    pub(crate) fn write(&self, line: &str) -> std::io::Result<()> {
        let mut inner = self.shared.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut text = line.replace('\n', "\\n");
        for s in &inner.secrets {
            text = text.replace(s.as_str(), "***");
        }
        if text.len() > MAX_LINE {
            let mut end = MAX_LINE;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text = format!("{}… ({} bytes cut)", &text[..end], text.len() - end);
        }
        let ts = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ");
        let line = format!("{ts} {text}");
        if inner.bytes + line.len() > MAX_LOG_BYTES {
            inner.dropped += 1;
            return Ok(());
        }
        inner.bytes += line.len() + 1;
        inner.lines.push(line);
        drop(inner);
        self.wake
            .send(())
            .map_err(|_| std::io::Error::other("the sandbox log writer stopped"))
    }

    /// Best-effort append: a log that cannot be written must not abort the sandboxed work,
    /// but the failure is reported through tracing.
    pub(crate) fn note(&self, line: &str) {
        if let Err(e) = self.write(line) {
            tracing::warn!("cannot write sandbox log {}: {e}", self.path.display());
        }
    }

    /// Waits until the file holds every line written so far.
    pub(crate) fn flush(&self) -> std::io::Result<()> {
        let (lock, cv) = &*self.shared;
        let inner = lock.lock().unwrap_or_else(|p| p.into_inner());
        let (inner, res) = cv
            .wait_timeout_while(inner, FLUSH_TIMEOUT, |i| i.written < i.lines.len() && i.error.is_none())
            .unwrap_or_else(|p| p.into_inner());
        if let Some(e) = &inner.error {
            return Err(std::io::Error::other(e.clone()));
        }
        if res.timed_out() {
            return Err(std::io::Error::other("timed out writing the sandbox log"));
        }
        Ok(())
    }

    /// Waits for every line like [`SessionLog::flush`], then fsyncs the file and its folder:
    /// the log's one sync, at session end.
    pub(crate) fn sync(&self) -> std::io::Result<()> {
        self.flush()?;
        std::fs::File::open(&self.path)?.sync_all()?;
        if let Some(dir) = self.path.parent() {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    }

    /// The current log text.
    pub(crate) fn text(&self) -> String {
        let inner = self.shared.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut text = inner.lines.join("\n");
        if inner.dropped > 0 {
            text.push_str(&format!("\n# {} more lines not kept (the log's bound)", inner.dropped));
        }
        text
    }
}

/// Rewrites the file whenever new lines arrive, coalescing bursts into one write; exits when
/// every handle is gone, after a final write.
fn writer(path: PathBuf, shared: Arc<(Mutex<LogInner>, Condvar)>, rx: Receiver<()>) {
    while rx.recv().is_ok() {
        while rx.try_recv().is_ok() {}
        let (lock, cv) = &*shared;
        let (body, count) = {
            let inner = lock.lock().unwrap_or_else(|p| p.into_inner());
            let mut body = inner.lines.join("\n");
            body.push('\n');
            if inner.dropped > 0 {
                body.push_str(&format!("# {} more lines not kept (the log's bound)\n", inner.dropped));
            }
            (body, inner.lines.len())
        };
        let res = replace_unsynced(&path, body.as_bytes());
        let mut inner = lock.lock().unwrap_or_else(|p| p.into_inner());
        match res {
            Ok(()) => inner.written = inner.written.max(count),
            Err(e) => inner.error = Some(format!("{}: {e}", path.display())),
        }
        cv.notify_all();
    }
}

/// Replaces `path` with `body` through a temporary file and a rename, without fsync: readers
/// see the old or the new content, never a torn one; durability is the caller's business.
pub(super) fn replace_unsynced(path: &Path, body: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.writing"));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(body)?;
    drop(f);
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_and_versions() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sandbox-agent.log");
        let log = SessionLog::create(&p, "session start", vec!["hunter2-secret".into()]).unwrap();
        log.write("ran echo hunter2-secret").unwrap();
        log.flush().unwrap();
        log.sync().unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("# ghostlab sandbox log version 1"));
        assert!(text.contains("ran echo ***"));
        assert!(!text.contains("hunter2-secret"));
    }

    #[test]
    fn a_flood_of_lines_and_a_huge_line_stay_within_the_bounds_and_say_so() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sandbox-agent.log");
        let log = SessionLog::create(&p, "session start", vec!["hunter2-secret".into()]).unwrap();
        // A secret that straddles the cut is still redacted: redaction comes first.
        let huge = format!("{}hunter2-secret{}", "h".repeat(MAX_LINE - 5), "x".repeat(16 << 10));
        log.write(&format!("egress DENIED CONNECT {huge}:1")).unwrap();
        let line = "y".repeat(1000);
        for _ in 0..(MAX_LOG_BYTES / 1000 + 50) {
            log.write(&line).unwrap();
        }
        log.flush().unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.len() < MAX_LOG_BYTES + 4096, "{} bytes", text.len());
        assert!(!text.contains("hunter2"), "the secret's start leaked");
        assert!(text.contains("bytes cut)"));
        assert!(text.lines().all(|l| l.len() < MAX_LINE + 100));
        let last = text.lines().last().unwrap();
        assert!(
            last.starts_with("# ") && last.ends_with("more lines not kept (the log's bound)"),
            "{last}"
        );
        assert_eq!(log.text().lines().last().unwrap(), last);
    }
}
