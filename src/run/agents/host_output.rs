//! The agent host's own output: every turn command's stdout and stderr, kept per trial as
//! `agent-host.log`, so a turn Ghostlab could not read (or a host that printed a warning) can
//! be understood after the run without re-running it.
//!
//! Collected through a task-local scope around one case's conversation: every CLI runner's turn
//! goes through `turn_stream::run_turn_command`, which records here when a scope is open, so no
//! runner has to carry a log of its own. Bounded per stream and per trial; redacted when written.

use std::future::Future;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::redact::Redactor;
use crate::run::environment::spawn::Finished;

/// Most bytes kept of one stream of one turn (its tail: errors come last).
const KEEP_PER_STREAM: usize = 64 << 10;
/// Most bytes kept for a whole trial; later turns are counted, not kept.
const KEEP_PER_TRIAL: usize = 1 << 20;
/// The log's first line, naming its format and version.
const LOG_HEADER: &str = "# ghostlab agent-host log v1";

tokio::task_local! {
    static CAPTURE: Arc<Mutex<HostOutput>>;
}

/// What the turns of one case printed.
#[derive(Debug, Default)]
pub(crate) struct HostOutput {
    text: String,
    turns: u32,
    dropped_turns: u32,
}

impl HostOutput {
    fn add(&mut self, program: &str, done: &Finished) {
        self.turns += 1;
        if self.text.len() >= KEEP_PER_TRIAL {
            self.dropped_turns += 1;
            return;
        }
        let status = match (done.timed_out, done.code) {
            (true, _) => "timed out".to_string(),
            (false, Some(c)) => format!("exit {c}"),
            (false, None) => "killed by a signal".to_string(),
        };
        self.text.push_str(&format!(
            "=== turn command {} ({program}): {status}, {} ms\n",
            self.turns,
            done.elapsed.as_millis()
        ));
        for (name, stream) in [("stdout", &done.stdout), ("stderr", &done.stderr)] {
            let (kept, cut) = tail(stream, KEEP_PER_STREAM);
            let cut = if cut > 0 {
                format!(", first {cut} bytes not kept")
            } else {
                String::new()
            };
            self.text
                .push_str(&format!("--- {name} ({} bytes{cut})\n", stream.len()));
            self.text.push_str(kept);
            if !kept.is_empty() && !kept.ends_with('\n') {
                self.text.push('\n');
            }
        }
    }

    /// The log's text; empty when no turn command ran.
    pub(crate) fn text(&self) -> String {
        if self.turns == 0 {
            return String::new();
        }
        let dropped = if self.dropped_turns == 0 {
            String::new()
        } else {
            format!(
                "=== {} later turn command(s) not kept (the log's bound is {} bytes)\n",
                self.dropped_turns, KEEP_PER_TRIAL
            )
        };
        format!("{LOG_HEADER}\n{}{dropped}", self.text)
    }
}

/// The last `limit` bytes of `s`, cut at a character boundary, and how many bytes were cut.
fn tail(s: &str, limit: usize) -> (&str, usize) {
    if s.len() <= limit {
        return (s, 0);
    }
    let mut start = s.len() - limit;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    (&s[start..], start)
}

/// Records one finished turn command into the open scope, if any.
pub(crate) fn record(program: &str, done: &Finished) {
    let _ = CAPTURE.try_with(|c| {
        if let Ok(mut out) = c.lock() {
            out.add(program, done);
        }
    });
}

/// Runs `work` with a capture scope open, returning its output and what was captured.
pub(crate) async fn capture<F: Future>(work: F) -> (F::Output, HostOutput) {
    let cell = Arc::new(Mutex::new(HostOutput::default()));
    let out = CAPTURE.scope(cell.clone(), work).await;
    let captured = std::mem::take(&mut *cell.lock().unwrap_or_else(|p| p.into_inner()));
    (out, captured)
}

/// Writes the captured output beside the trial's events (redacted, atomically); nothing when
/// no turn command ran.
pub(crate) fn write(path: &Path, output: &HostOutput, redactor: &Redactor) -> std::io::Result<()> {
    let text = output.text();
    if text.is_empty() {
        return Ok(());
    }
    crate::util::durable::write_replace(path, redactor.redact(&text).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn done(stdout: &str, stderr: &str, code: Option<i32>) -> Finished {
        Finished {
            code,
            stdout: stdout.into(),
            stderr: stderr.into(),
            timed_out: false,
            elapsed: Duration::from_millis(12),
        }
    }

    #[tokio::test]
    async fn turns_inside_a_scope_are_kept_and_outside_are_not() {
        record("opencode", &done("before", "", Some(0)));
        let ((), out) = capture(async {
            record(
                "opencode",
                &done("{\"type\":\"step_start\"}", "permission requested", Some(0)),
            );
            record("opencode", &done("", "boom", Some(1)));
        })
        .await;
        let text = out.text();
        assert!(text.starts_with(LOG_HEADER), "{text}");
        assert!(!text.contains("before"), "{text}");
        assert!(text.contains("=== turn command 1 (opencode): exit 0"), "{text}");
        assert!(text.contains("permission requested") && text.contains("exit 1") && text.contains("boom"));
    }

    #[tokio::test]
    async fn a_flood_keeps_tails_and_counts_what_it_dropped() {
        let big = format!("{}END", "x".repeat(3 * KEEP_PER_STREAM));
        let ((), out) = capture(async {
            for _ in 0..40 {
                record("agent", &done(&big, "é".repeat(KEEP_PER_STREAM).as_str(), None));
            }
        })
        .await;
        let text = out.text();
        assert!(text.len() < KEEP_PER_TRIAL + 4 * KEEP_PER_STREAM, "{}", text.len());
        let cut = big.len() - KEEP_PER_STREAM;
        assert!(
            text.contains("END") && text.contains(&format!("first {cut} bytes not kept")),
            "tail or count lost"
        );
        assert!(text.contains("killed by a signal"));
        assert!(
            text.contains("later turn command(s) not kept"),
            "no count of dropped turns"
        );
    }

    #[test]
    fn the_written_log_is_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = HostOutput::default();
        out.add(
            "agent",
            &done("token sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "", Some(0)),
        );
        let path = dir.path().join("agent-host.log");
        write(&path, &out, &Redactor::new()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("AbCdEfGhIjKlMnOpQrStUvWx"), "{text}");
        // Nothing ran: no file.
        let none = dir.path().join("none.log");
        write(&none, &HostOutput::default(), &Redactor::new()).unwrap();
        assert!(!none.exists());
    }
}
