//! Reads a trial's `events.jsonl` back (the writer is `event_log`). A leaf: the paths of
//! `run_dir` and the writer both use it, so neither needs the other to read.

use crate::trial::Envelope;
use std::path::Path;

/// Reads an events file, skipping a torn final line (from a crash) but failing on a bad line
/// elsewhere.
pub fn read_events(path: &Path) -> std::io::Result<Vec<Envelope>> {
    let text = crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::Log)?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<Envelope>(line) {
            Ok(e) => out.push(e),
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => break,
            Err(e) => {
                return Err(std::io::Error::other(format!(
                    "{}: line {}: {e}",
                    path.display(),
                    i + 1
                )));
            }
        }
    }
    Ok(out)
}
