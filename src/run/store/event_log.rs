//! Writes a case's events to `events.jsonl`, then hands each to the run's other sinks.
//!
//! Lines go to `events.jsonl.partial` as they happen (written per event, so a killed process
//! loses at most the line being written); `finish` renames it to `events.jsonl`. Neither
//! fsyncs: the group commit (`run::trial_committer`, `util::durable::commit_batch`) makes the log
//! durable before verdict.json marks the trial done. Readers skip a torn last line.

use crate::redact::Redactor;
use crate::run::store::run_dir::TrialDir;
use crate::trial::{EVENTS_VERSION, Envelope, RunEvent, Sinks, SuiteEvent};
use std::io::Write;
use std::path::{Path, PathBuf};
/// The jsonl writer of one case, and its door to the other sinks.
pub struct EventLog {
    case: String,
    trial: u32,
    seq: u64,
    partial: PathBuf,
    file: std::fs::File,
    redactor: Redactor,
    sinks: Sinks,
    events: Vec<Envelope>,
}

impl EventLog {
    /// Opens `<dir>/events.jsonl.partial` for a case (trial unstated: see [`EventLog::of_trial`]).
    pub fn create(dir: &Path, case: &str, redactor: Redactor, sinks: Sinks) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let partial = TrialDir::at(dir).events_partial();
        let file = std::fs::File::create(&partial)?;
        Ok(EventLog {
            case: case.to_string(),
            trial: 0,
            seq: 0,
            partial,
            file,
            redactor,
            sinks,
            events: Vec::new(),
        })
    }

    /// Stamps every envelope with the trial number, so live readers tell concurrent trials of
    /// one case apart.
    pub(crate) fn of_trial(mut self, trial: u32) -> Self {
        self.trial = trial;
        self
    }

    /// Records one event: redacted, numbered, written, forwarded. Returns the stored envelope.
    pub fn emit(&mut self, event: RunEvent) -> std::io::Result<&Envelope> {
        let mut value = serde_json::to_value(&event).map_err(std::io::Error::other)?;
        // Typed again only when something was masked; otherwise the event is already clean.
        let event = if self.redactor.redact_value(&mut value) {
            serde_json::from_value(value.clone()).map_err(std::io::Error::other)?
        } else {
            event
        };
        self.seq += 1;
        let env = Envelope {
            v: EVENTS_VERSION,
            seq: self.seq,
            ts: chrono::Utc::now(),
            case: self.case.clone(),
            trial: self.trial,
            event,
        };
        let line = envelope_line(&env, &value)?;
        self.file.write_all(&line)?;
        if !self.sinks.is_empty() {
            self.sinks.send(&SuiteEvent::Case(env.clone()));
        }
        self.events.push(env);
        Ok(self.events.last().expect("just pushed"))
    }

    /// Everything emitted so far (already redacted).
    pub fn events(&self) -> &[Envelope] {
        &self.events
    }

    /// Renames the log to `events.jsonl` (made durable by the trial's commit).
    pub fn finish(self) -> std::io::Result<PathBuf> {
        self.close().finish()
    }

    /// Closes the file and lets go of the events kept in memory; what stays is the partial
    /// log's path, for a trial waiting in the commit queue.
    pub(crate) fn close(self) -> ClosedLog {
        ClosedLog { partial: self.partial }
    }
}

/// A complete event log, closed, still named `events.jsonl.partial`.
pub(crate) struct ClosedLog {
    partial: PathBuf,
}

impl ClosedLog {
    /// Renames the log to `events.jsonl` (made durable by the trial's commit).
    pub(crate) fn finish(self) -> std::io::Result<PathBuf> {
        let done = TrialDir::at(self.partial.parent().unwrap_or(Path::new("."))).events();
        std::fs::rename(&self.partial, &done)?;
        Ok(done)
    }
}

/// The envelope's JSON line from its already-redacted event `value`: the same text as
/// serialising the `Envelope` (its fields, then the event's flattened in), without a second
/// serialisation of the event.
fn envelope_line(env: &Envelope, value: &serde_json::Value) -> std::io::Result<Vec<u8>> {
    fn put<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, key: &[u8], v: &T) -> std::io::Result<()> {
        out.extend_from_slice(key);
        serde_json::to_writer(out, v).map_err(std::io::Error::other)
    }
    let mut line = Vec::with_capacity(256);
    put(&mut line, b"{\"v\":", &env.v)?;
    put(&mut line, b",\"seq\":", &env.seq)?;
    put(&mut line, b",\"ts\":", &env.ts)?;
    put(&mut line, b",\"case\":", &env.case)?;
    put(&mut line, b",\"trial_no\":", &env.trial)?;
    let event = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    match event.split_first() {
        // `{...}`: its fields continue the envelope's object.
        Some((b'{', rest)) if rest.len() > 1 => {
            line.push(b',');
            line.extend_from_slice(rest);
        }
        _ => return Err(std::io::Error::other("an event is not a JSON object")),
    }
    line.push(b'\n');
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::store::events_file::read_events;
    use crate::trial::ChannelSink;
    use std::sync::Arc;

    #[test]
    fn events_are_redacted_numbered_and_survive_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Redactor::new();
        r.add_secret("canary-token-123");
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<crate::trial::Envelope>();
        let sinks = Sinks::none().with(Arc::new(ChannelSink(tx)));
        let mut log = EventLog::create(dir.path(), "case-1", r, sinks).unwrap().of_trial(1);
        log.emit(RunEvent::UserMessage {
            turn: 1,
            text: "hi".into(),
            latency_ms: 3,
        })
        .unwrap();
        log.emit(RunEvent::AgentMessage {
            turn: 1,
            text: "your token is canary-token-123".into(),
            latency_ms: 9,
            tokens: 5,
            cost_usd: 0.0,
        })
        .unwrap();
        assert_eq!(rx.try_recv().unwrap().seq, 1);
        let path = log.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("canary-token-123"));
        // Simulate a crash mid-write of a third line.
        std::fs::write(&path, format!("{text}{{\"v\":1,\"seq\":3")).unwrap();
        let events = read_events(&path).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[1].seq, 2);
    }

    #[test]
    fn a_line_is_the_envelope_as_serde_writes_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = EventLog::create(dir.path(), "case-1", Redactor::new(), Sinks::none()).unwrap();
        log.emit(RunEvent::TurnTiming {
            turn: 2,
            user_ms: 5,
            agent_ms: 70,
            tools_ms: 9,
            start_ms: 0,
        })
        .unwrap();
        log.emit(RunEvent::UserMessage {
            turn: 1,
            text: "quote \" and sk-abcdefGhijklmnopqrstuvwx".into(),
            latency_ms: 0,
        })
        .unwrap();
        let expected: String = log
            .events()
            .iter()
            .map(|e| serde_json::to_string(e).unwrap() + "\n")
            .collect();
        let path = log.finish().unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), expected);
        assert!(!expected.contains("sk-abcdef"));
    }
}
