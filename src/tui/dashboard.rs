//! The run dashboard (step 12 and `ghostlab view`): a header with the progress gauge and live
//! verdict counts, the case table, and the selected trial's transcript coloured by event kind.
//! A pure function of `DashboardState`; only visible rows and transcript lines are formatted,
//! so a frame costs the same for 5 trials as for 500.

use crossterm::event::{KeyCode, MouseEventKind};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::panel::block;
use super::theme::Theme;
use super::theme::verdict_style;
use super::transcript::{TranscriptGeometry, draw_transcript};
use crate::lab::dashboard_state::{CaseRow, DashboardState, Nav, Screen, Selection};
use crate::trial::Verdict;

/// What a key asks of a run screen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RunKey {
    Nav(Nav),
    /// `o`: open the HTML report (or show its path).
    OpenReport,
    /// Esc while the run is live: ask whether to cancel it.
    Cancel,
    Quit,
}

/// Where the last frame put things: how far each pane scrolls, which turn Enter expands, and
/// where the case rows are (for clicks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunGeometry {
    pub(crate) transcript: TranscriptGeometry,
    pub(crate) transcript_area: Rect,
    /// The case table's rows (below its header line).
    pub(crate) table_rows: Rect,
    /// Index into the visible rows of the table's first shown row.
    pub(crate) table_first: usize,
    /// The largest results scroll that still shows a full screen.
    pub(crate) results_max: u16,
}

/// What the run keys depend on.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RunContext {
    pub(crate) live: bool,
    pub(crate) has_results: bool,
    pub(crate) screen: Screen,
    pub(crate) geometry: RunGeometry,
}

/// Rows a PgUp/PgDn moves.
const PAGE: i32 = 10;

/// The keys shared by the lab's step 12 and `ghostlab view` (the help overlay lists them from
/// [`run_help`], and a test checks that every key accepted here is there).
pub(crate) fn run_key(code: KeyCode, cx: RunContext) -> Option<RunKey> {
    let g = cx.geometry;
    let results = |by: i32| RunKey::Nav(Nav::ScrollResults { by, max: g.results_max });
    let transcript = |by: i32| {
        RunKey::Nav(Nav::ScrollTranscript {
            by,
            max: g.transcript.max_scroll,
        })
    };
    if cx.screen == Screen::Results && cx.has_results {
        return Some(match code {
            KeyCode::Up | KeyCode::Char('k') => results(-1),
            KeyCode::Down | KeyCode::Char('j') => results(1),
            KeyCode::PageUp => results(-PAGE),
            KeyCode::PageDown => results(PAGE),
            KeyCode::Home => results(i32::MIN / 2),
            KeyCode::End => results(i32::MAX / 2),
            KeyCode::Char('d') | KeyCode::Tab => RunKey::Nav(Nav::ShowDashboard),
            KeyCode::Char('o') => RunKey::OpenReport,
            KeyCode::Char('q') => RunKey::Quit,
            _ => return None,
        });
    }
    Some(match code {
        KeyCode::Up | KeyCode::Char('k') => RunKey::Nav(Nav::Up),
        KeyCode::Down | KeyCode::Char('j') => RunKey::Nav(Nav::Down),
        KeyCode::PageUp => transcript(PAGE),
        KeyCode::PageDown => transcript(-PAGE),
        KeyCode::Home => transcript(i32::MAX / 2),
        KeyCode::Enter => RunKey::Nav(Nav::ToggleTurn(g.transcript.bottom_turn)),
        KeyCode::Char('f') | KeyCode::End => RunKey::Nav(Nav::Follow),
        KeyCode::Char('p') => RunKey::Nav(Nav::Pin),
        KeyCode::Char('r') | KeyCode::Tab if cx.has_results => RunKey::Nav(Nav::ShowResults),
        KeyCode::Char('o') if cx.has_results => RunKey::OpenReport,
        KeyCode::Esc if cx.live => RunKey::Cancel,
        KeyCode::Char('q') => RunKey::Quit,
        _ => return None,
    })
}

/// The help of the run keys for this context: (keys, what they do).
pub(crate) fn run_help(cx: RunContext) -> Vec<(&'static str, &'static str)> {
    if cx.screen == Screen::Results && cx.has_results {
        return vec![
            ("↑ ↓ j k", "scroll the results"),
            ("PgUp PgDn Home End", "scroll a page, to the top, to the end"),
            ("d Tab", "back to the dashboard"),
            ("o", "open the HTML report"),
            ("q", "quit"),
        ];
    }
    let mut out = vec![
        ("↑ ↓ j k", "select the previous / next trial"),
        ("PgUp PgDn", "scroll the transcript a page back / forward"),
        ("Home", "the transcript's start"),
        ("End f", "follow the newest trial, the transcript's end"),
        (
            "Enter",
            "show the bottom turn in full (tool arguments and results), again to collapse",
        ),
        ("p", "pin the selected trial (again: follow)"),
    ];
    if cx.has_results {
        out.push(("r Tab", "the results screen"));
        out.push(("o", "open the HTML report"));
    }
    if cx.live {
        out.push(("Esc", "cancel the run (asks first)"));
    }
    out.push(("q", "quit"));
    out
}

/// Moves a wheel or click on the run screen asks for, if any.
pub(crate) fn run_mouse(
    kind: MouseEventKind,
    column: u16,
    row: u16,
    cx: RunContext,
    s: &DashboardState,
) -> Option<Nav> {
    let g = cx.geometry;
    let inside = |r: Rect| column >= r.x && column < r.x + r.width && row >= r.y && row < r.y + r.height;
    match kind {
        MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
            let by = if kind == MouseEventKind::ScrollUp { -3 } else { 3 };
            if cx.screen == Screen::Results && cx.has_results {
                Some(Nav::ScrollResults { by, max: g.results_max })
            } else if inside(g.transcript_area) {
                Some(Nav::ScrollTranscript {
                    by: -by,
                    max: g.transcript.max_scroll,
                })
            } else if inside(g.table_rows) {
                Some(if by < 0 { Nav::Up } else { Nav::Down })
            } else {
                None
            }
        }
        MouseEventKind::Down(_) if cx.screen == Screen::Dashboard && inside(g.table_rows) => {
            let at = g.table_first + usize::from(row - g.table_rows.y);
            s.visible().get(at).map(|&i| Nav::Select(i))
        }
        _ => None,
    }
}

/// `12m05s`, `3.2s`.
pub(crate) fn duration(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

fn tokens(n: u64) -> String {
    if n >= 10_000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// Draws the dashboard into `area`. `spinner` is the frame of a live run, `None` once it ended.
pub fn draw_dashboard(
    frame: &mut Frame,
    s: &DashboardState,
    spinner: Option<&str>,
    theme: &Theme,
    area: Rect,
) -> RunGeometry {
    let [header, body] = Layout::vertical([Constraint::Length(2), Constraint::Min(3)]).areas(area);
    frame.render_widget(Paragraph::new(header_lines(s, spinner, theme, header.width)), header);
    let (table, transcript) = if body.width >= 110 {
        let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
        (a, b)
    } else {
        let [a, b] = Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(body);
        (a, b)
    };
    let (table_rows, table_first) = draw_table(frame, s, spinner, theme, table);
    RunGeometry {
        transcript: draw_transcript(frame, s, theme, transcript),
        transcript_area: transcript,
        table_rows,
        table_first,
        results_max: 0,
    }
}

fn header_lines<'a>(s: &DashboardState, spinner: Option<&str>, theme: &Theme, width: u16) -> Vec<Line<'a>> {
    let done = s.done();
    let total = s.total();
    let bar_w = (width as usize / 5).clamp(8, 30);
    let filled = (done * bar_w).checked_div(total).unwrap_or(0);
    let mut first = vec![
        Span::styled(spinner.map(|f| format!("{f} ")).unwrap_or_default(), theme.accent()),
        Span::styled(format!("{done}/{total} trials "), theme.base()),
        Span::styled("█".repeat(filled), theme.ok()),
        Span::styled("░".repeat(bar_w - filled), theme.muted()),
        Span::styled(format!(" · elapsed {}", duration(s.elapsed_ms())), theme.base()),
    ];
    if let Some(eta) = s.eta_ms().filter(|_| spinner.is_some()) {
        first.push(Span::styled(format!(" · ETA {}", duration(eta)), theme.base()));
    }
    first.push(Span::styled(format!(" · {} tokens", tokens(s.tokens)), theme.muted()));
    if s.cost_usd > 0.0 || s.cost_unknown {
        let unknown = if s.cost_unknown { "+unknown" } else { "" };
        first.push(Span::styled(format!(" · ${:.2}{unknown}", s.cost_usd), theme.muted()));
    }
    let mut second: Vec<Span> = Vec::new();
    for (i, (v, n)) in s.counts().into_iter().enumerate() {
        if i > 0 {
            second.push(Span::styled(" · ", theme.muted()));
        }
        second.push(Span::styled(format!("{} {n}", v.as_str()), verdict_style(v, theme)));
    }
    let mode = match s.selection {
        Selection::Follow => "following newest".to_string(),
        Selection::Pinned(i) => format!("pinned {}", s.rows.get(i).map(|r| s.trial_label(r)).unwrap_or_default()),
    };
    second.push(Span::styled(format!("   {mode}"), theme.accent()));
    let f = &s.filter;
    if f.verdict.is_some() || f.persona.is_some() || !f.text.is_empty() {
        let mut parts = Vec::new();
        parts.extend(f.verdict.map(|v| v.as_str().to_string()));
        parts.extend(f.persona.clone());
        if !f.text.is_empty() {
            parts.push(format!("/{}", f.text));
        }
        second.push(Span::styled(format!(" · filter {}", parts.join(" ")), theme.warn()));
    }
    vec![Line::from(first), Line::from(second)]
}

/// A row's first column: its verdict's mark, the spinner only while the row is running, and a
/// still square once it no longer runs (cancelled, or left unfinished by a run that stopped).
fn status_mark(s: &DashboardState, r: &CaseRow, spinner: Option<&str>) -> String {
    match r.verdict {
        Some(Verdict::Pass) => "✓".into(),
        Some(Verdict::Fail) => "✗".into(),
        Some(Verdict::Inconclusive) => "?".into(),
        Some(Verdict::InfraError) => "!".into(),
        None => match spinner {
            Some(frame) if s.row_status(r, true) == "running" => frame.to_string(),
            _ => "■".into(),
        },
    }
}

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        format!("{text:<width$}")
    } else {
        let mut t: String = text.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Draws the case table; returns where its rows are and which visible row is first.
fn draw_table(
    frame: &mut Frame,
    s: &DashboardState,
    spinner: Option<&str>,
    theme: &Theme,
    area: Rect,
) -> (Rect, usize) {
    let visible = s.visible();
    let b = block(format!(" Cases ({} of {}) ", visible.len(), s.rows.len()), theme);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let w = inner.width as usize;
    let fixed = 2 + 6 + 13 + 8;
    let persona_w = (w.saturating_sub(fixed) * 2 / 5).max(6);
    let scenario_w = w.saturating_sub(fixed + persona_w + 2).max(6);
    let mut lines = vec![Line::styled(
        format!(
            "  {} {} {:<6}{:<13}{:>7}",
            clip("persona", persona_w),
            clip("scenario", scenario_w),
            "turn",
            "verdict",
            "time"
        ),
        theme.muted(),
    )];
    let rows = (inner.height as usize).saturating_sub(1);
    let selected = s.selected();
    let at = selected.and_then(|i| visible.iter().position(|&v| v == i)).unwrap_or(0);
    let start = (at + 1).saturating_sub(rows).min(visible.len().saturating_sub(rows));
    for &i in visible.iter().skip(start).take(rows) {
        let r = &s.rows[i];
        let turn = if r.max_turns > 0 {
            format!("{}/{}", r.turn, r.max_turns)
        } else {
            r.turn.to_string()
        };
        let verdict = s.row_status(r, spinner.is_some());
        let persona = if s.max_trial > 1 {
            // The trial number stays visible: the persona gives way to it.
            let tag = format!(" #{}", r.trial);
            let room = persona_w.saturating_sub(tag.chars().count());
            format!("{}{tag}", clip(&r.persona, room).trim_end())
        } else {
            r.persona.clone()
        };
        let scenario = s.title(r);
        let text = format!(
            "{} {} {} {:<6}{:<13}{:>7}",
            status_mark(s, r, spinner),
            clip(&persona, persona_w),
            clip(scenario, scenario_w),
            turn,
            verdict,
            r.duration().map(duration).unwrap_or_default()
        );
        let style = if Some(i) == selected {
            theme.selected()
        } else {
            r.verdict.map(|v| verdict_style(v, theme)).unwrap_or(theme.base())
        };
        lines.push(Line::styled(text, style));
    }
    frame.render_widget(Paragraph::new(lines), inner);
    let rows_area = Rect {
        y: inner.y.saturating_add(1),
        height: inner.height.saturating_sub(1),
        ..inner
    };
    (rows_area, start)
}
