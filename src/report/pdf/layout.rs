//! A small flow-layout engine over printpdf 0.12 operations: measured word wrapping, page
//! breaks, headings recorded for the table of contents, grid tables, shaded monospace blocks
//! and filled rectangles. Pages are plain `Vec<Op>`; headers and footers are added at the end,
//! once the page count is known.

use printpdf::{Color, FontId, Line, LinePoint, Op, ParsedFont, PdfFontHandle, Point, Pt, Rect, Rgb, TextItem};
use std::collections::HashMap;

use crate::redact::Redactor;

/// A4 in points.
pub const PAGE_W: f32 = 595.28;
pub const PAGE_H: f32 = 841.89;
pub const MARGIN_X: f32 = 44.0;
/// Content starts below the header band and ends above the footer band.
pub const TOP: f32 = PAGE_H - 58.0;
pub const BOTTOM: f32 = 52.0;
pub const CONTENT_W: f32 = PAGE_W - 2.0 * MARGIN_X;
/// Table text size and cell padding, in points.
const TABLE_SIZE: f32 = 7.5;
const TABLE_PAD: f32 = 2.0;

/// The three embedded faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Face {
    Sans,
    Bold,
    Mono,
}

/// A font as the layout needs it: its document id and glyph advances.
pub struct FontMetrics {
    pub id: FontId,
    font: ParsedFont,
    units_per_em: f32,
    cache: std::cell::RefCell<HashMap<char, Option<f32>>>,
}

impl FontMetrics {
    pub fn new(id: FontId, font: ParsedFont) -> Self {
        let units_per_em = f32::from(font.pdf_font_metrics.units_per_em.max(1));
        FontMetrics {
            id,
            font,
            units_per_em,
            cache: Default::default(),
        }
    }

    /// Advance of `c` in em, or `None` when the font has no glyph for it.
    fn advance(&self, c: char) -> Option<f32> {
        *self.cache.borrow_mut().entry(c).or_insert_with(|| {
            let gid = self.font.lookup_glyph_index(c as u32)?;
            Some(f32::from(self.font.get_horizontal_advance(gid)) / self.units_per_em)
        })
    }

    /// Replaces characters the font cannot draw (and control characters) so nothing prints
    /// as an empty box.
    pub fn printable(&self, text: &str) -> String {
        text.chars()
            .map(|c| match c {
                '\t' => ' ',
                c if c.is_control() => ' ',
                c if self.advance(c).is_some() => c,
                _ => '?',
            })
            .collect()
    }

    /// Width of already printable text at `size` points.
    pub fn width(&self, text: &str, size: f32) -> f32 {
        text.chars().map(|c| self.advance(c).unwrap_or(0.6)).sum::<f32>() * size
    }
}

/// Text colour and a few fills.
pub fn rgb(r: u8, g: u8, b: u8) -> Color {
    Color::Rgb(Rgb {
        r: f32::from(r) / 255.0,
        g: f32::from(g) / 255.0,
        b: f32::from(b) / 255.0,
        icc_profile: None,
    })
}

/// One heading as laid out: level, text, 1-based page.
#[derive(Debug, Clone)]
pub struct Mark {
    pub level: u8,
    pub text: String,
    pub page: usize,
}

/// The document being laid out.
pub struct Writer<'a> {
    fonts: &'a HashMap<Face, FontMetrics>,
    redactor: &'a Redactor,
    pub pages: Vec<Vec<Op>>,
    pub y: f32,
    pub marks: Vec<Mark>,
    /// Pages placed before this writer's first page (the contents), for printed page numbers.
    pub offset: usize,
    /// Named positions (transcript events): 1-based page of this writer and y.
    pub anchors: HashMap<String, (usize, f32)>,
}

impl<'a> Writer<'a> {
    pub fn new(fonts: &'a HashMap<Face, FontMetrics>, redactor: &'a Redactor) -> Self {
        Writer {
            fonts,
            redactor,
            pages: vec![Vec::new()],
            y: TOP,
            marks: Vec::new(),
            offset: 0,
            anchors: HashMap::new(),
        }
    }

    /// Remembers the current position under `name`.
    pub fn anchor(&mut self, name: String) {
        let at = (self.page_no(), self.y);
        self.anchors.insert(name, at);
    }

    /// The printed page number of an anchor, when it exists.
    pub fn anchor_page(&self, name: &str) -> Option<usize> {
        self.anchors.get(name).map(|(p, _)| p + self.offset)
    }

    /// A clickable area jumping to the top of document page `page` (1-based, printed number).
    pub fn link(&mut self, x: f32, y: f32, w: f32, h: f32, page: usize) {
        let link = printpdf::LinkAnnotation::new(
            Rect {
                x: Pt(x),
                y: Pt(y),
                width: Pt(w),
                height: Pt(h),
                mode: None,
                winding_order: None,
            },
            printpdf::Actions::Goto(printpdf::Destination::Xyz {
                page,
                left: None,
                top: None,
                zoom: None,
            }),
            Some(printpdf::BorderArray::Solid([0.0, 0.0, 0.0])),
            Some(printpdf::ColorArray::Transparent),
            Some(printpdf::HighlightingMode::None),
        );
        self.ops().push(Op::LinkAnnotation { link });
    }

    pub fn font(&self, f: Face) -> &FontMetrics {
        &self.fonts[&f]
    }

    /// 1-based number of the current page.
    pub fn page_no(&self) -> usize {
        self.pages.len()
    }

    pub fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = TOP;
    }

    /// Breaks the page unless `h` more points fit.
    pub fn ensure(&mut self, h: f32) {
        if self.y - h < BOTTOM {
            self.new_page();
        }
    }

    fn ops(&mut self) -> &mut Vec<Op> {
        self.pages.last_mut().expect("at least one page")
    }

    /// Draws one line of text with its baseline at `y`.
    pub fn text_at(&mut self, x: f32, y: f32, face: Face, size: f32, color: Color, text: &str) {
        let id = self.font(face).id.clone();
        let text = self.font(face).printable(&self.redactor.redact(text));
        self.ops().extend([
            Op::StartTextSection,
            Op::SetFont {
                font: PdfFontHandle::External(id),
                size: Pt(size),
            },
            Op::SetFillColor { col: color },
            Op::SetTextCursor {
                pos: Point { x: Pt(x), y: Pt(y) },
            },
            Op::ShowText {
                items: vec![TextItem::Text(text)],
            },
            Op::EndTextSection,
        ]);
    }

    /// A filled rectangle with its lower-left corner at (x, y).
    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, color: Color) {
        self.ops().extend([
            Op::SetFillColor { col: color },
            Op::DrawRectangle {
                rectangle: Rect {
                    x: Pt(x),
                    y: Pt(y),
                    width: Pt(w),
                    height: Pt(h),
                    mode: Some(printpdf::PaintMode::Fill),
                    winding_order: Some(printpdf::WindingOrder::NonZero),
                },
            },
        ]);
    }

    /// A straight stroke.
    pub fn line(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, color: Color, width: f32) {
        let p = |x: f32, y: f32| LinePoint {
            p: Point { x: Pt(x), y: Pt(y) },
            bezier: false,
        };
        self.ops().extend([
            Op::SetOutlineColor { col: color },
            Op::SetOutlineThickness { pt: Pt(width) },
            Op::DrawLine {
                line: Line {
                    points: vec![p(x1, y1), p(x2, y2)],
                    is_closed: false,
                },
            },
        ]);
    }

    /// Splits `text` into lines no wider than `width` at `size`: at spaces where possible,
    /// inside a word when the word alone is too wide. Existing newlines are kept.
    pub fn wrap(&self, text: &str, face: Face, size: f32, width: f32) -> Vec<String> {
        let m = self.font(face);
        let mut out = Vec::new();
        // Redacted before wrapping, so a secret split over two lines is still caught.
        let text = self.redactor.redact(text);
        for raw in text.split('\n') {
            let para = m.printable(raw);
            let mut line = String::new();
            let mut line_w = 0.0;
            for word in split_keep_spaces(&para) {
                let w = m.width(word, size);
                if line_w + w <= width {
                    line.push_str(word);
                    line_w += w;
                    continue;
                }
                if word.trim().is_empty() {
                    // A space at a break point is dropped.
                    out.push(std::mem::take(&mut line));
                    line_w = 0.0;
                    continue;
                }
                if !line.is_empty() && w <= width {
                    out.push(std::mem::take(&mut line));
                    line.push_str(word);
                    line_w = w;
                    continue;
                }
                // The word is too wide for any line (an id, a path): break it after its `-`,
                // `_` and `/`, and inside a piece only when the piece alone is too wide.
                for piece in break_pieces(word) {
                    let pw = m.width(piece, size);
                    if line_w + pw <= width {
                        line.push_str(piece);
                        line_w += pw;
                        continue;
                    }
                    if !line.is_empty() {
                        out.push(std::mem::take(&mut line));
                        line_w = 0.0;
                    }
                    if pw <= width {
                        line.push_str(piece);
                        line_w = pw;
                        continue;
                    }
                    for c in piece.chars() {
                        let cw = m.width(c.encode_utf8(&mut [0; 4]), size);
                        if line_w + cw > width && !line.is_empty() {
                            out.push(std::mem::take(&mut line));
                            line_w = 0.0;
                        }
                        line.push(c);
                        line_w += cw;
                    }
                }
            }
            out.push(line.trim_end().to_string());
        }
        out
    }

    /// A wrapped paragraph at the current position.
    pub fn paragraph(&mut self, text: &str, face: Face, size: f32, color: Color, indent: f32) {
        let lh = size * 1.35;
        for l in self.wrap(text, face, size, CONTENT_W - indent) {
            self.ensure(lh);
            self.y -= lh;
            self.text_at(MARGIN_X + indent, self.y + size * 0.25, face, size, color.clone(), &l);
        }
    }

    pub fn space(&mut self, h: f32) {
        self.y -= h;
    }

    /// A heading, kept with at least a few lines of what follows, recorded for the contents.
    pub fn heading(&mut self, level: u8, text: &str) {
        let size = match level {
            1 => 16.0,
            2 => 10.5,
            _ => 10.0,
        };
        self.ensure(size * 1.6 + 70.0);
        self.y -= if level == 1 { 6.0 } else { 8.0 };
        self.marks.push(Mark {
            level,
            text: text.to_string(),
            page: self.page_no(),
        });
        let color = if level == 1 { rgb(31, 68, 104) } else { rgb(43, 58, 74) };
        self.paragraph(text, Face::Bold, size, color, 0.0);
        if level == 1 {
            let y = self.y - 3.0;
            self.line(MARGIN_X, y, MARGIN_X + CONTENT_W, y, rgb(43, 90, 138), 1.2);
            self.y -= 8.0;
        } else {
            self.y -= 3.0;
        }
    }

    /// A shaded monospace block; long blocks continue on the next page.
    pub fn code(&mut self, text: &str, indent: f32) {
        let size = 7.6;
        let lh = size * 1.3;
        let pad = 4.0;
        let width = CONTENT_W - indent - 2.0 * pad;
        let lines = self.wrap(text, Face::Mono, size, width);
        let mut i = 0;
        while i < lines.len() {
            self.ensure(lh + 2.0 * pad);
            let fit = (((self.y - BOTTOM - 2.0 * pad) / lh).floor() as usize).max(1);
            let chunk = &lines[i..(i + fit).min(lines.len())];
            let h = chunk.len() as f32 * lh + 2.0 * pad;
            self.rect(MARGIN_X + indent, self.y - h, CONTENT_W - indent, h, rgb(242, 244, 247));
            let mut y = self.y - pad;
            for l in chunk {
                y -= lh;
                self.text_at(
                    MARGIN_X + indent + pad,
                    y + size * 0.25,
                    Face::Mono,
                    size,
                    rgb(30, 35, 43),
                    l,
                );
            }
            self.y -= h + 3.0;
            i += chunk.len();
        }
    }

    /// A grid table with a shaded header row repeated on every page it spans. `widths` are
    /// fractions of the content width. Cells wrap; a cell taller than a page is cut.
    pub fn table(&mut self, headers: &[&str], rows: &[Vec<String>], widths: &[f32]) {
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

/// A word cut after each `-`, `_` and `/`: the places an overlong token may break (the
/// chart's labels break at the same places).
pub(super) use crate::report::chart::word_pieces as break_pieces;

/// The widest piece of `text` no line break may split (a word, or a piece of an id), in points.
fn widest_unbreakable(m: &FontMetrics, text: &str, size: f32) -> f32 {
    text.split_whitespace()
        .flat_map(break_pieces)
        .map(|p| m.width(p, size))
        .fold(0.0, f32::max)
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

/// Words and the runs of spaces between them, in order.
fn split_keep_spaces(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (i, c) in s.char_indices() {
        let sp = c == ' ';
        match in_space {
            Some(prev) if prev != sp => {
                out.push(&s[start..i]);
                start = i;
            }
            _ => {}
        }
        in_space = Some(sp);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{break_pieces, fit_columns, split_keep_spaces};

    #[test]
    fn overlong_tokens_break_only_after_dashes_underscores_and_slashes() {
        assert_eq!(
            break_pieces("adversarial-requester--risk_push/tag"),
            vec!["adversarial-", "requester-", "-", "risk_", "push/", "tag"]
        );
        assert_eq!(break_pieces("unanswered"), vec!["unanswered"]);
    }

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

    #[test]
    fn splits_words_and_spaces() {
        assert_eq!(split_keep_spaces("ab  c"), vec!["ab", "  ", "c"]);
        assert!(split_keep_spaces("").is_empty());
    }
}
