//! Deciding on contract and verdict findings from the lab's results screen: pick a finding, `a` accept or
//! `w` waive, type why, Enter. UI-free like the rest of the lab: the wizard asks the driver to
//! read the findings (`Effect::LoadFindings`) and, for each [`DecisionRequest`] this hands back,
//! to record it (`Effect::DecideFinding`), through the same code as `ghostlab findings`
//! (`mcp::contract::decide`), into the same `<job>.decisions.json`.
use super::findings_error::{FindingsError, FindingsProblem};
use super::shared_error::Shared;
use crate::mcp::contract::decide::{FindingRow, describe};
use crate::mcp::contract::decisions::{Standing, Verdict};

/// One finding as the results screen lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingChoice {
    pub id: String,
    pub severity: String,
    pub message: String,
    /// `open`, `waived by ana (why)`, `accepted by ana, EXPIRED: …`.
    pub standing: String,
    /// Whether the gates count it (no decision, or an expired one).
    pub counts: bool,
}

impl From<&FindingRow> for FindingChoice {
    fn from(r: &FindingRow) -> Self {
        FindingChoice {
            id: r.id.clone(),
            severity: format!("{:?}", r.finding.severity).to_lowercase(),
            message: r.finding.message.clone(),
            standing: describe(&r.standing),
            counts: !matches!(r.standing, Standing::Decided(_)),
        }
    }
}

/// A decision to record.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DecisionRequest {
    pub(crate) finding: String,
    pub(crate) verdict: Verdict,
    pub(crate) reason: String,
}

/// The decision being typed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DecisionPrompt {
    pub(crate) finding: String,
    pub(crate) verdict: Verdict,
    pub(crate) reason: String,
}

/// What happened to the findings list.
#[derive(Debug, Clone, PartialEq)]
pub enum FindingsEvent {
    /// The job's findings were read (or why not).
    Loaded(Result<Vec<FindingChoice>, Shared<FindingsError>>),
    /// A decision was recorded (the list read again) or refused.
    Decided(Result<Vec<FindingChoice>, Shared<FindingsError>>),
    Up,
    Down,
    /// Start deciding on the selected finding.
    Decide(Verdict),
    Type(char),
    Backspace,
    /// Enter: record the decision being typed.
    Submit,
    /// Esc: drop the decision being typed.
    Cancel,
}

/// The findings part of the results screen.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FindingsReview {
    /// `None` until the driver has read them.
    pub rows: Option<Vec<FindingChoice>>,
    pub(crate) selected: usize,
    pub(crate) prompt: Option<DecisionPrompt>,
    /// A decision is being written.
    pub(crate) pending: bool,
    /// The last thing to tell the person (a decision recorded, or why not).
    pub(crate) notice: Option<Result<String, FindingsProblem>>,
    /// The decision being written, said back once it is recorded.
    last_submitted: Option<String>,
}

impl FindingsReview {
    /// Whether keys go to the reason being typed.
    pub fn typing(&self) -> bool {
        self.prompt.is_some()
    }

    /// Applies one event; returns the decision to record, if it completes one.
    pub(crate) fn handle(&mut self, ev: FindingsEvent) -> Option<DecisionRequest> {
        match ev {
            FindingsEvent::Loaded(rows) => self.fill(rows, None),
            FindingsEvent::Decided(rows) => {
                self.pending = false;
                let done = self.last_submitted.take();
                self.fill(rows, done)
            }
            FindingsEvent::Up => {
                self.selected = self.selected.saturating_sub(1);
                None
            }
            FindingsEvent::Down => {
                let last = self.rows.as_ref().map_or(0, |r| r.len().saturating_sub(1));
                self.selected = (self.selected + 1).min(last);
                None
            }
            FindingsEvent::Decide(verdict) => {
                if let Some(row) = self.rows.as_ref().and_then(|r| r.get(self.selected))
                    && !self.pending
                {
                    self.prompt = Some(DecisionPrompt {
                        finding: row.id.clone(),
                        verdict,
                        reason: String::new(),
                    });
                    self.notice = None;
                }
                None
            }
            FindingsEvent::Type(c) => {
                if let Some(p) = &mut self.prompt
                    && !c.is_control()
                {
                    p.reason.push(c);
                }
                None
            }
            FindingsEvent::Backspace => {
                if let Some(p) = &mut self.prompt {
                    p.reason.pop();
                }
                None
            }
            FindingsEvent::Cancel => {
                self.prompt = None;
                None
            }
            FindingsEvent::Submit => self.submit(),
        }
    }

    fn submit(&mut self) -> Option<DecisionRequest> {
        let p = self.prompt.take()?;
        if p.reason.trim().is_empty() {
            self.notice = Some(Err(FindingsProblem::NoReason));
            self.prompt = Some(p);
            return None;
        }
        self.pending = true;
        let word = match p.verdict {
            Verdict::Accepted => "accepted",
            Verdict::Waived => "waived",
        };
        self.last_submitted = Some(format!("{word} {}: {}", p.finding, p.reason.trim()));
        Some(DecisionRequest {
            finding: p.finding,
            verdict: p.verdict,
            reason: p.reason.trim().to_string(),
        })
    }

    fn fill(
        &mut self,
        rows: Result<Vec<FindingChoice>, Shared<FindingsError>>,
        done: Option<String>,
    ) -> Option<DecisionRequest> {
        match rows {
            Ok(rows) => {
                self.selected = self.selected.min(rows.len().saturating_sub(1));
                self.rows = Some(rows);
                if let Some(done) = done {
                    self.notice = Some(Ok(done));
                }
            }
            Err(e) => self.notice = Some(Err(e.into())),
        }
        None
    }
}

#[cfg(test)]
#[path = "findings_review_tests.rs"]
mod tests;
