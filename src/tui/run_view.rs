//! `ghostlab view`: the run dashboard and results screens over a stored run, read-only, with
//! filters by verdict (`v`), persona (`P`) and text (`/`). Drawing is a pure function of the
//! loaded run and this screen's own typing state.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::dashboard::{RunContext, RunGeometry, RunKey, draw_dashboard, run_help, run_key, run_mouse};
use super::footer::{draw_footer, footer_height};
use super::help::{HelpEntry, draw_help};
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
    /// Where the last frame put the panes (scroll limits, rows for clicks).
    pub geometry: std::cell::Cell<RunGeometry>,
    /// The `?` overlay is open.
    pub help: bool,
}

/// What a key asks of the view's loop.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ViewIntent {
    Quit,
    OpenReport,
    /// Handled here; redraw.
    Changed,
    None,
}

/// Applies one key to the view.
pub(crate) fn on_view_key(key: KeyEvent, run: &mut StoredRun, ui: &mut ViewUi) -> ViewIntent {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return ViewIntent::Quit;
    }
    if std::mem::take(&mut ui.help) {
        return ViewIntent::Changed;
    }
    let filter = run.dashboard.filter.clone();
    if ui.search.is_none() && key.code == KeyCode::Char('?') {
        ui.help = true;
        return ViewIntent::Changed;
    }
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
    match run_key(key.code, view_context(run, ui)) {
        Some(RunKey::Nav(nav)) => {
            run.navigate(nav);
            ViewIntent::Changed
        }
        Some(RunKey::OpenReport) => ViewIntent::OpenReport,
        Some(RunKey::Quit) => ViewIntent::Quit,
        Some(RunKey::Cancel) | None => ViewIntent::None,
    }
}

/// What the run keys of `ghostlab view` depend on: never live, results when the run finished.
pub(crate) fn view_context(run: &StoredRun, ui: &ViewUi) -> RunContext {
    RunContext {
        live: false,
        has_results: run.results.is_some(),
        screen: run.dashboard.screen,
        geometry: ui.geometry.get(),
    }
}

/// Every key of the view's current screen, for the `?` overlay.
pub(crate) fn view_help(run: &StoredRun, ui: &ViewUi) -> Vec<HelpEntry> {
    let cx = view_context(run, ui);
    let mut out = run_help(cx);
    if cx.screen == Screen::Dashboard || !cx.has_results {
        out.extend([
            ("v", "filter by verdict: all, PASS, FAIL, INCONCLUSIVE, INFRA_ERROR"),
            ("P", "filter by persona, one after another"),
            ("/", "search cases and transcripts (any case)"),
        ]);
    }
    out.push(("?", "this help (any key closes it)"));
    out.push(("Ctrl-C", "quit"));
    out
}

/// Applies a mouse event: the wheel scrolls what is under it, a click selects a trial.
pub(crate) fn on_view_mouse(m: MouseEvent, run: &mut StoredRun, ui: &ViewUi) -> ViewIntent {
    match run_mouse(m.kind, m.column, m.row, view_context(run, ui), &run.dashboard) {
        Some(nav) => {
            run.navigate(nav);
            ViewIntent::Changed
        }
        None => ViewIntent::None,
    }
}

/// The key hints of the current screen.
pub(crate) fn view_hints(run: &StoredRun, ui: &ViewUi) -> String {
    if ui.search.is_some() {
        return "type to filter · Enter keep · Esc clear".into();
    }
    match (run.dashboard.screen, &run.results) {
        (Screen::Results, Some(_)) => "↑↓ scroll · o open report · d dashboard · ? help · q quit".into(),
        (_, Some(_)) => {
            "↑↓ case · PgUp/Dn scroll · Enter expand · f follow · p pin · v verdict · P persona · / search · r results · o open · ? help · q quit".into()
        }
        _ => "↑↓ case · PgUp/Dn scroll · Enter expand · f follow · p pin · v verdict · P persona · / search · ? help · q quit"
            .into(),
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
    let geometry = match (&run.results, run.dashboard.screen) {
        (Some(r), Screen::Results) => RunGeometry {
            results_max: draw_results(frame, r, None, run.dashboard.results_scroll, theme, body),
            ..RunGeometry::default()
        },
        _ => draw_dashboard(frame, &run.dashboard, None, theme, body),
    };
    ui.geometry.set(geometry);
    let line = match (&ui.search, &ui.notice, &run.results) {
        (Some(s), _, _) => Line::styled(format!("/{s}▏"), theme.accent()),
        (None, Some(n), _) => Line::styled(n.clone(), theme.accent()),
        (None, None, None) => Line::styled("This run has no summary.json: it did not finish.", theme.warn()),
        (None, None, Some(r)) => Line::styled(r.line.clone(), theme.muted()),
    };
    frame.render_widget(Paragraph::new(line), status);
    draw_footer(frame, &hint_text, theme, hints);
    if ui.help {
        draw_help(frame, "ghostlab view", &view_help(run, ui), theme, body);
    }
}
