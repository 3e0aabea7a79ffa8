//! Drawing the wizard: a pure function of the lab state, the UI-only state and the theme.
//!
//! Layout: step list on the left, the current step's panel on the right, key hints on the last
//! row. Below 50×12 cells it shows only how much room it needs, so a resize never panics.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Text};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::panel::{block, spinner};
use super::theme::Theme;
use super::ui_state::Ui;
use crate::lab::{Lab, Phase, StepId};

/// Smallest usable terminal.
pub(crate) const MIN_WIDTH: u16 = 50;
pub(crate) const MIN_HEIGHT: u16 = 12;

/// Draws one frame.
pub fn draw(frame: &mut Frame, lab: &Lab, ui: &Ui, theme: &Theme) {
    let area = frame.area();
    frame.render_widget(Block::default().style(theme.base()), area);
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "Terminal too small: {}×{}, need {MIN_WIDTH}×{MIN_HEIGHT}. Resize, or Ctrl-C to quit.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(msg).style(theme.warn()).wrap(Wrap { trim: true }), area);
        return;
    }
    let hint_text = super::key_hints::key_hints(lab, ui);
    let [body, hints] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(super::footer::footer_height(&hint_text, area.width)),
    ])
    .areas(area);
    let auto = sidebar_fits(lab, body.width);
    ui.sidebar_auto.set(auto);
    let full = ui.sidebar.unwrap_or(auto);
    let list_width = match (full, body.width >= 90) {
        (false, _) => 6,
        (true, true) => 29,
        (true, false) => 22,
    };
    let [list, main] = Layout::horizontal([Constraint::Length(list_width), Constraint::Min(0)]).areas(body);
    ui.steps_area.set(list);
    draw_steps(frame, lab, theme, list, full);
    super::step_panel::draw_step_panel(frame, lab, ui, theme, main);
    super::footer::draw_footer(frame, &hint_text, theme, hints);
    if ui.hint.is_some() {
        draw_hint_prompt(frame, ui, theme, body);
    }
    if ui.help {
        let entries = super::help::lab_help(lab, ui);
        super::help::draw_help(frame, &super::help::lab_help_title(lab), &entries, theme, body);
    }
    if lab.confirm_quit {
        draw_confirm_quit(frame, theme, body);
    } else if let Phase::Running { dashboard, .. } = &lab.phase
        && dashboard.confirm_cancel
    {
        draw_confirm_cancel(frame, dashboard.done(), dashboard.total(), theme, body);
    }
}

/// Whether the step list is shown in full by default: it gives way below 100 columns, and
/// during the run below 140, so names in the panes get the room (`s` toggles it).
pub(crate) fn sidebar_fits(lab: &Lab, width: u16) -> bool {
    let need = if matches!(lab.phase, Phase::Running { .. }) {
        140
    } else {
        100
    };
    width >= need
}

fn draw_steps(frame: &mut Frame, lab: &Lab, theme: &Theme, area: Rect, full: bool) {
    let lines: Vec<Line> = StepId::ALL
        .iter()
        .map(|&step| {
            let current = step == lab.step;
            let (mark, style) = if current {
                let mark = match &lab.phase {
                    Phase::Proposing { tick }
                    | Phase::Running {
                        tick, outcome: None, ..
                    } => spinner(*tick),
                    Phase::Failed { .. } => "✗",
                    Phase::Editing { .. } => "✎",
                    _ => "▶",
                };
                (mark, theme.selected())
            } else if lab.is_completed(step) {
                ("✓", theme.ok())
            } else {
                ("·", theme.muted())
            };
            if full {
                Line::styled(format!("{mark} {:>2} {}", step.number(), step.title()), style)
            } else {
                Line::styled(format!("{mark}{:>3}", step.number()), style)
            }
        })
        .collect();
    let title = if full { " Steps " } else { "" };
    frame.render_widget(Paragraph::new(lines).block(block(title.into(), theme)), area);
}

fn popup(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h)
}

fn draw_hint_prompt(frame: &mut Frame, ui: &Ui, theme: &Theme, area: Rect) {
    let Some(hint) = &ui.hint else { return };
    let r = popup(area, 60, 5);
    frame.render_widget(Clear, r);
    let b = block(" Regenerate with a hint ".into(), theme);
    let inner = b.inner(r);
    frame.render_widget(b, r);
    frame.render_widget(hint, inner);
}

fn draw_confirm_cancel(frame: &mut Frame, done: usize, total: usize, theme: &Theme, area: Rect) {
    let r = popup(area, 52, 6);
    frame.render_widget(Clear, r);
    let text = Text::from(vec![
        Line::styled("Cancel the run?", theme.warn()),
        Line::raw(format!("{done} of {total} trials finished; they are kept")),
        Line::raw("in the run folder. The others are cancelled."),
        Line::styled("y cancel the run · n keep running", theme.muted()),
    ]);
    frame.render_widget(
        Paragraph::new(text)
            .style(theme.base())
            .block(block(" Cancel? ".into(), theme)),
        r,
    );
}

fn draw_confirm_quit(frame: &mut Frame, theme: &Theme, area: Rect) {
    let r = popup(area, 52, 6);
    frame.render_widget(Clear, r);
    let text = Text::from(vec![
        Line::styled("Quit the lab?", theme.warn()),
        Line::raw("Accepted steps are saved in job.yaml;"),
        Line::raw("`ghostlab lab --resume` continues here."),
        Line::styled("y quit · n stay", theme.muted()),
    ]);
    frame.render_widget(
        Paragraph::new(text)
            .style(theme.base())
            .block(block(" Quit? ".into(), theme)),
        r,
    );
}
