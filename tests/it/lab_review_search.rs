//! `/` search in the review lists (step 9 personas, step 10 scenarios): case-insensitive over
//! every text of an item, Enter jumps to the first match, `n` / `N` walk the matches (and do not
//! reject while the search is open), every occurrence is marked on screen at 80×24 and
//! 140×40, and the footer and `?` help say which keys apply.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

use crate::lab_review::{fixture, lab_at};
use crate::lab_review_snapshots::{render, text_of};
use ghostlab::lab::review::{ReviewEvent, item_id};
use ghostlab::lab::{Event, Lab, Saved, StepId};
use ghostlab::tui::intent::Intent;
use ghostlab::tui::keymap::on_key;
use ghostlab::tui::review_keys::review_items;
use ghostlab::tui::{Theme, Ui};

fn press(lab: &Lab, ui: &mut Ui, code: KeyCode) -> Intent {
    on_key(KeyEvent::new(code, KeyModifiers::NONE), lab, ui)
}

fn search(lab: &Lab, ui: &mut Ui, query: &str) {
    assert_eq!(press(lab, ui, KeyCode::Char('/')), Intent::Ui);
    for c in query.chars() {
        assert_eq!(
            press(lab, ui, KeyCode::Char(c)),
            Intent::Ui,
            "{c:?} is typed, not a command"
        );
    }
    assert_eq!(
        press(lab, ui, KeyCode::Enter),
        Intent::Ui,
        "Enter finds, it does not accept"
    );
}

/// The text of every reversed (marked) run of cells, row by row.
fn marked_runs(buf: &Buffer) -> Vec<String> {
    let mut out = Vec::new();
    for y in 0..buf.area.height {
        let mut run = String::new();
        for x in 0..buf.area.width {
            let cell = &buf[(x, y)];
            if cell.modifier.contains(Modifier::REVERSED) {
                run.push_str(cell.symbol());
            } else if !run.is_empty() {
                out.push(std::mem::take(&mut run));
            }
        }
        if !run.is_empty() {
            out.push(run);
        }
    }
    out
}

/// Positions (in cursor order) of the items whose text contains `needle` in any case.
fn expected(lab: &Lab, needle: &str) -> Vec<usize> {
    review_items(lab)
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, it)| it.to_string().to_lowercase().contains(needle))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn searching_the_scenarios_jumps_marks_and_walks_the_matches_without_rejecting() {
    let f = fixture();
    let lab = lab_at(&f, StepId::Scenarios, Saved::default());
    let theme = Theme::builtin("default").unwrap();
    let hits = expected(&lab, "tag");
    assert!(hits.len() >= 2, "the fixture has several tag scenarios: {hits:?}");

    let mut ui = Ui::default();
    search(&lab, &mut ui, "TaG");
    assert_eq!(ui.cursor, hits[0], "Enter jumps to the first match");
    assert_eq!(
        ui.feedback.as_deref(),
        Some(format!("“TaG”: match 1 of {}", hits.len()).as_str())
    );
    for (w, h) in [(80, 24), (140, 40)] {
        let buf = render(&lab, &ui, &theme, w, h);
        let marks = marked_runs(&buf);
        assert!(
            marks.iter().any(|m| m.eq_ignore_ascii_case("tag")),
            "{w}×{h}: no occurrence marked: {marks:?}\n{}",
            text_of(&buf)
        );
        assert!(
            marks.iter().all(|m| m.to_lowercase().contains("tag")),
            "{w}×{h}: something else is marked: {marks:?}"
        );
        let text = text_of(&buf);
        assert!(text.contains("search “TaG”"), "{w}×{h}: footer:\n{text}");
    }

    // `n` goes to the next match and changes no curation; `N` comes back.
    assert_eq!(press(&lab, &mut ui, KeyCode::Char('n')), Intent::Ui);
    assert_eq!(ui.cursor, hits[1]);
    assert_eq!(press(&lab, &mut ui, KeyCode::Char('N')), Intent::Ui);
    assert_eq!(ui.cursor, hits[0]);
    // The `?` help lists the search keys that apply now.
    let help = ghostlab::tui::help::lab_help(&lab, &ui);
    assert!(
        help.iter().any(|(k, what)| *k == "n" && what.contains("next match")),
        "{help:?}"
    );

    // Esc ends the search (it does not leave the step); then `n` rejects again.
    assert_eq!(press(&lab, &mut ui, KeyCode::Esc), Intent::Ui);
    assert!(ui.search.is_none());
    let id = item_id(&review_items(&lab).unwrap()[ui.cursor]);
    assert_eq!(
        press(&lab, &mut ui, KeyCode::Char('n')),
        Intent::Lab(Event::Review(ReviewEvent::Curate {
            id,
            status: ghostlab::generate::CaseStatus::Rejected
        }))
    );
    let help = ghostlab::tui::help::lab_help(&lab, &ui);
    assert!(help.iter().any(|(k, _)| *k == "/"), "{help:?}");
}

#[test]
fn searching_the_personas_matches_any_field_and_says_when_nothing_matches() {
    let f = fixture();
    let lab = lab_at(&f, StepId::Personas, Saved::default());
    let theme = Theme::builtin("default").unwrap();
    let items = review_items(&lab).unwrap();
    // A word of a later persona's detail only (not of its name) still finds it.
    let last = items.len() - 1;
    let mut ui = Ui::default();
    search(&lab, &mut ui, &item_id(&items[last]).to_uppercase());
    assert_eq!(ui.cursor, last);
    let text = text_of(&render(&lab, &ui, &theme, 80, 24));
    assert!(text.contains("match 1 of 1"), "{text}");

    let mut ui = Ui::default();
    search(&lab, &mut ui, "no such words anywhere");
    assert_eq!(ui.cursor, 0, "the cursor stays");
    assert_eq!(ui.feedback.as_deref(), Some("“no such words anywhere”: no match"));
    assert!(marked_runs(&render(&lab, &ui, &theme, 140, 40)).is_empty());
}
