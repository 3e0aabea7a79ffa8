//! `ghostlab view`: the run dashboard and results screens over a stored run, read-only, with
//! filters by verdict (`v`), persona (`P`) and text (`/`). Drawing is a pure function of the
//! loaded run and this screen's own typing state.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::dashboard::{RunKey, draw_dashboard, run_key};
use super::footer::{draw_footer, footer_height};
use super::results::draw_results;
use super::theme::Theme;
use crate::lab::dashboard_state::{Filter, Nav, Screen};
use crate::lab::stored_run::{StoredRun, next_persona, next_verdict};

/// State only this screen has.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ViewUi {
    /// The search text while `/` is open.
    pub search: Option<String>,
    /// What the last `o` did.
    pub notice: Option<String>,
}

/// What a key asks of the view's loop.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewIntent {
    Quit,
    OpenReport,
    /// Handled here; redraw.
    Changed,
    None,
}

/// Applies one key to the view.
pub fn on_view_key(key: KeyEvent, run: &mut StoredRun, ui: &mut ViewUi) -> ViewIntent {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return ViewIntent::Quit;
    }
    let filter = run.dashboard.filter.clone();
    if let Some(text) = &mut ui.search {
        match key.code {
            KeyCode::Esc => {
                ui.search = None;
                run.navigate(Nav::SetFilter(Filter {
                    text: String::new(),
                    ..filter
                }));
            }
            KeyCode::Enter => ui.search = None,
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) => text.push(c),
            _ => return ViewIntent::None,
        }
        if let Some(text) = &ui.search {
            let f = Filter {
                text: text.clone(),
                ..run.dashboard.filter.clone()
            };
            run.navigate(Nav::SetFilter(f));
        }
        return ViewIntent::Changed;
    }
    let f = match key.code {
        KeyCode::Char('/') => {
            ui.search = Some(filter.text.clone());
            return ViewIntent::Changed;
        }
        KeyCode::Char('v') => Filter {
            verdict: next_verdict(filter.verdict),
            ..filter
        },
        KeyCode::Char('P') => Filter {
            persona: next_persona(&run.dashboard, filter.persona.as_deref()),
            ..filter
        },
        _ => filter,
    };
    if f != run.dashboard.filter {
        run.navigate(Nav::SetFilter(f));
        run.navigate(Nav::ShowDashboard);
        return ViewIntent::Changed;
    }
    match run_key(key.code, false, run.results.is_some()) {
        Some(RunKey::Nav(nav)) => {
            run.navigate(nav);
            ViewIntent::Changed
        }
        Some(RunKey::OpenReport) => ViewIntent::OpenReport,
        Some(RunKey::Quit) => ViewIntent::Quit,
        Some(RunKey::Cancel) | None => ViewIntent::None,
    }
}

/// The key hints of the current screen.
pub fn view_hints(run: &StoredRun, ui: &ViewUi) -> String {
    if ui.search.is_some() {
        return "type to filter · Enter keep · Esc clear".into();
    }
    match (run.dashboard.screen, &run.results) {
        (Screen::Results, Some(_)) => "↑↓ scroll · o open report · d dashboard · q quit".into(),
        (_, Some(_)) => {
            "↑↓ case · f follow · p pin · v verdict · P persona · / search · r results · o open · q quit".into()
        }
        _ => "↑↓ case · f follow · p pin · v verdict · P persona · / search · q quit".into(),
    }
}

/// Draws one frame of `ghostlab view`.
pub fn draw_view(frame: &mut Frame, run: &StoredRun, ui: &ViewUi, theme: &Theme) {
    let area = frame.area();
    frame.render_widget(Block::default().style(theme.base()), area);
    let hint_text = view_hints(run, ui);
    let [title, body, status, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(footer_height(&hint_text, area.width)),
    ])
    .areas(area);
    let id = run
        .results
        .as_ref()
        .map(|r| r.run_id.as_str())
        .unwrap_or("(unfinished run)");
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(format!("ghostlab view {id}"), theme.accent()),
            Span::styled(" — read-only", theme.muted()),
        ])),
        title,
    );
    match (&run.results, run.dashboard.screen) {
        (Some(r), Screen::Results) => draw_results(frame, r, run.dashboard.results_scroll, theme, body),
        _ => draw_dashboard(frame, &run.dashboard, None, theme, body),
    }
    let line = match (&ui.search, &ui.notice, &run.results) {
        (Some(s), _, _) => Line::styled(format!("/{s}▏"), theme.accent()),
        (None, Some(n), _) => Line::styled(n.clone(), theme.accent()),
        (None, None, None) => Line::styled("This run has no summary.json: it did not finish.", theme.warn()),
        (None, None, Some(r)) => Line::styled(r.line.clone(), theme.muted()),
    };
    frame.render_widget(Paragraph::new(line), status);
    draw_footer(frame, &hint_text, theme, hints);
}
