//! PDF rendering through printpdf 0.12 with embedded DejaVu fonts (subset on save): the
//! title and table of contents, then the sections flowing on from there, with header, footer
//! and page numbers on every page.
//!
//! It formats only the report model and passes every text through the redactor again.

mod blocks;
mod fonts;
mod layout;
mod sections;
mod table;
mod trials;
mod wrap;

use printpdf::{Op, ParsedFont, PdfDocument, PdfPage, PdfSaveOptions, Pt};
use std::collections::HashMap;

use super::error::ReportError;
use super::model::Report;
use crate::redact::Redactor;
use fonts::{Face, FontMetrics, rgb};
use layout::{BOTTOM, CONTENT_W, MARGIN_X, Mark, PAGE_H, PAGE_W, Writer};

const SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
const BOLD: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");
const MONO: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSansMono.ttf");

/// Renders the report as PDF bytes.
pub fn render_pdf(report: &Report, redactor: &Redactor) -> Result<Vec<u8>, ReportError> {
    let mut doc = PdfDocument::new(&redactor.redact(&report.title));
    let mut fonts = HashMap::new();
    for (face, bytes) in [(Face::Sans, SANS), (Face::Bold, BOLD), (Face::Mono, MONO)] {
        let parsed = ParsedFont::from_bytes(bytes, 0, &mut Vec::new())
            .ok_or_else(|| ReportError::Pdf(format!("embedded font {face:?} does not parse")))?;
        let id = doc.add_font(&parsed);
        fonts.insert(face, FontMetrics::new(id, parsed));
    }

    // The title and contents come first and the body starts below them on the same page.
    // The contents' length depends only on the number of entries, never on their page
    // numbers, so one layout of the body gives the entries, the contents' size says where
    // the body starts, and a second layout from there gives the final page numbers.
    let layout = |start_y: f32, offset: usize| {
        let mut body = Writer::new(&fonts, redactor);
        body.y = start_y;
        body.offset = offset;
        sections::body(&mut body, report);
        let marks: Vec<Mark> = body.marks.iter().filter(|m| m.level <= 2).cloned().collect();
        (body, marks)
    };
    let (_, draft_marks) = layout(layout::TOP, 0);
    let (cover_pages, cover_end) = cover(&fonts, redactor, report, &draft_marks, 0);
    let offset = cover_pages.len() - 1;
    let (body, marks) = layout(cover_end - 18.0, offset);
    let (mut pages, _) = cover(&fonts, redactor, report, &marks, offset);
    let mut body_pages = body.pages.into_iter();
    if let (Some(last), Some(first)) = (pages.last_mut(), body_pages.next()) {
        last.extend(first);
    }
    pages.extend(body_pages);
    let total = pages.len();
    for m in body.marks.iter().filter(|m| m.level == 1) {
        doc.add_bookmark(&redactor.redact(&m.text), m.page + offset);
    }

    let mut frame = Writer::new(&fonts, redactor);
    let header = format!("Ghostlab rollout report · {} · run {}", report.agent_id, report.run_id);
    let pdf_pages = pages
        .into_iter()
        .enumerate()
        .map(|(i, mut ops)| {
            frame.pages = vec![Vec::new()];
            let top = PAGE_H - 36.0;
            frame.text_at(MARGIN_X, top, Face::Sans, 8.0, rgb(90, 101, 114), &header);
            frame.line(
                MARGIN_X,
                top - 5.0,
                MARGIN_X + CONTENT_W,
                top - 5.0,
                rgb(200, 205, 212),
                0.6,
            );
            frame.line(
                MARGIN_X,
                BOTTOM - 14.0,
                MARGIN_X + CONTENT_W,
                BOTTOM - 14.0,
                rgb(200, 205, 212),
                0.6,
            );
            frame.text_at(
                MARGIN_X,
                BOTTOM - 26.0,
                Face::Sans,
                8.0,
                rgb(90, 101, 114),
                &format!("generated {} · report format v{}", report.generated, report.version),
            );
            let label = format!("Page {} of {total}", i + 1);
            let w = frame.font(Face::Sans).width(&label, 8.0);
            frame.text_at(
                MARGIN_X + CONTENT_W - w,
                BOTTOM - 26.0,
                Face::Sans,
                8.0,
                rgb(90, 101, 114),
                &label,
            );
            ops.append(&mut frame.pages[0]);
            PdfPage::new(Pt(PAGE_W).into(), Pt(PAGE_H).into(), ops)
        })
        .collect();
    let mut warnings = Vec::new();
    // printpdf's `optimize` compresses at zlib's best level, which was half the PDF's time;
    // level 6 measured ~35% faster for ~1% more bytes.
    let opts = PdfSaveOptions {
        optimize: false,
        ..PdfSaveOptions::default()
    };
    let mut lo = doc.with_pages(pdf_pages).to_lopdf_document(&opts, &mut warnings);
    compress_streams(&mut lo);
    let mut out = Vec::new();
    lo.save_to(&mut out).map_err(|e| ReportError::Pdf(e.to_string()))?;
    Ok(out)
}

/// Flate-compresses every uncompressed stream at level 6 (a stream that would not shrink stays).
fn compress_streams(doc: &mut lopdf::Document) {
    use std::io::Write;
    for object in doc.objects.values_mut() {
        let lopdf::Object::Stream(stream) = object else {
            continue;
        };
        if !stream.allows_compression || stream.dict.get(b"Filter").is_ok() {
            continue;
        }
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
        let Ok(packed) = enc.write_all(&stream.content).and_then(|_| enc.finish()) else {
            continue;
        };
        if packed.len() + 19 < stream.content.len() {
            stream.dict.set("Filter", "FlateDecode");
            stream.set_content(packed);
        }
    }
}

/// Title block and table of contents, and where on its last page it ends; `offset` is added
/// to body page numbers.
fn cover(
    fonts: &HashMap<Face, FontMetrics>,
    redactor: &Redactor,
    r: &Report,
    marks: &[Mark],
    offset: usize,
) -> (Vec<Vec<Op>>, f32) {
    let mut w = Writer::new(fonts, redactor);
    w.space(20.0);
    w.paragraph(&r.title, Face::Bold, 22.0, rgb(31, 68, 104), 0.0);
    w.space(6.0);
    let meta = format!(
        "Agent {} · run {}\nJob {}\nGenerated {}",
        r.agent_id, r.run_id, r.job_file, r.generated
    );
    w.paragraph(&meta, Face::Sans, 10.0, rgb(90, 101, 114), 0.0);
    w.space(10.0);
    let (fill, fg) = if r.summary.readiness.ready {
        (rgb(227, 243, 229), rgb(27, 94, 32))
    } else {
        (rgb(251, 228, 228), rgb(142, 27, 27))
    };
    w.ensure(30.0);
    w.rect(MARGIN_X, w.y - 26.0, CONTENT_W, 26.0, fill);
    let y = w.y - 18.0;
    w.text_at(
        MARGIN_X + 8.0,
        y,
        Face::Bold,
        13.0,
        fg,
        &format!("Readiness: {}", r.summary.readiness.label),
    );
    w.space(40.0);
    w.paragraph("Contents", Face::Bold, 14.0, rgb(31, 68, 104), 0.0);
    w.space(4.0);
    for m in marks {
        let size = if m.level == 1 { 9.5 } else { 8.0 };
        let indent = if m.level == 1 { 0.0 } else { 14.0 };
        let face = if m.level == 1 { Face::Bold } else { Face::Sans };
        let lh = size * 1.35;
        w.ensure(lh);
        w.y -= lh;
        let num = (m.page + offset).to_string();
        let num_w = w.font(face).width(&num, size);
        let avail = CONTENT_W - indent - num_w - 30.0;
        let mut title = w
            .wrap(&m.text, face, size, avail)
            .into_iter()
            .next()
            .unwrap_or_default();
        if title.chars().count() < m.text.chars().count() {
            title.push('…');
        }
        let title_w = w.font(face).width(&title, size);
        w.text_at(MARGIN_X + indent, w.y, face, size, rgb(29, 35, 43), &title);
        // Dotted leader between the title and its page number.
        let dot_w = w.font(Face::Sans).width(".", size);
        let from = MARGIN_X + indent + title_w + 6.0;
        let to = MARGIN_X + CONTENT_W - num_w - 4.0;
        if to > from {
            let n = ((to - from) / (dot_w * 2.0)) as usize;
            w.text_at(from, w.y, Face::Sans, size, rgb(150, 158, 168), &". ".repeat(n));
        }
        w.text_at(MARGIN_X + CONTENT_W - num_w, w.y, face, size, rgb(29, 35, 43), &num);
        w.link(
            MARGIN_X + indent,
            w.y - size * 0.3,
            CONTENT_W - indent,
            lh,
            m.page + offset,
        );
    }
    (w.pages, w.y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_fits_the_width_and_breaks_long_words() {
        let mut doc = PdfDocument::new("t");
        let mut fonts = HashMap::new();
        for (face, bytes) in [(Face::Sans, SANS), (Face::Bold, BOLD), (Face::Mono, MONO)] {
            let parsed = ParsedFont::from_bytes(bytes, 0, &mut Vec::new()).unwrap();
            let id = doc.add_font(&parsed);
            fonts.insert(face, FontMetrics::new(id, parsed));
        }
        let r = Redactor::new();
        let w = Writer::new(&fonts, &r);
        let text = format!("Ωmega café {} end", "x".repeat(400));
        let lines = w.wrap(&text, Face::Sans, 9.0, 200.0);
        assert!(lines.len() > 3);
        for l in &lines {
            assert!(w.font(Face::Sans).width(l, 9.0) <= 200.5, "{l:?} too wide");
        }
        assert_eq!(lines.concat().replace(' ', ""), text.replace(' ', ""));
        // A character no embedded font has prints as `?`, not as an empty box.
        assert_eq!(w.font(Face::Mono).printable("a\u{1F600}b"), "a?b");
    }
}
