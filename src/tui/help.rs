//! The `?` overlay: every key of the current screen with what it does. The entries are the
//! tables the screens' handlers are checked against (`tests` below press every key on each
//! screen and require each accepted key to be listed), so the help cannot fall behind them.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::dashboard::{RunContext, run_help};
use super::panel::block;
use super::theme::Theme;
use super::ui_state::Ui;
use crate::lab::{Lab, Phase, RunOutcome, StepId};

/// One row of help: the keys (space-separated tokens, as the help spells them: `↑`, `PgUp`, `Enter`, a letter) and what
/// they do.
pub(crate) type HelpEntry = (&'static str, &'static str);

/// Keys every wizard screen has.
const GLOBAL: [HelpEntry; 3] = [
    ("?", "this help (any key closes it)"),
    ("s", "hide or show the step list"),
    ("Ctrl-C", "quit (asks first; accepted steps are saved)"),
];

/// The run screen's context inside the lab.
pub(crate) fn lab_run_context(lab: &Lab, ui: &Ui) -> Option<RunContext> {
    let Phase::Running { outcome, dashboard, .. } = &lab.phase else {
        return None;
    };
    Some(RunContext {
        live: outcome.is_none(),
        has_results: matches!(outcome, Some(RunOutcome::Report(_))),
        screen: dashboard.screen,
        geometry: ui.run_geometry.get(),
    })
}

/// The keys of the lab's current screen.
pub fn lab_help(lab: &Lab, ui: &Ui) -> Vec<HelpEntry> {
    let mut out: Vec<HelpEntry> = Vec::new();
    let back = ("b ←", "back to the previous step");
    match &lab.phase {
        Phase::Proposing { .. } => out.push(("Esc", "stop preparing the proposal")),
        Phase::Deciding { confirm: Some(_), .. } => {
            out.extend([("Enter", "confirm"), ("Esc", "back out")]);
        }
        Phase::Deciding { .. } if super::review_keys::review_items(lab).is_some() => {
            out.extend(super::list_search::help(ui));
            out.extend(super::review_keys::help(lab.step));
            out.extend([
                ("Enter", "accept the set"),
                back,
                ("Esc", "stop the work in flight"),
                ("q", "quit (asks first)"),
            ]);
        }
        Phase::Deciding { proposal, .. } => {
            out.push(("Enter", "accept"));
            if proposal.editable {
                out.extend([
                    ("e", "edit the answer"),
                    ("r", "regenerate"),
                    ("h", "regenerate with a hint"),
                ]);
            }
            out.extend([
                ("↑ ↓ j k", "scroll a line"),
                ("PgUp PgDn", "scroll a page"),
                ("Home End", "the start, the end"),
                back,
                ("Esc", "skip discovery in flight, back out of a question"),
                ("q", "quit (asks first)"),
            ]);
        }
        Phase::Editing { .. } => out.extend([
            ("Ctrl-S", "save"),
            ("Esc", "cancel the edit"),
            ("Enter", "a new line (typing edits the text)"),
        ]),
        Phase::Failed { .. } => out.extend([
            ("r Enter", "retry"),
            ("h", "regenerate with a hint"),
            back,
            ("q", "quit (asks first)"),
        ]),
        Phase::Running { .. } => {
            if let Some(cx) = lab_run_context(lab, ui) {
                if cx.has_results && cx.screen == crate::lab::dashboard_state::Screen::Results {
                    if lab.findings.typing() {
                        // Every other key is a letter of the reason here.
                        out.extend([
                            ("Enter", "record the decision with the reason typed"),
                            ("Esc", "drop the decision"),
                            ("Backspace", "delete a letter (typing writes the reason)"),
                        ]);
                        return out;
                    } else {
                        out.extend([
                            ("Tab", "the next contract finding (Shift-Tab: the one before)"),
                            (
                                "a",
                                "accept the selected finding: the risk is taken knowingly (asks why)",
                            ),
                            ("w", "waive the selected finding: it does not apply here (asks why)"),
                        ]);
                    }
                }
                out.extend(run_help(cx));
            }
        }
    }
    if !matches!(lab.phase, Phase::Editing { .. }) {
        out.extend(GLOBAL);
    }
    out
}

/// Draws `entries` as a centred overlay over `area`.
pub(crate) fn draw_help(frame: &mut Frame, title: &str, entries: &[HelpEntry], theme: &Theme, area: Rect) {
    let key_w = entries
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0)
        .min(20);
    let w = area.width.saturating_sub(4).min(90);
    let h = (entries.len() as u16 + 3).min(area.height);
    let r = Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h);
    frame.render_widget(Clear, r);
    let mut lines: Vec<Line> = entries
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!("{k:<key_w$}  "), theme.accent()),
                Span::styled(*what, theme.base()),
            ])
        })
        .collect();
    lines.push(Line::styled("any key closes this help", theme.muted()));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .style(theme.base())
            .block(block(format!(" Keys: {title} "), theme)),
        r,
    );
}

/// The title of the lab's help overlay.
pub(crate) fn lab_help_title(lab: &Lab) -> String {
    match lab.step {
        StepId::Preview if matches!(lab.phase, Phase::Running { .. }) => "the run".into(),
        s => format!("{} {}", s.number(), s.title()),
    }
}
