//! The run dashboard (step 12 and `ghostlab view`): a header with the progress gauge and live
//! verdict counts, the case table, and the selected trial's transcript coloured by event kind.
//! A pure function of `DashboardState`; only visible rows and transcript lines are formatted,
//! so a frame costs the same for 5 trials as for 500.

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::panel::block;
use super::theme::Theme;
use crate::lab::dashboard_state::{CaseRow, Coverage, DashboardState, Nav, Selection};
use crate::trial::{RunEvent, ToolStatus, Verdict};

/// What a key asks of a run screen.
#[derive(Debug, Clone, PartialEq)]
pub enum RunKey {
    Nav(Nav),
    /// `o`: open the HTML report (or show its path).
    OpenReport,
    /// Esc while the run is live: cancel it.
    Cancel,
    Quit,
}

/// The keys shared by the lab's step 12 and `ghostlab view`.
pub fn run_key(code: KeyCode, live: bool, has_results: bool) -> Option<RunKey> {
    Some(match code {
        KeyCode::Up | KeyCode::Char('k') => RunKey::Nav(Nav::Up),
        KeyCode::Down | KeyCode::Char('j') => RunKey::Nav(Nav::Down),
        KeyCode::Char('f') | KeyCode::End => RunKey::Nav(Nav::Follow),
        KeyCode::Char('p') => RunKey::Nav(Nav::Pin),
        KeyCode::Char('r') | KeyCode::Tab if has_results => RunKey::Nav(Nav::ShowResults),
        KeyCode::Char('d') => RunKey::Nav(Nav::ShowDashboard),
        KeyCode::Char('o') if has_results => RunKey::OpenReport,
        KeyCode::Esc if live => RunKey::Cancel,
        KeyCode::Char('q') => RunKey::Quit,
        _ => return None,
    })
}

/// `12m05s`, `3.2s`.
pub fn duration(ms: u64) -> String {
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

pub fn verdict_style(v: Verdict, theme: &Theme) -> Style {
    match v {
        Verdict::Pass => theme.ok(),
        Verdict::Fail => theme.error(),
        Verdict::Inconclusive | Verdict::InfraError => theme.warn(),
    }
}

/// Draws the dashboard into `area`. `spinner` is the frame of a live run, `None` once it ended.
pub fn draw_dashboard(frame: &mut Frame, s: &DashboardState, spinner: Option<&str>, theme: &Theme, area: Rect) {
    let [header, body] = Layout::vertical([Constraint::Length(2), Constraint::Min(3)]).areas(area);
    frame.render_widget(Paragraph::new(header_lines(s, spinner, theme, header.width)), header);
    let (table, transcript) = if body.width >= 110 {
        let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
        (a, b)
    } else {
        let [a, b] = Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(body);
        (a, b)
    };
    draw_table(frame, s, spinner, theme, table);
    draw_transcript(frame, s, theme, transcript);
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

fn status_mark(r: &CaseRow, spinner: Option<&str>) -> String {
    match r.verdict {
        Some(Verdict::Pass) => "✓".into(),
        Some(Verdict::Fail) => "✗".into(),
        Some(Verdict::Inconclusive) => "?".into(),
        Some(Verdict::InfraError) => "!".into(),
        None => spinner.unwrap_or("■").to_string(),
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

fn draw_table(frame: &mut Frame, s: &DashboardState, spinner: Option<&str>, theme: &Theme, area: Rect) {
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
            status_mark(r, spinner),
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
}

/// The lines of one event: first line plus, for tool calls, the result.
fn event_lines(e: &RunEvent, theme: &Theme) -> Vec<Line<'static>> {
    let first = |t: &str| t.lines().next().unwrap_or("").to_string();
    let l = |text: String, style: Style| Line::styled(text, style);
    match e {
        RunEvent::UserMessage { turn, text, .. } => vec![l(format!("[{turn}] user: {}", first(text)), theme.accent())],
        RunEvent::AgentMessage { turn, text, .. } => vec![l(format!("[{turn}] agent: {}", first(text)), theme.base())],
        RunEvent::ToolCall {
            turn,
            tool,
            arguments,
            result,
            status,
            ..
        } => {
            let style = match status {
                ToolStatus::Completed => theme.muted(),
                ToolStatus::Error => theme.warn(),
                ToolStatus::DeniedByHost => theme.error(),
            };
            let label = match status {
                ToolStatus::Completed => "",
                ToolStatus::Error => " ERROR",
                ToolStatus::DeniedByHost => " DENIED",
            };
            vec![
                l(format!("[{turn}] tool {tool}({arguments}){label}"), style),
                l(format!("      → {}", first(result)), style),
            ]
        }
        RunEvent::UserRefusal { turn, about } => {
            vec![l(format!("[{turn}] user refused: {}", first(about)), theme.warn())]
        }
        RunEvent::EgressDenied { host, port, .. } => vec![l(format!("✗ egress denied {host}:{port}"), theme.error())],
        RunEvent::EmulatorBreak { turn, kind, evidence } => vec![l(
            format!(
                "[{turn}] integrity: user emulator broke character ({kind}): {}",
                first(evidence)
            ),
            theme.warn(),
        )],
        RunEvent::InfraError { component, reason } => {
            vec![l(
                format!("! infrastructure error in {component}: {reason}"),
                theme.error(),
            )]
        }
        RunEvent::CaseFinished { verdict, .. } => {
            vec![l(e.one_line().trim().to_string(), verdict_style(*verdict, theme))]
        }
        other => vec![l(other.one_line().trim().to_string(), theme.muted())],
    }
}

fn draw_transcript(frame: &mut Frame, s: &DashboardState, theme: &Theme, area: Rect) {
    let Some(row) = s.selected().map(|i| &s.rows[i]) else {
        let b = block(" Transcript ".into(), theme);
        let inner = b.inner(area);
        frame.render_widget(b, area);
        frame.render_widget(
            Paragraph::new(Line::styled(
                if s.rows.is_empty() {
                    "No trial has started yet."
                } else {
                    "No trial matches the filter."
                },
                theme.muted(),
            )),
            inner,
        );
        return;
    };
    let focus = &s.focus;
    let dropped = if focus.dropped > 0 {
        format!(", {} older in events.jsonl", focus.dropped)
    } else {
        String::new()
    };
    let trial = if row.trial > 0 {
        format!(" trial {}", row.trial)
    } else {
        String::new()
    };
    let b = block(format!(" {}{trial}{dropped} ", row.case), theme);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let note = match &focus.coverage {
        Coverage::Whole => None,
        Coverage::Loading { earlier } => Some(format!("… reading {earlier} earlier events from events.jsonl")),
        Coverage::SinceSelected { earlier, why } => Some(format!(
            "… {earlier} earlier events not shown ({why}); what arrived since it was selected:"
        )),
    };
    let events = if focus.row == s.selected() {
        &focus.events
    } else {
        &std::collections::VecDeque::new()
    };
    // From the newest event back until the pane is full: only what shows is formatted.
    let height = (inner.height as usize).saturating_sub(usize::from(note.is_some()));
    let mut lines: Vec<Line> = Vec::with_capacity(height + 1);
    for e in events.iter().rev() {
        let mut ls = event_lines(&e.event, theme);
        while let Some(line) = ls.pop() {
            if lines.len() == height {
                break;
            }
            lines.push(line);
        }
        if lines.len() == height {
            break;
        }
    }
    lines.extend(note.map(|n| Line::styled(n, theme.warn())));
    lines.reverse();
    frame.render_widget(Paragraph::new(lines), inner);
}
