//! A small flow-layout engine over printpdf 0.12 operations: page breaks, wrapped paragraphs
//! (`wrap`), headings recorded for the table of contents, grid tables (`table`), shaded
//! monospace blocks and filled rectangles. Pages are plain `Vec<Op>`; headers and footers are added at the end,
//! once the page count is known.

use printpdf::{Color, Line, LinePoint, Op, PdfFontHandle, Point, Pt, Rect, TextItem};
use std::collections::HashMap;

use super::fonts::{Face, FontMetrics, rgb};
use super::wrap::wrap_text;
use crate::redact::Redactor;

/// A4 in points.
pub(crate) const PAGE_W: f32 = 595.28;
pub(crate) const PAGE_H: f32 = 841.89;
pub(crate) const MARGIN_X: f32 = 44.0;
/// Content starts below the header band and ends above the footer band.
pub(crate) const TOP: f32 = PAGE_H - 58.0;
pub(crate) const BOTTOM: f32 = 52.0;
pub(crate) const CONTENT_W: f32 = PAGE_W - 2.0 * MARGIN_X;

/// One heading as laid out: level, text, 1-based page.
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    pub(crate) level: u8,
    pub(crate) text: String,
    pub(crate) page: usize,
}

/// The document being laid out.
pub(crate) struct Writer<'a> {
    fonts: &'a HashMap<Face, FontMetrics>,
    pub(super) redactor: &'a Redactor,
    pub(crate) pages: Vec<Vec<Op>>,
    pub(crate) y: f32,
    pub(crate) marks: Vec<Mark>,
    /// Pages placed before this writer's first page (the contents), for printed page numbers.
    pub(crate) offset: usize,
    /// Named positions (transcript events): 1-based page of this writer and y.
    pub(crate) anchors: HashMap<String, (usize, f32)>,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(fonts: &'a HashMap<Face, FontMetrics>, redactor: &'a Redactor) -> Self {
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
    pub(crate) fn anchor(&mut self, name: String) {
        let at = (self.page_no(), self.y);
        self.anchors.insert(name, at);
    }

    /// The printed page number of an anchor, when it exists.
    pub(crate) fn anchor_page(&self, name: &str) -> Option<usize> {
        self.anchors.get(name).map(|(p, _)| p + self.offset)
    }

    /// A clickable area jumping to the top of document page `page` (1-based, printed number).
    pub(crate) fn link(&mut self, x: f32, y: f32, w: f32, h: f32, page: usize) {
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

    pub(crate) fn font(&self, f: Face) -> &FontMetrics {
        &self.fonts[&f]
    }

    /// 1-based number of the current page.
    pub(crate) fn page_no(&self) -> usize {
        self.pages.len()
    }

    pub(crate) fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = TOP;
    }

    /// Breaks the page unless `h` more points fit.
    pub(crate) fn ensure(&mut self, h: f32) {
        if self.y - h < BOTTOM {
            self.new_page();
        }
    }

    fn ops(&mut self) -> &mut Vec<Op> {
        self.pages.last_mut().expect("at least one page")
    }

    /// Draws one line of text with its baseline at `y`.
    pub(crate) fn text_at(&mut self, x: f32, y: f32, face: Face, size: f32, color: Color, text: &str) {
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
    pub(crate) fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, color: Color) {
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
    pub(crate) fn line(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, color: Color, width: f32) {
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

    /// Splits `text` into lines no wider than `width` at `size` (see `wrap::wrap_text`).
    pub(crate) fn wrap(&self, text: &str, face: Face, size: f32, width: f32) -> Vec<String> {
        // Redacted before wrapping, so a secret split over two lines is still caught.
        wrap_text(self.font(face), &self.redactor.redact(text), size, width)
    }

    /// A wrapped paragraph at the current position.
    pub(crate) fn paragraph(&mut self, text: &str, face: Face, size: f32, color: Color, indent: f32) {
        let lh = size * 1.35;
        for l in self.wrap(text, face, size, CONTENT_W - indent) {
            self.ensure(lh);
            self.y -= lh;
            self.text_at(MARGIN_X + indent, self.y + size * 0.25, face, size, color.clone(), &l);
        }
    }

    pub(crate) fn space(&mut self, h: f32) {
        self.y -= h;
    }

    /// A heading, kept with at least a few lines of what follows, recorded for the contents.
    pub(crate) fn heading(&mut self, level: u8, text: &str) {
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
    pub(crate) fn code(&mut self, text: &str, indent: f32) {
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
}
