//! The bordered, titled panel every screen draws its parts in, and the spinner of work under way.

use super::theme::Theme;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders};

/// A bordered block titled in the theme's accent colour.
pub(crate) fn block<'a>(title: String, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border())
        .title(Span::styled(title, theme.accent()))
}

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The spinner frame for a tick count.
pub(crate) fn spinner(tick: u64) -> &'static str {
    SPINNER[(tick % SPINNER.len() as u64) as usize]
}
