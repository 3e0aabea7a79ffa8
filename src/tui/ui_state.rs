//! State that only the screen holds (editor, hint prompt, scroll, cursor). A leaf: the key map,
//! the review screens and the frame drawer all read it.

use crate::lab::{Lab, Phase};
use ratatui_textarea::TextArea;

/// State that only the screen needs: widgets being typed into and scroll positions.
#[derive(Default)]
pub struct Ui {
    /// The answer editor while the lab is in `Editing`.
    pub editor: Option<TextArea<'static>>,
    /// The regenerate-hint prompt, when open.
    pub hint: Option<TextArea<'static>>,
    /// Rows scrolled in the proposal.
    pub proposal_scroll: u16,
    /// The selected item of a review list (personas, scenarios in tree order).
    pub cursor: usize,
    /// What `o` did on the results screen.
    pub run_notice: Option<String>,
}

impl Ui {
    /// Keeps the editor in step with the lab: opened on entering `Editing`, dropped after.
    pub fn sync(&mut self, lab: &Lab) {
        match &lab.phase {
            Phase::Editing { draft, .. } => {
                if self.editor.is_none() {
                    let lines = draft.lines().map(str::to_string).collect();
                    self.editor = Some(TextArea::new(lines));
                }
            }
            _ => self.editor = None,
        }
        if !matches!(lab.phase, Phase::Deciding { .. } | Phase::Failed { .. }) {
            self.hint = None;
        }
    }
}
