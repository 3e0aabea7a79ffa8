//! One stream of suite events, many readers (nextest's reporter shape): the run emits
//! `SuiteEvent`s once and every `EventSink` in a `Sinks` set sees each of them in order.
//!
//! Where events go: each case's `events.jsonl` writer (`run::EventLog`) writes an event first
//! and then hands it to the sinks; the terminal printer (`cli::test`) and the lab
//! (`ChannelSink`, into the wizard's one event stream) are sinks. summary.json and junit.xml are
//! aggregated from the trials' verdict files (`run::suite::write_outcome`, also used by merge
//! and rescore) just before `RunFinished`. A sink never fails the run.

use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

use super::events::Envelope;
use super::verdict::Verdict;

/// Something that happened to the whole run, or one event of one of its cases.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SuiteEvent {
    /// Before the first case starts.
    RunStarted {
        run_id: String,
        /// Case ids, in order.
        cases: Vec<String>,
        /// Trials per case.
        repeat: u32,
    },
    /// One event of one case, as written to its events.jsonl (already redacted).
    Case(Envelope),
    /// After the last case finished and the summary was written.
    RunFinished {
        run_id: String,
        /// Verdict of every trial, sorted by case then trial.
        verdicts: Vec<Verdict>,
        gates_met: bool,
    },
}

/// A reader of the suite's events.
pub(crate) trait EventSink: Send + Sync {
    fn handle(&self, event: &SuiteEvent);
}

/// The set of sinks a run fans its events out to; cheap to clone.
#[derive(Clone, Default)]
pub struct Sinks(Vec<Arc<dyn EventSink>>);

impl Sinks {
    /// No readers besides the files themselves.
    pub fn none() -> Self {
        Sinks::default()
    }

    pub(crate) fn with(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.0.push(sink);
        self
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Hands `event` to every sink, in the order they were added.
    pub(crate) fn send(&self, event: &SuiteEvent) {
        for sink in &self.0 {
            sink.handle(event);
        }
    }
}

impl std::fmt::Debug for Sinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sinks({})", self.0.len())
    }
}

/// Sends each case event, typed, into a channel: the lab's one event stream (`T` is the lab's
/// `Event`) or a plain `Envelope` channel. A closed receiver (the pane went away) is not an
/// error for the run.
pub(crate) struct ChannelSink<T>(pub(crate) UnboundedSender<T>);

impl<T: From<Envelope> + Send> EventSink for ChannelSink<T> {
    fn handle(&self, event: &SuiteEvent) {
        if let SuiteEvent::Case(envelope) = event {
            let _ = self.0.send(T::from(envelope.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Record(Mutex<Vec<String>>, &'static str);

    impl EventSink for Record {
        fn handle(&self, event: &SuiteEvent) {
            let kind = match event {
                SuiteEvent::RunStarted { .. } => "start",
                SuiteEvent::Case(_) => "case",
                SuiteEvent::RunFinished { .. } => "finish",
            };
            self.0.lock().unwrap().push(format!("{}:{kind}", self.1));
        }
    }

    #[test]
    fn every_sink_sees_every_event_in_order() {
        let a = Arc::new(Record(Mutex::default(), "a"));
        let b = Arc::new(Record(Mutex::default(), "b"));
        let sinks = Sinks::none().with(a.clone()).with(b.clone());
        sinks.send(&SuiteEvent::RunStarted {
            run_id: "r".into(),
            cases: vec!["c".into()],
            repeat: 1,
        });
        sinks.send(&SuiteEvent::RunFinished {
            run_id: "r".into(),
            verdicts: vec![Verdict::Fail],
            gates_met: false,
        });
        assert_eq!(*a.0.lock().unwrap(), ["a:start", "a:finish"]);
        assert_eq!(*b.0.lock().unwrap(), ["b:start", "b:finish"]);
    }
}
