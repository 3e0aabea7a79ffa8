//! Scrolled text panes that stop at their end: the frame measures the wrapped text, clamps the
//! offset it shows, and records the largest useful offset so the key handlers clamp theirs too
//! (a press past the end does nothing, and the way back takes one press, not many).

use std::cell::Cell;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Paragraph, Wrap};

/// Draws `text` wrapped inside `block`, `scroll` rows down but never past the last screenful;
/// stores that last useful offset in `limit`.
pub(crate) fn draw_scrolled(
    frame: &mut Frame,
    text: Paragraph,
    block: Block,
    scroll: u16,
    limit: &Cell<u16>,
    area: Rect,
) {
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let text = text.wrap(Wrap { trim: false });
    let max = max_scroll(text.line_count(inner.width), inner.height);
    limit.set(max);
    frame.render_widget(text.scroll((scroll.min(max), 0)), inner);
}

/// The largest offset that still fills a pane of `height` rows with `rows` rows of text.
pub(crate) fn max_scroll(rows: usize, height: u16) -> u16 {
    rows.saturating_sub(height as usize).min(u16::MAX as usize) as u16
}

/// `at + by` within `0..=max`.
pub(crate) fn step(at: u16, by: i32, max: u16) -> u16 {
    crate::lab::dashboard_state::scrolled(at, by, max)
}
