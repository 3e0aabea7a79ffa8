//! Grid tables in the PDF: columns widened to hold their longest word where others have room,
//! cells wrapped, and the shaded header row repeated on every page a table spans.

use printpdf::Color;

use super::fonts::{Face, rgb};
use super::layout::{BOTTOM, CONTENT_W, MARGIN_X, TOP, Writer};
use super::wrap::widest_unbreakable;

/// Table text size and cell padding, in points.
const TABLE_SIZE: f32 = 7.5;
const TABLE_PAD: f32 = 2.0;

impl Writer<'_> {
    /// A grid table with a shaded header row repeated on every page it spans. `widths` are
    /// fractions of the content width. Cells wrap; a cell taller than a page is cut.
    pub(crate) fn table(&mut self, headers: &[&str], rows: &[Vec<String>], widths: &[f32]) {
        let (size, pad) = (TABLE_SIZE, TABLE_PAD);
        let lh = size * 1.25;
        // Words are never split inside a cell when a column can be widened to hold them.
        let needs: Vec<f32> = (0..widths.len())
            .map(|i| {
                let bold = widest_unbreakable(self.font(Face::Bold), headers.get(i).copied().unwrap_or(""), size);
                rows.iter()
                    .filter_map(|r| r.get(i))
                    .map(|c| widest_unbreakable(self.font(Face::Sans), &self.redactor.redact(c), size))
                    .fold(bold, f32::max)
                    + 2.0 * pad
                    + 0.5
            })
            .collect();
        let cols = fit_columns(widths, &needs, CONTENT_W);
        let max_lines = ((TOP - BOTTOM - 60.0) / lh) as usize;
        let layout = |w: &Self, cells: &[String], face: Face| -> Vec<Vec<String>> {
            cells
                .iter()
                .zip(&cols)
                .map(|(c, cw)| {
                    let mut l = w.wrap(c, face, size, cw - 2.0 * pad);
                    if l.len() > max_lines {
                        l.truncate(max_lines);
                        l.push("… [cut]".into());
                    }
                    l
                })
                .collect()
        };
        let head_cells: Vec<String> = headers.iter().map(|s| s.to_string()).collect();
        let head = layout(self, &head_cells, Face::Bold);
        let head_h = head.iter().map(Vec::len).max().unwrap_or(1) as f32 * lh + 2.0 * pad;
        let mut first = true;
        for row in rows {
            let cells = layout(self, row, Face::Sans);
            let h = cells.iter().map(Vec::len).max().unwrap_or(1).max(1) as f32 * lh + 2.0 * pad;
            if first || self.y - h < BOTTOM {
                self.ensure(head_h + h);
                self.row(&head, &cols, head_h, Face::Bold, Some(rgb(232, 237, 243)));
                first = false;
            }
            self.row(&cells, &cols, h, Face::Sans, None);
        }
        if rows.is_empty() {
            self.ensure(head_h + lh + 2.0 * pad);
            self.row(&head, &cols, head_h, Face::Bold, Some(rgb(232, 237, 243)));
            let none = vec![vec!["(none)".to_string()]];
            self.row(&none, &[CONTENT_W], lh + 2.0 * pad, Face::Sans, None);
        }
        self.y -= 8.0;
    }

    fn row(&mut self, cells: &[Vec<String>], cols: &[f32], h: f32, face: Face, fill: Option<Color>) {
        let (size, pad) = (TABLE_SIZE, TABLE_PAD);
        let lh = size * 1.25;
        let top = self.y;
        if let Some(f) = fill {
            self.rect(MARGIN_X, top - h, cols.iter().sum(), h, f);
        }
        let grid = rgb(170, 178, 189);
        let mut x = MARGIN_X;
        for (lines, w) in cells.iter().zip(cols) {
            let mut y = top - pad;
            for l in lines {
                y -= lh;
                self.text_at(x + pad, y + size * 0.25, face, size, rgb(29, 35, 43), l);
            }
            self.line(x, top, x, top - h, grid.clone(), 0.5);
            x += w;
        }
        self.line(x, top, x, top - h, grid.clone(), 0.5);
        self.line(MARGIN_X, top, x, top, grid.clone(), 0.5);
        self.line(MARGIN_X, top - h, x, top - h, grid, 0.5);
        self.y -= h;
    }
}

/// Column widths (points) from `fractions` of `total`, widened where a column's widest word
/// would not fit, taking the room from columns that have more than their own words need.
/// A word wider than `cap` of the table is left to break.
pub(super) fn fit_columns(fractions: &[f32], needs: &[f32], total: f32) -> Vec<f32> {
    let cap = total * 0.45;
    let mut cols: Vec<f32> = fractions.iter().map(|f| f * total).collect();
    let needs: Vec<f32> = needs.iter().map(|n| n.min(cap)).collect();
    let short: f32 = cols.iter().zip(&needs).map(|(c, n)| (n - c).max(0.0)).sum();
    if short <= 0.0 {
        return cols;
    }
    let slack: f32 = cols.iter().zip(&needs).map(|(c, n)| (c - n).max(0.0)).sum();
    let take = short.min(slack);
    if take <= 0.0 {
        return cols;
    }
    let grow = take / short;
    let shrink = take / slack;
    for (c, n) in cols.iter_mut().zip(&needs) {
        if *n > *c {
            *c += (*n - *c) * grow;
        } else {
            *c -= (*c - *n) * shrink;
        }
    }
    cols
}

#[cfg(test)]
mod tests {
    use super::fit_columns;

    #[test]
    fn a_column_too_narrow_for_its_longest_word_takes_room_from_roomy_columns() {
        // `unanswered` needs 45 pt in a 30 pt column; the 200 pt column needs only 60.
        let cols = fit_columns(&[0.1, 0.2, 0.7], &[45.0, 20.0, 60.0], 300.0);
        assert!(cols[0] >= 45.0 - 1e-3, "{cols:?}");
        assert!((cols.iter().sum::<f32>() - 300.0).abs() < 1e-3, "{cols:?}");
        assert!(cols[1] >= 20.0 && cols[2] >= 60.0, "{cols:?}");
        // Columns that all fit stay as given; a word wider than the cap is left to break.
        assert_eq!(fit_columns(&[0.5, 0.5], &[10.0, 10.0], 100.0), vec![50.0, 50.0]);
        let capped = fit_columns(&[0.2, 0.8], &[90.0, 10.0], 100.0);
        assert!((capped[0] - 45.0).abs() < 1e-3, "{capped:?}");
    }
}
