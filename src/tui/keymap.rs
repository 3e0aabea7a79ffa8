//! Keys to intents: each key press becomes a lab `Event`, a UI-only action, or nothing.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui_textarea::TextArea;

use super::dashboard::{RunContext, RunKey, run_key};
use super::intent::Intent;
use super::ui_state::Ui;
use crate::lab::dashboard_state::Screen;
use crate::lab::findings_review::FindingsEvent;
use crate::lab::{Event, Lab, Phase, RunOutcome};
use crate::mcp::contract::decisions::Verdict;

/// Maps a key press to an intent, updating UI-only state on the way. Overlays come first (quit
/// confirmation, help, the global toggles), then the hint prompt, the review screens, and last
/// the keys of the step's phase.
pub fn on_key(key: KeyEvent, lab: &Lab, ui: &mut Ui) -> Intent {
    if let Some(intent) = overlay_key(key, lab, ui) {
        return intent;
    }
    if ui.bulk.is_none() {
        ui.feedback = None;
    }
    if let Some(intent) = hint_key(key, ui) {
        return intent;
    }
    if let Some(intent) = super::review_keys::on_key(key, lab, ui) {
        return intent;
    }
    phase_key(key, lab, ui)
}

/// Ctrl-C, the quit confirmation, closing the help overlay, and the keys that work on every
/// screen (`?` help, `s` sidebar) unless text is being typed.
fn overlay_key(key: KeyEvent, lab: &Lab, ui: &mut Ui) -> Option<Intent> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return Some(if lab.confirm_quit {
            Intent::Lab(Event::QuitConfirmed)
        } else {
            ui.hint = None;
            Intent::Lab(Event::Interrupt)
        });
    }
    if lab.confirm_quit {
        return Some(match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => Intent::Lab(Event::QuitConfirmed),
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Intent::Lab(Event::QuitCancelled),
            _ => Intent::None,
        });
    }
    // The help overlay: any key closes it.
    if std::mem::take(&mut ui.help) {
        return Some(Intent::Ui);
    }
    let editing = matches!(lab.phase, Phase::Editing { .. });
    // A search query being typed takes every character, `?` and `s` included.
    let typing = ui.search.as_ref().is_some_and(|s| s.typing);
    if ui.hint.is_none() && !editing && ui.bulk.is_none() && !typing {
        match key.code {
            KeyCode::Char('?') => {
                ui.help = true;
                return Some(Intent::Ui);
            }
            KeyCode::Char('s') => {
                ui.sidebar = Some(!ui.sidebar.unwrap_or(ui.sidebar_auto.get()));
                return Some(Intent::Ui);
            }
            _ => {}
        }
    }
    None
}

/// While the "regenerate with a hint" prompt is open it takes every key; `None` when it is not.
fn hint_key(key: KeyEvent, ui: &mut Ui) -> Option<Intent> {
    let hint = ui.hint.as_mut()?;
    Some(match key.code {
        KeyCode::Esc => {
            ui.hint = None;
            Intent::Ui
        }
        KeyCode::Enter => {
            let text = hint.lines().join(" ").trim().to_string();
            ui.hint = None;
            Intent::Lab(Event::Regenerate {
                hint: (!text.is_empty()).then_some(text),
            })
        }
        _ => {
            hint.input(key);
            Intent::Ui
        }
    })
}

/// The keys of the step's phase: proposing, deciding, editing, failed or running.
fn phase_key(key: KeyEvent, lab: &Lab, ui: &mut Ui) -> Intent {
    // `b` goes back only to a step already completed.
    let to_back = || {
        let back = lab.step.prev().filter(|p| lab.is_completed(*p));
        back.map(|p| Intent::Lab(Event::Goto(p))).unwrap_or(Intent::None)
    };
    match &lab.phase {
        Phase::Proposing { .. } => match key.code {
            KeyCode::Esc => Intent::Lab(Event::Cancel),
            _ => Intent::None,
        },
        Phase::Deciding { proposal, .. } => match key.code {
            KeyCode::Char('b') | KeyCode::Left => to_back(),
            _ => deciding_key(key.code, proposal.editable, ui),
        },
        Phase::Editing { .. } => editing_key(key, ui),
        Phase::Failed { .. } => match key.code {
            KeyCode::Char('r') | KeyCode::Enter => Intent::Lab(Event::Retry),
            KeyCode::Char('h') => open_hint(ui),
            KeyCode::Char('b') | KeyCode::Left => to_back(),
            KeyCode::Char('q') => Intent::Lab(Event::Interrupt),
            _ => Intent::None,
        },
        Phase::Running { dashboard, .. } if dashboard.confirm_cancel => match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => Intent::Lab(Event::CancelRunConfirmed),
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Intent::Lab(Event::CancelRunDeclined),
            _ => Intent::None,
        },
        Phase::Running {
            outcome: Some(RunOutcome::Report(_)),
            dashboard,
            ..
        } if dashboard.screen == Screen::Results && findings_key(key.code, lab).is_some() => {
            findings_key(key.code, lab)
                .map(|f| Intent::Lab(Event::Findings(f)))
                .unwrap_or(Intent::None)
        }
        Phase::Running { outcome, dashboard, .. } => {
            let cx = RunContext {
                live: outcome.is_none(),
                has_results: matches!(outcome, Some(RunOutcome::Report(_))),
                screen: dashboard.screen,
                geometry: ui.run_geometry.get(),
            };
            match run_key(key.code, cx) {
                Some(RunKey::Nav(nav)) => Intent::Lab(Event::Dashboard(nav)),
                Some(RunKey::OpenReport) => Intent::OpenReport,
                Some(RunKey::Cancel) => Intent::Lab(Event::Cancel),
                Some(RunKey::Quit) if outcome.is_some() => Intent::Exit,
                Some(RunKey::Quit) => Intent::Lab(Event::Interrupt),
                None => Intent::None,
            }
        }
    }
}

/// A proposal on screen: accept, cancel, edit or regenerate it (when editable), or scroll it.
fn deciding_key(code: KeyCode, editable: bool, ui: &mut Ui) -> Intent {
    match code {
        KeyCode::Enter => {
            ui.proposal_scroll = 0;
            Intent::Lab(Event::Accept)
        }
        KeyCode::Esc => Intent::Lab(Event::Cancel),
        KeyCode::Char('e') if editable => Intent::Lab(Event::Edit),
        KeyCode::Char('r') if editable => Intent::Lab(Event::Regenerate { hint: None }),
        KeyCode::Char('h') if editable => open_hint(ui),
        KeyCode::Down | KeyCode::Char('j') => scroll_proposal(ui, 1),
        KeyCode::Up | KeyCode::Char('k') => scroll_proposal(ui, -1),
        KeyCode::PageDown => scroll_proposal(ui, 10),
        KeyCode::PageUp => scroll_proposal(ui, -10),
        KeyCode::Home => scroll_proposal(ui, i32::MIN / 2),
        KeyCode::End => scroll_proposal(ui, i32::MAX / 2),
        KeyCode::Char('q') => Intent::Lab(Event::Interrupt),
        _ => Intent::None,
    }
}

/// The editor takes every key but Esc (cancel) and Ctrl-S (submit).
fn editing_key(key: KeyEvent, ui: &mut Ui) -> Intent {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Esc => Intent::Lab(Event::EditCancelled),
        KeyCode::Char('s') if ctrl => match &ui.editor {
            Some(ed) => Intent::Lab(Event::EditSubmitted(ed.lines().join("\n"))),
            None => Intent::None,
        },
        _ => {
            if let Some(ed) = &mut ui.editor {
                ed.input(key);
            }
            Intent::Ui
        }
    }
}

/// Keys for deciding on findings on the results screen; while a reason is typed, every key
/// goes to it (so `q` or `o` are letters there, not commands).
fn findings_key(code: KeyCode, lab: &Lab) -> Option<FindingsEvent> {
    if lab.findings.typing() {
        return Some(match code {
            KeyCode::Esc => FindingsEvent::Cancel,
            KeyCode::Enter => FindingsEvent::Submit,
            KeyCode::Backspace => FindingsEvent::Backspace,
            KeyCode::Char(c) => FindingsEvent::Type(c),
            _ => return None,
        });
    }
    match code {
        KeyCode::Char('a') => Some(FindingsEvent::Decide(Verdict::Accepted)),
        KeyCode::Char('w') => Some(FindingsEvent::Decide(Verdict::Waived)),
        KeyCode::Tab => Some(FindingsEvent::Down),
        KeyCode::BackTab => Some(FindingsEvent::Up),
        _ => None,
    }
}

/// Scrolls the proposal, stopping at its end (the last frame says where that is).
fn scroll_proposal(ui: &mut Ui, by: i32) -> Intent {
    ui.proposal_scroll = super::scroll::step(ui.proposal_scroll, by, ui.proposal_max.get());
    Intent::Ui
}

/// Maps a mouse event: the wheel scrolls what is under it, a click selects a trial row or a
/// completed step in the step list.
pub(crate) fn on_mouse(m: MouseEvent, lab: &Lab, ui: &mut Ui) -> Intent {
    if lab.confirm_quit || ui.help || ui.hint.is_some() || ui.bulk.is_some() {
        return Intent::None;
    }
    let steps = ui.steps_area.get();
    let in_steps = m.column >= steps.x
        && m.column < steps.x + steps.width
        && m.row > steps.y
        && m.row < steps.y + steps.height.saturating_sub(1);
    if matches!(m.kind, MouseEventKind::Down(_)) && in_steps {
        let at = usize::from(m.row - steps.y - 1);
        return match crate::lab::StepId::ALL.get(at) {
            Some(&step) if lab.is_completed(step) && step != lab.step => Intent::Lab(Event::Goto(step)),
            _ => Intent::None,
        };
    }
    match &lab.phase {
        Phase::Running { dashboard, .. } => {
            let cx = super::help::lab_run_context(lab, ui).unwrap_or_default();
            match super::dashboard::run_mouse(m.kind, m.column, m.row, cx, dashboard) {
                Some(nav) => Intent::Lab(Event::Dashboard(nav)),
                None => Intent::None,
            }
        }
        Phase::Deciding { .. } => match m.kind {
            MouseEventKind::ScrollDown => scroll_proposal(ui, 3),
            MouseEventKind::ScrollUp => scroll_proposal(ui, -3),
            _ => Intent::None,
        },
        _ => Intent::None,
    }
}

fn open_hint(ui: &mut Ui) -> Intent {
    let mut t = TextArea::default();
    t.set_placeholder_text("e.g. more adversarial users, focus on rollbacks");
    ui.hint = Some(t);
    Intent::Ui
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::{Proposal, Saved, StepId};
    use crossterm::event::KeyEvent;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn deciding(editable: bool) -> Lab {
        let mut job = crate::spec::Job::default();
        job.lab.completed = vec!["source".into()];
        let mut lab = Lab::resume(job, Saved::default());
        lab.handle(Event::Start);
        let mut p = Proposal::new("My words.", vec![]);
        p.editable = editable;
        lab.handle(Event::Proposed {
            step: StepId::Purpose,
            proposal: p,
        });
        lab
    }

    #[test]
    fn ctrl_c_asks_and_enter_does_not_answer() {
        let mut lab = deciding(true);
        let mut ui = Ui::default();
        assert_eq!(on_key(ctrl('c'), &lab, &mut ui), Intent::Lab(Event::Interrupt));
        lab.handle(Event::Interrupt);
        assert_eq!(on_key(key(KeyCode::Enter), &lab, &mut ui), Intent::None);
        assert_eq!(
            on_key(key(KeyCode::Char('n')), &lab, &mut ui),
            Intent::Lab(Event::QuitCancelled)
        );
        assert_eq!(on_key(ctrl('c'), &lab, &mut ui), Intent::Lab(Event::QuitConfirmed));
        assert_eq!(
            on_key(key(KeyCode::Char('y')), &lab, &mut ui),
            Intent::Lab(Event::QuitConfirmed)
        );
    }

    #[test]
    fn deciding_keys() {
        let lab = deciding(true);
        let mut ui = Ui::default();
        assert_eq!(on_key(key(KeyCode::Enter), &lab, &mut ui), Intent::Lab(Event::Accept));
        assert_eq!(on_key(key(KeyCode::Char('e')), &lab, &mut ui), Intent::Lab(Event::Edit));
        assert_eq!(
            on_key(key(KeyCode::Char('r')), &lab, &mut ui),
            Intent::Lab(Event::Regenerate { hint: None })
        );
        assert_eq!(
            on_key(key(KeyCode::Char('b')), &lab, &mut ui),
            Intent::Lab(Event::Goto(StepId::Source))
        );
        let read_only = deciding(false);
        assert_eq!(on_key(key(KeyCode::Char('e')), &read_only, &mut ui), Intent::None);
    }

    #[test]
    fn hint_prompt_types_then_regenerates() {
        let lab = deciding(true);
        let mut ui = Ui::default();
        assert_eq!(on_key(key(KeyCode::Char('h')), &lab, &mut ui), Intent::Ui);
        for c in "be terse".chars() {
            on_key(key(KeyCode::Char(c)), &lab, &mut ui);
        }
        assert_eq!(
            on_key(key(KeyCode::Enter), &lab, &mut ui),
            Intent::Lab(Event::Regenerate {
                hint: Some("be terse".into())
            })
        );
        assert!(ui.hint.is_none());
    }

    #[test]
    fn editing_types_saves_and_cancels() {
        let mut lab = deciding(true);
        let mut ui = Ui::default();
        lab.handle(Event::Edit);
        ui.sync(&lab);
        on_key(key(KeyCode::End), &lab, &mut ui);
        on_key(key(KeyCode::Char('!')), &lab, &mut ui);
        assert_eq!(
            on_key(ctrl('s'), &lab, &mut ui),
            Intent::Lab(Event::EditSubmitted("My words.!".into()))
        );
        assert_eq!(
            on_key(key(KeyCode::Esc), &lab, &mut ui),
            Intent::Lab(Event::EditCancelled)
        );
    }
}
