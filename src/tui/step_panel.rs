//! The current step's panel: what each phase of a step shows (a proposal being prepared, one
//! to decide on, the editor, a failure, the run), with the proposal's notes and status lines.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::dashboard::{RunGeometry, draw_dashboard};
use super::panel::{block, spinner};
use super::results::draw_results;
use super::theme::Theme;
use super::ui_state::Ui;
use crate::lab::dashboard_state::{DashboardState, Screen};
use crate::lab::review::ItemEdit;
use crate::lab::{Discovery, Lab, Phase, Proposal, RunOutcome, StepId};

/// The current step's panel: its title names the step and the phase, its body is the phase's.
pub(super) fn draw_step_panel(frame: &mut Frame, lab: &Lab, ui: &Ui, theme: &Theme, area: Rect) {
    let step = lab.step;
    let title = format!(" {}/12 {} — {} ", step.number(), step.title(), phase_name(&lab.phase));
    let outer = block(title, theme);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    match &lab.phase {
        Phase::Proposing { tick } => draw_proposing(frame, step, *tick, theme, inner),
        Phase::Deciding {
            proposal,
            notice,
            confirm,
        } => {
            let status = status_lines(lab, notice.as_deref(), confirm.as_deref(), theme);
            if !draw_review(frame, lab, ui, theme, inner, proposal, &status) {
                draw_proposal(frame, proposal, &status, ui, theme, inner);
            }
        }
        Phase::Editing { proposal, notice, .. } => {
            let status = status_lines(lab, notice.as_deref(), None, theme);
            draw_editing(frame, lab, proposal, status, ui, theme, inner);
        }
        Phase::Failed { error } => draw_failed(frame, error, theme, inner),
        Phase::Running {
            dashboard,
            tick,
            outcome,
        } => draw_running(frame, lab, dashboard, *tick, outcome.as_ref(), ui, theme, inner),
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

fn draw_proposing(frame: &mut Frame, step: StepId, tick: u64, theme: &Theme, inner: Rect) {
    let text = vec![
        Line::styled(
            format!("{} Preparing the proposal for {}…", spinner(tick), step.title()),
            theme.accent(),
        ),
        Line::raw(""),
        Line::styled("Esc cancels; nothing is lost: accepted steps are saved.", theme.muted()),
    ];
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
}

/// A proposal as text (scrolled), its notes and the status lines below.
fn draw_proposal(frame: &mut Frame, proposal: &Proposal, status: &[Line], ui: &Ui, theme: &Theme, inner: Rect) {
    let notes_h = notes_height(&proposal.notes, inner, 2);
    let [answer, notes, status_area] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(notes_h),
        Constraint::Length(status_height(status, inner)),
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
    frame.render_widget(Paragraph::new(status.to_vec()).wrap(Wrap { trim: false }), status_area);
}

/// The editor (titled by what is edited: the whole answer, one item or a new one), notes, status.
fn draw_editing(
    frame: &mut Frame,
    lab: &Lab,
    proposal: &Proposal,
    status: Vec<Line>,
    ui: &Ui,
    theme: &Theme,
    inner: Rect,
) {
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

fn draw_failed(frame: &mut Frame, error: &str, theme: &Theme, inner: Rect) {
    let text = vec![
        Line::styled("The proposal could not be made:", theme.error()),
        Line::raw(""),
        Line::styled(error, theme.base()),
        Line::raw(""),
        Line::styled(
            "r retries; h regenerates with a hint. Earlier steps are saved.",
            theme.muted(),
        ),
    ];
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
}

/// Step 12: the dashboard (or the results screen once there is a report) and one status line.
#[allow(clippy::too_many_arguments)]
fn draw_running(
    frame: &mut Frame,
    lab: &Lab,
    dashboard: &DashboardState,
    tick: u64,
    outcome: Option<&RunOutcome>,
    ui: &Ui,
    theme: &Theme,
    inner: Rect,
) {
    let [pane, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(inner);
    let geometry = match outcome {
        Some(RunOutcome::Report(r)) if dashboard.screen == Screen::Results => RunGeometry {
            results_max: draw_results(frame, r, Some(&lab.findings), dashboard.results_scroll, theme, pane),
            ..RunGeometry::default()
        },
        _ => draw_dashboard(frame, dashboard, outcome.is_none().then(|| spinner(tick)), theme, pane),
    };
    ui.run_geometry.set(geometry);
    let line = match (outcome, &ui.run_notice) {
        (None, _) => Line::styled(format!("{} Running the suite…", spinner(tick)), theme.accent()),
        (Some(_), Some(n)) => Line::styled(n.clone(), theme.accent()),
        (Some(RunOutcome::Report(r)), None) => Line::styled(
            format!("✓ Finished: gates {}", if r.gates_met { "met" } else { "NOT met" }),
            if r.gates_met { theme.ok() } else { theme.error() },
        ),
        (Some(RunOutcome::Failed(e)), None) => Line::styled(format!("✗ The run failed: {e}"), theme.error()),
    };
    frame.render_widget(Paragraph::new(line), status);
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
