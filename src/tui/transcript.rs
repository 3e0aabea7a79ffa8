//! The live transcript pane: draws only the lines that fit, so a 10,000-event run costs the
//! same per frame as a 10-event one.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Widget};

use super::theme::Theme;
use crate::trial::{Envelope, Tone};

/// A window onto the transcript, `scroll` lines up from the newest.
pub struct TranscriptPane<'a> {
    pub events: &'a [Envelope],
    /// 0 follows the tail.
    pub scroll: usize,
    pub block: Block<'a>,
    pub theme: &'a Theme,
}

/// The `[start, end)` range of lines visible in a pane `height` rows tall.
pub fn visible_range(total: usize, height: usize, scroll: usize) -> (usize, usize) {
    let end = total.saturating_sub(scroll.min(total.saturating_sub(height.min(total))));
    (end.saturating_sub(height), end)
}

impl Widget for TranscriptPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let inner = self.block.inner(area);
        self.block.render(area, buf);
        let (start, end) = visible_range(self.events.len(), inner.height as usize, self.scroll);
        for (row, envelope) in self.events[start..end].iter().enumerate() {
            let style = match envelope.event.tone() {
                Tone::Bad => self.theme.error(),
                Tone::Good => self.theme.ok(),
                Tone::Warning => self.theme.warn(),
                Tone::Plain => self.theme.base(),
            };
            let y = inner.y + row as u16;
            // One line per event, clipped (not wrapped) so the window is exact; only visible
            // events are formatted.
            buf.set_line(
                inner.x,
                y,
                &Line::styled(envelope.transcript_line(), style),
                inner.width,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::visible_range;

    #[test]
    fn window_follows_tail_and_clamps_scroll() {
        assert_eq!(visible_range(10_000, 20, 0), (9_980, 10_000));
        assert_eq!(visible_range(10_000, 20, 100), (9_880, 9_900));
        assert_eq!(visible_range(10_000, 20, 1_000_000), (0, 20));
        assert_eq!(visible_range(5, 20, 3), (0, 5));
        assert_eq!(visible_range(0, 20, 0), (0, 0));
    }
}
