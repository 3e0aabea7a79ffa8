//! The bordered, titled panel every screen draws its parts in.

use super::theme::Theme;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders};

/// A bordered block titled in the theme's accent colour.
pub fn block<'a>(title: String, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border())
        .title(Span::styled(title, theme.accent()))
}
