//! The results screen after a run (and in `ghostlab view`): readiness, the gates table with
//! required vs actual, every trial's verdict with the first failing criterion and its evidence,
//! and the report files. A pure function of `RunResults`; `o` opens the HTML report.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use std::path::{Path, PathBuf};

use super::dashboard::duration;
use super::theme::Theme;
use super::theme::verdict_style;
use crate::app::RunResults;
use crate::lab::findings_review::FindingsReview;
use crate::mcp::contract::decisions::Verdict as Decided;
use crate::trial::Verdict;

/// Draws the results into `area`, `scroll` rows down (never past the last screenful); returns
/// the largest scroll that still shows a full screen. `findings`: the lab's decisions on the
/// contract's findings (`ghostlab view` is read-only and shows none).
pub(crate) fn draw_results(
    frame: &mut Frame,
    r: &RunResults,
    findings: Option<&FindingsReview>,
    scroll: u16,
    theme: &Theme,
    area: Rect,
) -> u16 {
    let b = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border())
        .title(Span::styled(format!(" Results of run {} ", r.run_id), theme.accent()));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let mut lines = result_lines(r, theme);
    if let Some(f) = findings {
        lines.extend(finding_lines(f, theme));
    }
    let text = Paragraph::new(lines).wrap(Wrap { trim: false });
    let rows = text.line_count(inner.width);
    let max = rows.saturating_sub(inner.height as usize).min(u16::MAX as usize) as u16;
    frame.render_widget(text.scroll((scroll.min(max), 0)), inner);
    max
}

/// Every line of the results screen.
pub(crate) fn result_lines(r: &RunResults, theme: &Theme) -> Vec<Line<'static>> {
    let ready = if r.readiness.ready { theme.ok() } else { theme.error() };
    let mut out = vec![
        Line::styled(r.readiness.label.clone(), ready),
        Line::styled(r.line.clone(), theme.base()),
        Line::styled(r.readiness.reasons.join("; "), theme.muted()),
        Line::raw(""),
    ];
    if !r.gates.is_empty() {
        out.push(Line::styled(
            format!("{:<30} {:<14} {:<14} {}", "gate", "required", "actual", "met"),
            theme.muted(),
        ));
    }
    for g in &r.gates {
        let (mark, style) = if g.met {
            ("✓ met", theme.ok())
        } else {
            ("✗ NOT met", theme.error())
        };
        out.push(Line::from(vec![
            Span::styled(
                format!("{:<30} {:<14} {:<14} ", g.gate, g.required, g.actual),
                theme.base(),
            ),
            Span::styled(mark, style),
        ]));
    }
    out.push(Line::raw(""));
    for t in &r.trials {
        out.push(Line::from(vec![
            Span::styled(format!("{:<13}", t.verdict.as_str()), verdict_style(t.verdict, theme)),
            Span::styled(
                format!("{} (trial {}, {})", t.case, t.trial, duration(t.duration_ms)),
                theme.base(),
            ),
        ]));
        if let Some(f) = &t.first_failure
            && t.verdict != Verdict::Pass
        {
            out.push(Line::styled(format!("    {}: {}", f.criterion, f.text), theme.base()));
            for e in f.evidence.iter().take(2) {
                let e = e.lines().next().unwrap_or("");
                out.push(Line::styled(format!("      evidence: {e}"), theme.muted()));
            }
        }
    }
    out.push(Line::raw(""));
    for p in &r.reports {
        out.push(Line::styled(format!("report {}", p.display()), theme.accent()));
    }
    if let Some(e) = &r.report_error {
        out.push(Line::styled(format!("report not written: {e}"), theme.error()));
    }
    out
}

/// The contract's findings with what was decided on each, the selected one marked, and the
/// reason being typed (`a` accept, `w` waive, Tab/Shift-Tab select, Enter record, Esc drop).
pub fn finding_lines(f: &FindingsReview, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::raw(""), Line::styled("Contract findings", theme.accent())];
    match &f.rows {
        None => out.push(Line::styled("reading the contract…", theme.muted())),
        Some(rows) if rows.is_empty() => out.push(Line::styled("no contract findings", theme.muted())),
        Some(rows) => {
            for (i, row) in rows.iter().enumerate() {
                let mark = if i == f.selected { "▶ " } else { "  " };
                let style = if row.counts { theme.base() } else { theme.muted() };
                out.push(Line::styled(
                    format!("{mark}{:<8} {}  {}", row.severity, row.id, row.message),
                    style,
                ));
                out.push(Line::styled(format!("      [{}]", row.standing), theme.muted()));
            }
        }
    }
    if let Some(p) = &f.prompt {
        let word = match p.verdict {
            Decided::Accepted => "Accept",
            Decided::Waived => "Waive",
        };
        out.push(Line::styled(
            format!("{word} {} because: {}▏", p.finding, p.reason),
            theme.accent(),
        ));
        out.push(Line::styled("Enter records it · Esc drops it", theme.muted()));
    } else if f.pending {
        out.push(Line::styled("recording the decision…", theme.muted()));
    } else if f.rows.as_ref().is_some_and(|r| !r.is_empty()) {
        out.push(Line::styled(
            "Tab/Shift-Tab select · a accept · w waive (with a reason; shown in the report)",
            theme.muted(),
        ));
    }
    match &f.notice {
        Some(Ok(n)) => out.push(Line::styled(n.clone(), theme.ok())),
        Some(Err(e)) => out.push(Line::styled(e.to_string(), theme.error())),
        None => {}
    }
    out
}

/// What `o` does: launch a viewer when a desktop is there, else say where the file is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OpenAction {
    Launch(PathBuf),
    ShowPath(PathBuf),
    NoReport,
}

/// Decides `o` from the HTML report and whether DISPLAY or WAYLAND_DISPLAY is set.
pub(crate) fn open_action(html: Option<&Path>, desktop: bool) -> OpenAction {
    match html {
        None => OpenAction::NoReport,
        Some(p) if desktop => OpenAction::Launch(p.to_path_buf()),
        Some(p) => OpenAction::ShowPath(p.to_path_buf()),
    }
}

/// Whether a graphical session is there to open a browser in.
pub(crate) fn desktop_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}

/// Performs `o`; returns the line to show.
pub(crate) fn open_report(r: &RunResults) -> String {
    match open_action(r.html_report(), desktop_available()) {
        OpenAction::NoReport => "no HTML report in this run".into(),
        OpenAction::ShowPath(p) => format!("no desktop here; the report is {}", p.display()),
        OpenAction::Launch(p) => {
            let spawned = std::process::Command::new("xdg-open")
                .arg(&p)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn();
            match spawned {
                Ok(mut child) => {
                    // Reap the opener when it exits; the browser it starts lives on.
                    std::thread::spawn(move || child.wait());
                    format!("opened {}", p.display())
                }
                Err(e) => format!("xdg-open failed ({e}); the report is {}", p.display()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn o_launches_only_with_a_desktop() {
        let p = Path::new("/r/report.html");
        assert_eq!(open_action(Some(p), true), OpenAction::Launch(p.into()));
        assert_eq!(open_action(Some(p), false), OpenAction::ShowPath(p.into()));
        assert_eq!(open_action(None, true), OpenAction::NoReport);
    }
}
