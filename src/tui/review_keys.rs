//! Keys of the review screens (steps 9 and 10): move the cursor, add, edit, drop, regenerate
//! one or all, and curate scenarios. Keys it does not know fall through to the common map.

use crossterm::event::{KeyCode, KeyEvent};

use super::intent::Intent;
use super::ui_state::Ui;
use crate::generate::CaseStatus;
use crate::lab::review::{ReviewEvent, item_id, items};
use crate::lab::{Event, Lab, Phase, StepId};

/// The items of the set under review, in cursor order; `None` when the current screen is not a
/// review list.
pub fn review_items(lab: &Lab) -> Option<Vec<serde_json::Value>> {
    let Phase::Deciding {
        proposal,
        confirm: None,
        ..
    } = &lab.phase
    else {
        return None;
    };
    let list = items(lab.step, &proposal.text)?;
    Some(match lab.step {
        StepId::Scenarios => super::scenarios::tree_order(&list)
            .into_iter()
            .map(|i| list[i].clone())
            .collect(),
        _ => list,
    })
}

/// The id of the item under the cursor.
pub fn selected_id(lab: &Lab, ui: &Ui) -> Option<String> {
    let list = review_items(lab)?;
    list.get(ui.cursor.min(list.len().saturating_sub(1))).map(item_id)
}

/// Maps a key on a review screen; `None` lets the common key map handle it.
pub fn on_key(key: KeyEvent, lab: &Lab, ui: &mut Ui) -> Option<Intent> {
    let list = review_items(lab)?;
    let selected = list.get(ui.cursor.min(list.len().saturating_sub(1))).map(item_id);
    let review = |e: ReviewEvent| Some(Intent::Lab(Event::Review(e)));
    let on_selected = |make: fn(String) -> ReviewEvent| match &selected {
        Some(id) => Some(Intent::Lab(Event::Review(make(id.clone())))),
        None => Some(Intent::None),
    };
    let curate = |status: CaseStatus| match &selected {
        Some(id) if lab.step == StepId::Scenarios => Some(Intent::Lab(Event::Review(ReviewEvent::Curate {
            id: id.clone(),
            status,
        }))),
        _ => None,
    };
    match key.code {
        KeyCode::Down | KeyCode::Char('j') => {
            ui.cursor = (ui.cursor + 1).min(list.len().saturating_sub(1));
            ui.proposal_scroll = 0;
            Some(Intent::Ui)
        }
        KeyCode::Up | KeyCode::Char('k') => {
            ui.cursor = ui.cursor.min(list.len().saturating_sub(1)).saturating_sub(1);
            ui.proposal_scroll = 0;
            Some(Intent::Ui)
        }
        KeyCode::PageDown => {
            ui.proposal_scroll = ui.proposal_scroll.saturating_add(5);
            Some(Intent::Ui)
        }
        KeyCode::PageUp => {
            ui.proposal_scroll = ui.proposal_scroll.saturating_sub(5);
            Some(Intent::Ui)
        }
        KeyCode::Char('a') => review(ReviewEvent::Add),
        KeyCode::Char('e') => on_selected(ReviewEvent::EditItem),
        KeyCode::Char('d') => on_selected(ReviewEvent::Drop),
        KeyCode::Char('r') => on_selected(ReviewEvent::RegenerateItem),
        KeyCode::Char('E') => Some(Intent::Lab(Event::Edit)),
        KeyCode::Char('R') => Some(Intent::Lab(Event::Regenerate { hint: None })),
        KeyCode::Char('y') => curate(CaseStatus::Approved),
        KeyCode::Char('n') => curate(CaseStatus::Rejected),
        KeyCode::Char('x') => curate(CaseStatus::NeedsEdit),
        KeyCode::Char('u') => curate(CaseStatus::Pending),
        _ => None,
    }
}

/// The key hints of a review screen.
pub fn hints(lab: &Lab) -> Option<String> {
    review_items(lab)?;
    Some(match lab.step {
        StepId::Scenarios => {
            "Enter accept · ↑↓ move · y/n/x/u approve/reject/needs-edit/pending · a add · e edit · d drop · \
             r regen one · R regen all · h hint · E edit all · PgUp/Dn detail"
        }
        _ => "Enter accept · ↑↓ move · a add · e edit · d drop · r regen one · R regen all · h hint · E edit all · PgUp/Dn detail",
    }
    .to_string())
}
