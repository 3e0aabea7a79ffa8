//! The transcript of the one trial the dashboard shows (selected, pinned or followed): a ring
//! of its newest events. Every other trial keeps only its row's summary; its events stay in its
//! events.jsonl, from where a newly selected trial's earlier events are read back
//! ([`FocusTranscript::fill`]). So the dashboard's memory follows the rows, not the run's size.

use std::collections::VecDeque;
use std::path::PathBuf;

use super::shared_error::Shared;
use crate::trial::{Envelope, RunEvent};

/// Events kept for the focused trial's transcript.
pub const TRANSCRIPT_RING: usize = 200;

/// How much of the focused trial's transcript the ring holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Coverage {
    /// Every event since the trial's first (it was focused from its start, or read back).
    Whole,
    /// Focused mid-trial; its earlier events are being read back from events.jsonl.
    Loading { earlier: usize },
    /// Focused mid-trial and its earlier events could not be read (not on disk yet, or no run
    /// folder known): only what arrived since it was selected.
    SinceSelected { earlier: usize, why: TranscriptError },
}

/// Why a trial's earlier events could not be read back for its transcript.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TranscriptError {
    /// The run has not announced its folder yet.
    #[error("the run folder is not known yet")]
    NoRunFolder,
    /// The trial just started: its log is not written yet.
    #[error("not on disk yet")]
    NotOnDisk,
    /// The log is there but does not read (its message names the file and line).
    #[error("{source}")]
    Unreadable {
        /// The trial's folder.
        trial: PathBuf,
        #[source]
        source: Shared<std::io::Error>,
    },
}

/// The focused trial's ring.
#[derive(Debug, Clone, PartialEq)]
pub struct FocusTranscript {
    /// The row it belongs to; `None` before the first trial.
    pub(crate) row: Option<usize>,
    pub events: VecDeque<Envelope>,
    /// Events that fell out of the ring (they stay in events.jsonl).
    pub(crate) dropped: usize,
    pub(crate) coverage: Coverage,
}

impl Default for FocusTranscript {
    fn default() -> Self {
        FocusTranscript {
            row: None,
            events: VecDeque::new(),
            dropped: 0,
            coverage: Coverage::Whole,
        }
    }
}

/// Whether an event belongs in a transcript (model calls are accounting, not conversation).
pub(crate) fn shown(e: &RunEvent) -> bool {
    !matches!(e, RunEvent::ModelCall { .. })
}

impl FocusTranscript {
    /// Moves the focus to `row`, which has already had `seen` transcript events.
    pub(crate) fn refocus(&mut self, row: usize, seen: usize) {
        if self.row == Some(row) {
            return;
        }
        *self = FocusTranscript {
            row: Some(row),
            coverage: if seen == 0 {
                Coverage::Whole
            } else {
                Coverage::Loading { earlier: seen }
            },
            ..FocusTranscript::default()
        };
    }

    /// Appends a live event of the focused trial.
    pub(crate) fn push(&mut self, env: Envelope) {
        if self.events.len() == TRANSCRIPT_RING {
            self.events.pop_front();
            self.dropped += 1;
        }
        self.events.push_back(env);
    }

    /// True while the focused trial's earlier events are wanted from disk.
    pub(crate) fn wants_earlier(&self) -> bool {
        matches!(self.coverage, Coverage::Loading { .. })
    }

    /// Puts the trial's stored events in front of what arrived live since it was focused
    /// (those with a higher `seq` than the stored ones), or records why they are missing.
    pub(crate) fn fill(&mut self, stored: Result<Vec<Envelope>, TranscriptError>) {
        let Coverage::Loading { earlier } = self.coverage else {
            return;
        };
        let stored = match stored {
            Ok(s) => s,
            Err(why) => {
                self.coverage = Coverage::SinceSelected { earlier, why };
                return;
            }
        };
        let last_stored = stored.last().map(|e| e.seq).unwrap_or(0);
        let live: Vec<Envelope> = self.events.drain(..).filter(|e| e.seq > last_stored).collect();
        let all: Vec<Envelope> = stored.into_iter().filter(|e| shown(&e.event)).chain(live).collect();
        self.dropped = all.len().saturating_sub(TRANSCRIPT_RING);
        self.events = all.into_iter().skip(self.dropped).collect();
        self.coverage = Coverage::Whole;
    }
}
