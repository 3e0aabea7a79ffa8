//! The key-hint footer: hints are `key action` groups joined by ` · `, wrapped between groups
//! so no key is cut off on a narrow terminal (80 columns gives two lines, rarely three).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

use super::theme::Theme;

/// Most lines the footer takes.
pub(crate) const MAX_LINES: usize = 3;

/// `hints` wrapped to `width` columns at the ` · ` between groups.
pub(crate) fn footer_lines(hints: &str, width: u16) -> Vec<String> {
    let width = width.max(1) as usize;
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for group in hints.split(" · ") {
        let joined = if line.is_empty() {
            group.to_string()
        } else {
            format!("{line} · {group}")
        };
        if joined.chars().count() <= width || line.is_empty() {
            line = joined;
        } else {
            lines.push(std::mem::replace(&mut line, group.to_string()));
        }
    }
    lines.push(line);
    lines
}

/// Rows the footer of `hints` needs at `width`.
pub(crate) fn footer_height(hints: &str, width: u16) -> u16 {
    footer_lines(hints, width).len().min(MAX_LINES) as u16
}

/// Draws the wrapped hints into `area` (as tall as [`footer_height`]).
pub(crate) fn draw_footer(frame: &mut Frame, hints: &str, theme: &Theme, area: Rect) {
    let text = footer_lines(hints, area.width).join("\n");
    frame.render_widget(Paragraph::new(text).style(theme.muted()), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_wrap_between_groups_and_keep_every_key() {
        let hints = "Enter accept · ↑↓ move · a add · e edit · d drop · r regen one · R regen all · h hint";
        let lines = footer_lines(hints, 40);
        assert!(lines.iter().all(|l| l.chars().count() <= 40), "{lines:?}");
        assert_eq!(lines.join(" · "), hints);
        assert_eq!(footer_lines("q quit", 80), ["q quit"]);
        assert_eq!(footer_height(hints, 200), 1);
    }
}
