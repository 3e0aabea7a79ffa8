//! The per-role session log (`sandbox-<role>.log`): what was run, what was denied, which
//! limits were hit. Rewritten atomically on every entry.
//!
//! It never contains an environment value: every line passes through the redactor.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::util::write_atomic;

/// Log format version, written in the first line.
pub const LOG_VERSION: u32 = 1;

/// An append-only, redacting session log shared by a session and its proxy.
#[derive(Debug, Clone)]
pub struct SessionLog {
    path: PathBuf,
    inner: Arc<Mutex<LogInner>>,
}

#[derive(Debug)]
struct LogInner {
    lines: Vec<String>,
    secrets: Vec<String>,
}

impl SessionLog {
    /// A log at `path` that replaces every occurrence of `secrets` with `***`.
    pub fn create(path: &Path, header: &str, secrets: Vec<String>) -> std::io::Result<Self> {
        // Very short values would redact ordinary words; they are still never logged as values.
        let secrets = secrets.into_iter().filter(|s| s.len() >= 4).collect();
        let log = SessionLog {
            path: path.to_path_buf(),
            inner: Arc::new(Mutex::new(LogInner {
                lines: vec![format!("# ghostlab sandbox log version {LOG_VERSION}")],
                secrets,
            })),
        };
        log.write(header)?;
        Ok(log)
    }

    /// Where the log lives on the host.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one timestamped, redacted line and rewrites the file.
    pub fn write(&self, line: &str) -> std::io::Result<()> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let mut text = line.replace('\n', "\\n");
        for s in &inner.secrets {
            text = text.replace(s.as_str(), "***");
        }
        let ts = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ");
        inner.lines.push(format!("{ts} {text}"));
        let mut body = inner.lines.join("\n");
        body.push('\n');
        write_atomic(&self.path, body.as_bytes())
    }

    /// Best-effort append: a log that cannot be written must not abort the sandboxed work,
    /// but the failure is reported through tracing.
    pub fn note(&self, line: &str) {
        if let Err(e) = self.write(line) {
            tracing::warn!("cannot write sandbox log {}: {e}", self.path.display());
        }
    }

    /// The current log text.
    pub fn text(&self) -> String {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.lines.join("\n")
    }
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
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("# ghostlab sandbox log version 1"));
        assert!(text.contains("ran echo ***"));
        assert!(!text.contains("hunter2-secret"));
    }
}
