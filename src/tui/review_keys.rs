//! Keys of the review screens (steps 9 and 10): move the cursor, add, edit, drop, regenerate
//! one or all, and curate scenarios. Keys it does not know fall through to the common map.

use crossterm::event::{KeyCode, KeyEvent};

/// A help row (keys, what they do); the same shape as `tui::help::HelpEntry`, spelled here so
/// the help screen can list these keys without the two files importing each other.
type HelpEntry = (&'static str, &'static str);
use super::intent::Intent;
use super::scroll::step;
use super::ui_state::{Bulk, Ui};
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
    if let Some(bulk) = ui.bulk.take() {
        return Some(match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => {
                ui.feedback = Some(format!("done: {}", bulk.what));
                Intent::Lab(Event::Review(ReviewEvent::CurateMany {
                    ids: bulk.ids,
                    status: bulk.status,
                }))
            }
            _ => {
                ui.feedback = Some(format!("not done: {}", bulk.what));
                Intent::Ui
            }
        });
    }
    if let Some(intent) = super::list_search::on_key(key, lab.step, &list, ui) {
        return Some(intent);
    }
    let last = list.len().saturating_sub(1);
    let selected = list.get(ui.cursor.min(last)).map(item_id);
    let review = |e: ReviewEvent| Some(Intent::Lab(Event::Review(e)));
    let on_selected = |make: fn(String) -> ReviewEvent| match &selected {
        Some(id) => Some(Intent::Lab(Event::Review(make(id.clone())))),
        None => Some(Intent::None),
    };
    let scenarios = lab.step == StepId::Scenarios;
    let mut curate = |status: CaseStatus| match &selected {
        Some(id) if scenarios => {
            ui.feedback = Some(format!("{} `{id}`", status_word(status)));
            // Curating moves on to the next scenario, so a review is one key per scenario.
            ui.cursor = (ui.cursor + 1).min(last);
            ui.proposal_scroll = 0;
            Some(Intent::Lab(Event::Review(ReviewEvent::Curate {
                id: id.clone(),
                status,
            })))
        }
        _ => None,
    };
    match key.code {
        KeyCode::Down | KeyCode::Char('j') => {
            ui.cursor = (ui.cursor + 1).min(last);
            ui.proposal_scroll = 0;
            Some(Intent::Ui)
        }
        KeyCode::Up | KeyCode::Char('k') => {
            ui.cursor = ui.cursor.min(last).saturating_sub(1);
            ui.proposal_scroll = 0;
            Some(Intent::Ui)
        }
        KeyCode::Home => {
            (ui.cursor, ui.proposal_scroll) = (0, 0);
            Some(Intent::Ui)
        }
        KeyCode::End => {
            (ui.cursor, ui.proposal_scroll) = (last, 0);
            Some(Intent::Ui)
        }
        KeyCode::PageDown => {
            ui.proposal_scroll = step(ui.proposal_scroll, 5, ui.proposal_max.get());
            Some(Intent::Ui)
        }
        KeyCode::PageUp => {
            ui.proposal_scroll = step(ui.proposal_scroll, -5, ui.proposal_max.get());
            Some(Intent::Ui)
        }
        KeyCode::Char('a') => review(ReviewEvent::Add),
        KeyCode::Char('e') => on_selected(ReviewEvent::EditItem),
        KeyCode::Char('d') => on_selected(ReviewEvent::Drop),
        KeyCode::Char('r') => {
            if let Some(id) = &selected {
                ui.feedback = Some(format!("regenerating `{id}`…"));
            }
            on_selected(ReviewEvent::RegenerateItem)
        }
        KeyCode::Char('E') => Some(Intent::Lab(Event::Edit)),
        KeyCode::Char('R') => Some(Intent::Lab(Event::Regenerate { hint: None })),
        KeyCode::Char('y') => curate(CaseStatus::Approved),
        KeyCode::Char('n') => curate(CaseStatus::Rejected),
        KeyCode::Char('x') => curate(CaseStatus::NeedsEdit),
        KeyCode::Char('u') => curate(CaseStatus::Pending),
        KeyCode::Char(c @ ('A' | 'N' | '+' | '-')) if scenarios => {
            let status = if matches!(c, 'A' | '+') {
                CaseStatus::Approved
            } else {
                CaseStatus::Rejected
            };
            let persona = matches!(c, '+' | '-')
                .then(|| list.get(ui.cursor.min(last)).map(|s| field(s, "persona")))
                .flatten();
            ui.bulk = Some(bulk(&list, status, persona));
            Some(Intent::Ui)
        }
        _ => None,
    }
}

fn field(item: &serde_json::Value, key: &str) -> String {
    item.get(key).and_then(|v| v.as_str()).unwrap_or_default().to_string()
}

fn status_word(status: CaseStatus) -> &'static str {
    match status {
        CaseStatus::Approved => "approved",
        CaseStatus::Rejected => "rejected",
        CaseStatus::NeedsEdit => "needs edit:",
        CaseStatus::Pending => "back to pending:",
    }
}

/// The bulk change of every shown scenario, or of one persona's, as a question.
pub(crate) fn bulk(list: &[serde_json::Value], status: CaseStatus, persona: Option<String>) -> Bulk {
    let ids: Vec<String> = list
        .iter()
        .filter(|s| persona.as_ref().is_none_or(|p| &field(s, "persona") == p))
        .map(item_id)
        .collect();
    let verb = if status == CaseStatus::Approved {
        "approve"
    } else {
        "reject"
    };
    let whose = persona.map(|p| format!(" of {p}")).unwrap_or_default();
    Bulk {
        what: format!(
            "{verb} {} scenario{}{whose}",
            ids.len(),
            if ids.len() == 1 { "" } else { "s" }
        ),
        ids,
        status,
    }
}

/// Every key of a review screen, as the `?` overlay lists them.
pub(crate) fn help(step: StepId) -> Vec<HelpEntry> {
    let mut out: Vec<HelpEntry> = vec![
        ("↑ ↓ j k", "move the selection"),
        ("Home End", "the first, the last item"),
        ("PgUp PgDn", "scroll the detail"),
        ("a", "add one item (YAML editor)"),
        ("e", "edit the selected item"),
        ("d", "drop the selected item (asks when some are approved)"),
        ("r", "regenerate the selected item"),
        ("R", "regenerate all"),
        ("h", "regenerate all with a hint"),
        ("E", "edit the whole set as YAML"),
    ];
    if step == StepId::Scenarios {
        out.extend([
            ("y", "approve and go to the next"),
            ("n", "reject and go to the next"),
            ("x", "needs edit, and go to the next"),
            ("u", "back to pending, and go to the next"),
            ("A", "approve every scenario shown (asks, with the count)"),
            ("N", "reject every scenario shown (asks, with the count)"),
            ("+", "approve every scenario of the selected one's persona (asks)"),
            ("-", "reject every scenario of the selected one's persona (asks)"),
        ]);
    }
    out
}

/// The key hints of a review screen.
pub(crate) fn hints(lab: &Lab) -> Option<String> {
    review_items(lab)?;
    Some(match lab.step {
        StepId::Scenarios => {
            "Enter accept · ↑↓ move · y/n/x/u approve/reject/needs-edit/pending · A/N all · +/- persona · a add · \
             e edit · d drop · r regen one · R regen all · h hint · E edit all · PgUp/Dn detail · ? help"
        }
        _ => "Enter accept · ↑↓ move · a add · e edit · d drop · r regen one · R regen all · h hint · E edit all · PgUp/Dn detail · ? help",
    }
    .to_string())
}
