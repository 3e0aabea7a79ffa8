//! Small building blocks every PDF section uses: colours, section headings, notes, tables.

use super::fonts::{Face, rgb};
use super::layout::{CONTENT_W, MARGIN_X, Writer};
use crate::report::section::Section;
use crate::report::tables::{self, Table};

pub(crate) const TEXT: (u8, u8, u8) = (29, 35, 43);
pub(crate) const MUTED: (u8, u8, u8) = (90, 101, 114);

pub(crate) fn c((r, g, b): (u8, u8, u8)) -> printpdf::Color {
    rgb(r, g, b)
}

/// A section's heading. Sections flow on from the previous one (a page break before each
/// left half-empty pages: a quarter of the example's PDF); the heading keeps a few lines of
/// its section with it.
pub(crate) fn section(w: &mut Writer<'_>, s: Section) {
    if !w.pages.last().is_some_and(Vec::is_empty) {
        w.space(10.0);
    }
    w.heading(1, s.title());
}

pub(crate) fn note(w: &mut Writer<'_>, text: &str) {
    w.paragraph(text, Face::Sans, 8.0, c(MUTED), 0.0);
    w.space(3.0);
}

/// A table with one width fraction per column. A column with nothing in any row (every cell
/// empty or `—`) is left out and its width shared by the others.
pub(crate) fn table(w: &mut Writer<'_>, t: &Table, widths: &[f32]) {
    let blank = |s: &str| s.trim().is_empty() || s.trim() == "—";
    let keep: Vec<usize> = (0..t.headers.len())
        .filter(|&i| t.rows.is_empty() || !t.rows.iter().all(|r| r.get(i).is_none_or(|c| blank(c))))
        .collect();
    let headers: Vec<&str> = keep.iter().map(|&i| t.headers[i].as_str()).collect();
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| keep.iter().map(|&i| r.get(i).cloned().unwrap_or_default()).collect())
        .collect();
    let sum: f32 = keep.iter().map(|&i| widths.get(i).copied().unwrap_or(0.0)).sum();
    let widths: Vec<f32> = keep
        .iter()
        .map(|&i| widths.get(i).copied().unwrap_or(0.0) / sum.max(f32::EPSILON))
        .collect();
    w.table(&headers, &rows, &widths);
}

pub(crate) fn kv(w: &mut Writer<'_>, rows: &[(String, String)]) {
    table(w, &tables::settings(rows), &[0.3, 0.7]);
}

/// `label  text…` as one paragraph with the label in `color`: a transcript entry's heading
/// shares its first line with the text instead of taking a line of its own.
pub(crate) fn labelled(w: &mut Writer<'_>, label: &str, color: (u8, u8, u8), text: &str, size: f32) {
    let lh = size * 1.35;
    let lines = w.wrap(&format!("{label}  {text}"), Face::Sans, size, CONTENT_W);
    for (i, line) in lines.iter().enumerate() {
        w.ensure(lh);
        w.y -= lh;
        let y = w.y + size * 0.25;
        match line.strip_prefix(label).filter(|_| i == 0) {
            Some(rest) => {
                w.text_at(MARGIN_X, y, Face::Sans, size, c(color), label);
                let x = MARGIN_X + w.font(Face::Sans).width(label, size);
                w.text_at(x, y, Face::Sans, size, c(TEXT), rest);
            }
            // A label the wrap had to break (a very narrow page) prints in the text colour.
            None => w.text_at(MARGIN_X, y, Face::Sans, size, c(TEXT), line),
        }
    }
}
