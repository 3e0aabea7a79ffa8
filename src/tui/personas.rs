//! Step 9 as a list of personas with a detail pane, plus the layout every review screen shares
//! (list | detail, notes, status). A pure function of the proposal, the cursor and the theme.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::Value;

use super::list_search::{mark_lines, marked};
use super::panel::block;
use super::theme::Theme;
use super::transcript::highlighted;
use super::ui_state::Ui;
use crate::lab::Proposal;
use crate::lab::review::item_id;

/// The areas of a review screen: list, detail, notes and status rows below.
pub(super) struct ReviewAreas {
    pub(crate) list: Rect,
    pub(crate) detail: Rect,
    pub(crate) footer: Rect,
}

/// Lays out list | detail over a footer of `footer_rows` rows.
pub(super) fn review_areas(area: Rect, footer_rows: u16) -> ReviewAreas {
    let [top, footer] = Layout::vertical([Constraint::Min(5), Constraint::Length(footer_rows)]).areas(area);
    let list_share = if top.width >= 100 { 40 } else { 42 };
    let [list, detail] = Layout::horizontal([
        Constraint::Percentage(list_share),
        Constraint::Percentage(100 - list_share),
    ])
    .areas(top);
    ReviewAreas { list, detail, footer }
}

/// The first row of a window of `height` rows that keeps `cursor` visible.
pub(super) fn window_start(cursor: usize, len: usize, height: usize) -> usize {
    if height == 0 || len <= height {
        return 0;
    }
    cursor.saturating_sub(height - 1).min(len - height)
}

/// Clips `text` to `width` characters with an ellipsis.
pub(super) fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let keep = width.saturating_sub(1);
    format!("{}…", text.chars().take(keep).collect::<String>())
}

/// A string field of an item, or "".
pub(super) fn field<'a>(item: &'a Value, key: &str) -> &'a str {
    item.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A list field of an item, as text lines.
pub(super) fn list_field(item: &Value, key: &str) -> Vec<String> {
    item.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A titled section of a detail pane: the heading, then one indented row per line.
pub(super) fn section<'a>(out: &mut Vec<Line<'a>>, title: &str, rows: Vec<String>, bullet: &str, theme: &Theme) {
    out.push(Line::styled(title.to_string(), theme.accent()));
    if rows.is_empty() {
        out.push(Line::styled("  (none)", theme.muted()));
    }
    for r in rows {
        out.push(Line::styled(format!("  {bullet}{r}"), theme.base()));
    }
}

/// Notes and status lines under a review screen.
pub(super) fn draw_footer(frame: &mut Frame, notes: &[String], status: &[Line], theme: &Theme, area: Rect) {
    let mut lines: Vec<Line> = status.to_vec();
    lines.extend(notes.iter().map(|n| Line::styled(n.clone(), theme.muted())));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// Rows the footer needs: the status lines, and the notes up to three rows.
pub(super) fn footer_rows(notes: &[String], status: &[Line], extra: u16) -> u16 {
    (status.len() as u16 + (notes.len() as u16).min(3) + extra).max(1)
}

/// Draws step 9 from the persona set `items`.
pub(crate) fn draw(
    frame: &mut Frame,
    proposal: &Proposal,
    items: &[Value],
    ui: &Ui,
    theme: &Theme,
    area: Rect,
    status: &[Line],
) {
    let areas = review_areas(area, footer_rows(&proposal.notes, status, 0));
    let cursor = ui.cursor.min(items.len().saturating_sub(1));
    let list_block = block(format!(" Personas ({}) ", items.len()), theme);
    let inner = list_block.inner(areas.list);
    frame.render_widget(list_block, areas.list);
    let width = inner.width as usize;
    let lines: Vec<Line> = if items.is_empty() {
        vec![Line::styled("Empty: a adds one.", theme.muted())]
    } else {
        let start = window_start(cursor, items.len(), inner.height as usize);
        items
            .iter()
            .enumerate()
            .skip(start)
            .take(inner.height as usize)
            .map(|(i, p)| {
                let text = clip(
                    &format!("{} {}", if i == cursor { "▶" } else { " " }, field(p, "name")),
                    width,
                );
                let style = if i == cursor { theme.selected() } else { theme.base() };
                highlighted(text, marked(ui), style)
            })
            .collect()
    };
    frame.render_widget(Paragraph::new(lines), inner);
    let detail = match items.get(cursor) {
        Some(p) => mark_lines(persona_detail(p, theme), marked(ui)),
        None => vec![Line::styled("a adds a persona (YAML of one item).", theme.muted())],
    };
    super::scroll::draw_scrolled(
        frame,
        Paragraph::new(detail),
        block(" Persona ".into(), theme),
        ui.proposal_scroll,
        &ui.proposal_max,
        areas.detail,
    );
    draw_footer(frame, &proposal.notes, status, theme, areas.footer);
}

fn persona_detail<'a>(p: &Value, theme: &Theme) -> Vec<Line<'a>> {
    let mut out = vec![
        Line::from(vec![
            Span::styled(field(p, "name").to_string(), theme.accent()),
            Span::styled(format!("  ({})", item_id(p)), theme.muted()),
        ]),
        Line::styled(field(p, "summary").to_string(), theme.base()),
        Line::raw(""),
    ];
    section(&mut out, "Traits", list_field(p, "traits"), "• ", theme);
    section(&mut out, "Context", vec![field(p, "context").to_string()], "", theme);
    section(&mut out, "Why", vec![field(p, "why").to_string()], "", theme);
    out
}
