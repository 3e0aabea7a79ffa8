//! The PDF's three embedded faces and their glyph advances, for measuring and for replacing
//! what a face cannot draw.

use printpdf::{Color, FontId, ParsedFont, Rgb};
use std::collections::HashMap;

/// The three embedded faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Face {
    Sans,
    Bold,
    Mono,
}

/// A font as the layout needs it: its document id and glyph advances.
pub(crate) struct FontMetrics {
    pub(crate) id: FontId,
    font: ParsedFont,
    units_per_em: f32,
    cache: std::cell::RefCell<HashMap<char, Option<f32>>>,
}

impl FontMetrics {
    pub(crate) fn new(id: FontId, font: ParsedFont) -> Self {
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
    pub(crate) fn printable(&self, text: &str) -> String {
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
    pub(crate) fn width(&self, text: &str, size: f32) -> f32 {
        text.chars().map(|c| self.advance(c).unwrap_or(0.6)).sum::<f32>() * size
    }
}

/// Text colour and a few fills.
pub(crate) fn rgb(r: u8, g: u8, b: u8) -> Color {
    Color::Rgb(Rgb {
        r: f32::from(r) / 255.0,
        g: f32::from(g) / 255.0,
        b: f32::from(b) / 255.0,
        icc_profile: None,
    })
}
