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
    /// Where the last frame put the run screen's panes (scroll limits, rows for clicks).
    pub run_geometry: std::cell::Cell<super::dashboard::RunGeometry>,
    /// The largest proposal scroll the last frame allowed.
    pub proposal_max: std::cell::Cell<u16>,
    /// The `?` overlay is open.
    pub help: bool,
    /// What the last action did, for the footer.
    pub feedback: Option<String>,
    /// A bulk curation waiting for `y` (it says how many it changes).
    pub bulk: Option<Bulk>,
    /// The step list's width was toggled with `s`: `Some(shown)` overrides the automatic choice.
    pub sidebar: Option<bool>,
    /// Whether the last frame chose, by its width, to show the step list in full.
    pub sidebar_auto: std::cell::Cell<bool>,
    /// Where the last frame drew the step list (for clicks).
    pub steps_area: std::cell::Cell<ratatui::layout::Rect>,
    /// The `/` search of a review list, while open (`list_search`).
    pub search: Option<ListSearch>,
}

/// A search in a review list: the query, and whether it is still being typed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListSearch {
    pub(crate) query: String,
    pub(crate) typing: bool,
    /// The step whose list it searches; another step's screen drops it.
    pub(crate) step: Option<crate::lab::StepId>,
}

/// A bulk approve or reject, asked before it happens.
#[derive(Debug, Clone, PartialEq)]
pub struct Bulk {
    pub(crate) ids: Vec<String>,
    pub(crate) status: crate::generate::CaseStatus,
    /// `approve 15 scenarios of hurried-maintainer`.
    pub(crate) what: String,
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
        if !matches!(lab.phase, Phase::Deciding { .. })
            || self.search.as_ref().is_some_and(|s| s.step != Some(lab.step))
        {
            self.search = None;
        }
    }
}
