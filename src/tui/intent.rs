//! What a key press on the wizard asks for. A leaf: the key map and the review keys answer with it.

use crate::lab::Event;

/// What a key press asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    Lab(Event),
    /// Handled inside the UI state (typing, scrolling, opening the hint prompt).
    Ui,
    /// Leave after the run finished (nothing is left to save).
    Exit,
    /// `o` on the results: open the HTML report.
    OpenReport,
    None,
}
