//! Drawing the wizard: a pure function of the lab state, the UI-only state and the theme.
//!
//! Layout: step list on the left, the current step's panel on the right, key hints on the last
//! row. Below 50×12 cells it shows only how much room it needs, so a resize never panics.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Text};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::dashboard::{RunGeometry, draw_dashboard};
use super::panel::block;
use super::results::draw_results;
use super::theme::Theme;
use super::ui_state::Ui;
use crate::lab::dashboard_state::Screen;
use crate::lab::review::ItemEdit;
use crate::lab::{Discovery, Lab, Phase, Proposal, RunOutcome, StepId};

/// Smallest usable terminal.
pub const MIN_WIDTH: u16 = 50;
pub const MIN_HEIGHT: u16 = 12;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The spinner frame for a tick count.
pub fn spinner(tick: u64) -> &'static str {
    SPINNER[(tick % SPINNER.len() as u64) as usize]
}

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
    let hint_text = key_hints(lab, ui);
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
    draw_main(frame, lab, ui, theme, main);
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

fn phase_name(phase: &Phase) -> &'static str {
    match phase {
        Phase::Proposing { .. } => "proposing",
        Phase::Deciding { .. } => "deciding",
        Phase::Editing { .. } => "editing",
        Phase::Failed { .. } => "failed",
        Phase::Running { outcome: None, .. } => "running",
        Phase::Running { .. } => "finished",
    }
}

/// Whether the step list is shown in full by default: it gives way below 100 columns, and
/// during the run below 140, so names in the panes get the room (`s` toggles it).
pub fn sidebar_fits(lab: &Lab, width: u16) -> bool {
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

fn draw_main(frame: &mut Frame, lab: &Lab, ui: &Ui, theme: &Theme, area: Rect) {
    let step = lab.step;
    let title = format!(" {}/12 {} — {} ", step.number(), step.title(), phase_name(&lab.phase));
    let outer = block(title, theme);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    match &lab.phase {
        Phase::Proposing { tick } => {
            let text = vec![
                Line::styled(
                    format!("{} Preparing the proposal for {}…", spinner(*tick), step.title()),
                    theme.accent(),
                ),
                Line::raw(""),
                Line::styled("Esc cancels; nothing is lost: accepted steps are saved.", theme.muted()),
            ];
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
        }
        Phase::Deciding {
            proposal,
            notice,
            confirm,
        } => {
            let status = status_lines(lab, notice.as_deref(), confirm.as_deref(), theme);
            if draw_review(frame, lab, ui, theme, inner, proposal, &status) {
                return;
            }
            let notes_h = notes_height(&proposal.notes, inner, 2);
            let [answer, notes, status_area] = Layout::vertical([
                Constraint::Min(3),
                Constraint::Length(notes_h),
                Constraint::Length(status_height(&status, inner)),
            ])
            .areas(inner);
            let label = if proposal.editable {
                " Proposal "
            } else {
                " Resolved config (read-only) "
            };
            super::scroll::draw_scrolled(
                frame,
                Paragraph::new(proposal.text.as_str()).style(theme.base()),
                block(label.into(), theme),
                ui.proposal_scroll,
                &ui.proposal_max,
                answer,
            );
            draw_notes(frame, &proposal.notes, theme, notes);
            frame.render_widget(Paragraph::new(status).wrap(Wrap { trim: false }), status_area);
        }
        Phase::Editing { proposal, notice, .. } => {
            let status = status_lines(lab, notice.as_deref(), None, theme);
            let notes_h = notes_height(&proposal.notes, inner, 3);
            let [editor, notes, status_area] = Layout::vertical([
                Constraint::Min(3),
                Constraint::Length(notes_h),
                Constraint::Length(status_height(&status, inner)),
            ])
            .areas(inner);
            if let Some(ed) = &ui.editor {
                let title = match &lab.review.editing {
                    Some(ItemEdit::Add) => " Editing a new item (YAML of one) ".to_string(),
                    Some(ItemEdit::Edit(id)) => format!(" Editing `{id}` "),
                    None => " Editing ".to_string(),
                };
                let b = block(title, theme);
                let ed_inner = b.inner(editor);
                frame.render_widget(b, editor);
                frame.render_widget(ed, ed_inner);
            }
            draw_notes(frame, &proposal.notes, theme, notes);
            frame.render_widget(Paragraph::new(status).wrap(Wrap { trim: false }), status_area);
        }
        Phase::Failed { error } => {
            let text = vec![
                Line::styled("The proposal could not be made:", theme.error()),
                Line::raw(""),
                Line::styled(error.as_str(), theme.base()),
                Line::raw(""),
                Line::styled(
                    "r retries; h regenerates with a hint. Earlier steps are saved.",
                    theme.muted(),
                ),
            ];
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
        }
        Phase::Running {
            dashboard,
            tick,
            outcome,
        } => {
            let [pane, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(inner);
            let geometry = match outcome {
                Some(RunOutcome::Report(r)) if dashboard.screen == Screen::Results => RunGeometry {
                    results_max: draw_results(frame, r, Some(&lab.findings), dashboard.results_scroll, theme, pane),
                    ..RunGeometry::default()
                },
                _ => draw_dashboard(frame, dashboard, outcome.is_none().then(|| spinner(*tick)), theme, pane),
            };
            ui.run_geometry.set(geometry);
            let line = match (outcome, &ui.run_notice) {
                (None, _) => Line::styled(format!("{} Running the suite…", spinner(*tick)), theme.accent()),
                (Some(_), Some(n)) => Line::styled(n.clone(), theme.accent()),
                (Some(RunOutcome::Report(r)), None) => Line::styled(
                    format!("✓ Finished: gates {}", if r.gates_met { "met" } else { "NOT met" }),
                    if r.gates_met { theme.ok() } else { theme.error() },
                ),
                (Some(RunOutcome::Failed(e)), None) => Line::styled(format!("✗ The run failed: {e}"), theme.error()),
            };
            frame.render_widget(Paragraph::new(line), status);
        }
    }
}

/// Steps 8–10 drawn as review screens, when their proposal parses; false leaves the raw text.
fn draw_review(
    frame: &mut Frame,
    lab: &Lab,
    ui: &Ui,
    theme: &Theme,
    area: Rect,
    proposal: &Proposal,
    status: &[Line],
) -> bool {
    match lab.step {
        StepId::Profile => match super::profile_view::parse(proposal) {
            Some(p) => super::profile_view::draw(frame, proposal, &p, ui, theme, area, status),
            None => return false,
        },
        StepId::Personas | StepId::Scenarios => match crate::lab::review::items(lab.step, &proposal.text) {
            Some(items) if lab.step == StepId::Personas => {
                super::personas::draw(frame, proposal, &items, ui, theme, area, status)
            }
            Some(items) => super::scenarios::draw(frame, lab, &items, ui, theme, area, status),
            None => return false,
        },
        _ => return false,
    }
    true
}

/// Rows the notes need when wrapped, at most `1/share` of the panel (the answer keeps the rest).
fn notes_height(notes: &[String], inner: Rect, share: u16) -> u16 {
    let width = inner.width.saturating_sub(2).max(1) as usize;
    let rows: usize = notes.iter().map(|n| n.chars().count().max(1).div_ceil(width)).sum();
    (rows as u16 + 2).min(inner.height / share).max(3)
}

/// Rows the status lines take once wrapped to `inner`'s width (a server's line with its lint
/// result is longer than a narrow panel), so no line below a wrapped one is cut off.
fn status_height(status: &[Line], inner: Rect) -> u16 {
    let rows = Paragraph::new(status.to_vec())
        .wrap(Wrap { trim: false })
        .line_count(inner.width);
    (rows as u16).min(inner.height / 2)
}

fn draw_notes(frame: &mut Frame, notes: &[String], theme: &Theme, area: Rect) {
    let lines: Vec<Line> = notes.iter().map(|n| Line::styled(n.as_str(), theme.muted())).collect();
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(" Notes ".into(), theme)),
        area,
    );
}

fn status_lines<'a>(lab: &Lab, notice: Option<&'a str>, confirm: Option<&'a str>, theme: &Theme) -> Vec<Line<'a>> {
    let mut out = Vec::new();
    if lab.step == StepId::Mcps {
        for (server, d) in &lab.discovery {
            let (text, style) = match d {
                Discovery::Pending => (format!("… {server}: discovering"), theme.accent()),
                Discovery::Found(d) => (
                    format!(
                        "✓ {server}: {} tools, {} resources, {} prompts · {}",
                        d.capabilities.tools.len(),
                        d.capabilities.resources.len(),
                        d.capabilities.prompts.len(),
                        crate::lab::contract_lint::lint_line(&d.lint)
                    ),
                    // Error-level findings are worth a second look before accepting.
                    if d.lint.counts.error > 0 {
                        theme.warn()
                    } else {
                        theme.ok()
                    },
                ),
                Discovery::Failed(e) => (format!("✗ {server}: {e}"), theme.warn()),
                Discovery::Invalid(e) => (format!("✗ {server}: {e} (fix it to accept)"), theme.error()),
                Discovery::Skipped => (format!("- {server}: skipped"), theme.muted()),
            };
            out.push(Line::styled(text, style));
        }
    }
    if let Some(n) = notice {
        out.push(Line::styled(format!("! {n}"), theme.error()));
    }
    if let Some(c) = confirm {
        out.push(Line::styled(format!("⚠ {c}"), theme.warn()));
    }
    out
}

/// The key hints for the current screen.
pub fn key_hints(lab: &Lab, ui: &Ui) -> String {
    if let Some(bulk) = &ui.bulk {
        return format!("{}? y yes · any other key no", bulk.what);
    }
    let hints = screen_hints(lab, ui);
    match &ui.feedback {
        Some(done) => format!("✓ {done} · {hints}"),
        None => hints,
    }
}

fn screen_hints(lab: &Lab, ui: &Ui) -> String {
    if ui.help {
        return "any key closes the help".into();
    }
    if lab.confirm_quit {
        return "y quit (accepted steps are saved) · n stay".into();
    }
    if ui.hint.is_some() {
        return "Enter regenerate with this hint · Esc cancel".into();
    }
    if let Phase::Running { dashboard, .. } = &lab.phase
        && dashboard.confirm_cancel
    {
        return "y cancel the run · n keep running".into();
    }
    let back = if lab.step.prev().is_some_and(|p| lab.is_completed(p)) {
        " · b back"
    } else {
        ""
    };
    match &lab.phase {
        Phase::Proposing { .. } => "Esc cancel · Ctrl-C quit".into(),
        Phase::Deciding { confirm: Some(_), .. } => "Enter confirm · Esc back out · Ctrl-C quit".into(),
        Phase::Deciding { .. } if super::review_keys::hints(lab).is_some() && ui.search.is_some() => {
            super::list_search::hint(ui).unwrap_or_default()
        }
        Phase::Deciding { .. } if super::review_keys::hints(lab).is_some() => {
            format!("{}{back} · ^C quit", super::review_keys::hints(lab).unwrap_or_default())
        }
        Phase::Deciding { proposal, .. } => {
            let mut keys = vec!["Enter accept"];
            if proposal.editable {
                keys.push("e edit");
                keys.push("r regen");
                keys.push("h regen+hint");
            }
            if lab.discovery.values().any(|d| *d == Discovery::Pending) {
                keys.push("Esc skip discovery");
            }
            keys.push("↑↓ scroll");
            format!("{}{back} · ? help · ^C quit", keys.join(" · "))
        }
        Phase::Editing { .. } if lab.review.editing.is_some() => {
            "Ctrl-S save this item · Esc cancel edit · Ctrl-C quit".into()
        }
        Phase::Editing { .. } => "Ctrl-S save & accept · Esc cancel edit · Ctrl-C quit".into(),
        Phase::Failed { .. } => format!("r retry · h regenerate with hint{back} · Ctrl-C quit"),
        Phase::Running { outcome: None, .. } => {
            "↑↓ case · PgUp/Dn scroll · Enter expand · f follow · p pin · Esc cancel run · ? help · Ctrl-C quit".into()
        }
        Phase::Running {
            outcome: Some(RunOutcome::Report(_)),
            dashboard,
            ..
        } if dashboard.screen == Screen::Results => {
            "↑↓ scroll · Tab finding · a accept · w waive · o open report · d dashboard · ? help · q quit".into()
        }
        Phase::Running {
            outcome: Some(RunOutcome::Report(_)),
            ..
        } => "↑↓ case · PgUp/Dn scroll · Enter expand · f follow · p pin · r results · o open report · ? help · q quit"
            .into(),
        Phase::Running { .. } => "↑↓ case · f follow · p pin · q quit".into(),
    }
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
