//! Every key a screen's handler accepts is in that screen's `?` help, and scrolling stops at
//! the end in each scrolled pane.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::help::{HelpEntry, lab_help};
use super::intent::Intent;
use super::keymap::on_key;
use super::run_view::{ViewIntent, ViewUi, on_view_key, view_help};
use super::ui_state::Ui;
use crate::lab::dashboard_state::{DashboardState, Nav};
use crate::lab::stored_run::StoredRun;
use crate::lab::{Event, Lab, Phase, Proposal, Saved, StepId};

fn candidates() -> Vec<KeyCode> {
    let mut out: Vec<KeyCode> = (' '..='~').map(KeyCode::Char).collect();
    out.extend([
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Tab,
        KeyCode::Backspace,
    ]);
    out
}

fn deciding(step: StepId, text: &str) -> Lab {
    let mut job = crate::spec::Job::default();
    job.lab.completed = StepId::ALL
        .iter()
        .take_while(|s| **s != step)
        .map(|s| s.id().to_string())
        .collect();
    let mut lab = Lab::resume(job, Saved::default());
    lab.handle(Event::Start);
    lab.step = step;
    lab.phase = Phase::Deciding {
        proposal: Proposal::new(text, vec![]),
        notice: None,
        confirm: None,
    };
    lab
}

fn running(finished: bool) -> Lab {
    let mut lab = deciding(StepId::Preview, "x");
    lab.phase = Phase::Running {
        dashboard: DashboardState::new(Some(1)),
        tick: 0,
        outcome: finished.then(|| crate::lab::RunOutcome::Failed(crate::lab::LabRunError::Cancelled.into())),
    };
    lab
}

fn assert_lab_help_covers(name: &str, lab: &Lab) {
    let help = lab_help(lab, &Ui::default());
    for code in candidates() {
        let mut ui = Ui::default();
        let intent = on_key(KeyEvent::new(code, KeyModifiers::NONE), lab, &mut ui);
        if intent != Intent::None {
            assert!(
                lists(&help, code),
                "{name}: {code:?} does something ({intent:?}) but is not in the help"
            );
        }
    }
}

#[test]
fn every_key_the_lab_accepts_is_in_its_help() {
    assert_lab_help_covers("purpose", &deciding(StepId::Purpose, "My words."));
    let scenarios =
        "version: 1\nscenarios:\n  - id: a\n    persona: p\n    title: A\n  - id: b\n    persona: q\n    title: B\n";
    assert_lab_help_covers("scenarios", &deciding(StepId::Scenarios, scenarios));
    let personas = "version: 1\npersonas:\n  - id: p\n    name: P\n";
    assert_lab_help_covers("personas", &deciding(StepId::Personas, personas));
    assert_lab_help_covers("live run", &running(false));
    assert_lab_help_covers("ended run", &running(true));
    let mut failed = deciding(StepId::Purpose, "x");
    failed.phase = Phase::Failed { error: "e".into() };
    assert_lab_help_covers("failed", &failed);
}

#[test]
fn every_key_the_view_accepts_is_in_its_help() {
    let run = StoredRun {
        dashboard: DashboardState::new(None),
        results: None,
    };
    let help = view_help(&run, &ViewUi::default());
    for code in candidates() {
        let (mut r, mut ui) = (run.clone(), ViewUi::default());
        let intent = on_view_key(KeyEvent::new(code, KeyModifiers::NONE), &mut r, &mut ui);
        if intent != ViewIntent::None {
            assert!(
                lists(&help, code),
                "view: {code:?} does something but is not in the help"
            );
        }
    }
}

#[test]
fn question_mark_opens_help_and_any_key_closes_it() {
    let lab = deciding(StepId::Purpose, "My words.");
    let mut ui = Ui::default();
    assert_eq!(
        on_key(KeyEvent::new(KeyCode::Char('?'), KeyModifiers::NONE), &lab, &mut ui),
        Intent::Ui
    );
    assert!(ui.help);
    // Enter closes the help rather than accepting the step behind it.
    assert_eq!(
        on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), &lab, &mut ui),
        Intent::Ui
    );
    assert!(!ui.help);
}

#[test]
fn proposal_scroll_stops_at_the_end_the_frame_measured() {
    let lab = deciding(StepId::Purpose, "My words.");
    let mut ui = Ui::default();
    ui.proposal_max.set(4);
    for _ in 0..3 {
        on_key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE), &lab, &mut ui);
    }
    assert_eq!(ui.proposal_scroll, 4, "PgDn stops at the last screenful");
    on_key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE), &lab, &mut ui);
    assert_eq!(ui.proposal_scroll, 3, "one press back moves back at once");
    on_key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE), &lab, &mut ui);
    assert_eq!(ui.proposal_scroll, 0);
}

#[test]
fn run_panes_scroll_within_their_ends_and_a_new_trial_starts_at_its_end() {
    let mut d = DashboardState::new(None);
    d.navigate(Nav::ScrollTranscript { by: 50, max: 7 });
    assert_eq!(d.transcript_scroll, 7);
    d.navigate(Nav::ScrollTranscript { by: -100, max: 7 });
    assert_eq!(d.transcript_scroll, 0);
    d.navigate(Nav::ScrollResults { by: 9, max: 2 });
    d.navigate(Nav::ScrollResults { by: -1, max: 2 });
    assert_eq!(d.results_scroll, 1, "results stop at their end too");
    d.navigate(Nav::ToggleTurn(Some(3)));
    assert_eq!(d.expanded_turn, Some(3));
    d.navigate(Nav::ToggleTurn(Some(3)));
    assert_eq!(d.expanded_turn, None, "Enter again collapses");
    d.navigate(Nav::Select(5));
    assert_eq!(d.selected(), None, "a click on a row that is not there selects nothing");
}

#[test]
fn y_advances_and_bulk_asks_with_the_count_before_changing_anything() {
    let scenarios = "version: 1\nscenarios:\n  - id: a\n    persona: p\n    title: A\n  - id: b\n    persona: p\n    title: B\n  - id: c\n    persona: q\n    title: C\n";
    let lab = deciding(StepId::Scenarios, scenarios);
    let mut ui = Ui::default();
    let key = |c: char| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    assert!(matches!(on_key(key('n'), &lab, &mut ui), Intent::Lab(Event::Review(_))));
    assert_eq!(ui.cursor, 1, "n moved to the next scenario");
    assert!(ui.feedback.as_deref().is_some_and(|f| f.contains("rejected `a`")));
    assert_eq!(on_key(key('-'), &lab, &mut ui), Intent::Ui, "bulk asks first");
    assert_eq!(
        ui.bulk.as_ref().map(|b| b.what.as_str()),
        Some("reject 2 scenarios of p")
    );
    assert_eq!(on_key(key('n'), &lab, &mut ui), Intent::Ui, "no: nothing changes");
    assert!(ui.bulk.is_none());
    on_key(key('A'), &lab, &mut ui);
    assert_eq!(ui.bulk.as_ref().map(|b| b.ids.len()), Some(3));
    match on_key(key('y'), &lab, &mut ui) {
        Intent::Lab(Event::Review(crate::lab::review::ReviewEvent::CurateMany { ids, .. })) => {
            assert_eq!(ids, ["a", "b", "c"])
        }
        other => panic!("{other:?}"),
    }
}

/// How a key is written in the help.
fn key_token(code: KeyCode) -> Option<String> {
    Some(match code {
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::Backspace => "Backspace".into(),
        _ => return None,
    })
}

/// Whether `entries` list `code`.
fn lists(entries: &[HelpEntry], code: KeyCode) -> bool {
    key_token(code).is_some_and(|t| entries.iter().any(|(keys, _)| keys.split(' ').any(|k| k == t)))
}
