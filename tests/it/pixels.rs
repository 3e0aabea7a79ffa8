//! Pixels of rendered reports, for tests that look at what a reader sees: PNG (Chromium's
//! screenshots) and PPM (poppler's `pdftoppm`) read into RGB, and the verdict chart found in
//! them by its colours: its bars, which verdict each bar shows, and label ink at its edges.

use std::io::Read;
use std::path::Path;

use ghostlab::judge::Verdict;
use ghostlab::report::chart::verdict_rgb;

pub type Rgb = [u8; 3];

/// An RGB image, rows top to bottom.
pub struct Image {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<Rgb>,
}

impl Image {
    pub fn at(&self, x: usize, y: usize) -> Rgb {
        self.pixels[y * self.width + x]
    }
}

/// An 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes); alpha is dropped.
pub fn read_png(path: &Path) -> Image {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{} is not a PNG", path.display());
    let (mut width, mut height, mut channels) = (0, 0, 0);
    let mut data = Vec::new();
    let mut at = 8;
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let body = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(body[0..4].try_into().unwrap()) as usize;
                height = u32::from_be_bytes(body[4..8].try_into().unwrap()) as usize;
                assert_eq!(body[8], 8, "bit depth");
                assert_eq!(body[12], 0, "interlaced PNG");
                channels = match body[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("PNG colour type {t}"),
                };
            }
            b"IDAT" => data.extend_from_slice(body),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&data[..])
        .read_to_end(&mut raw)
        .expect("PNG data inflates");
    let stride = width * channels;
    let mut prev = vec![0u8; stride];
    let mut pixels = Vec::with_capacity(width * height);
    for y in 0..height {
        let line = &raw[y * (stride + 1)..(y + 1) * (stride + 1)];
        let mut row = line[1..].to_vec();
        for i in 0..stride {
            let a = if i >= channels { row[i - channels] as i32 } else { 0 };
            let b = prev[i] as i32;
            let c = if i >= channels { prev[i - channels] as i32 } else { 0 };
            let add = match line[0] {
                0 => 0,
                1 => a,
                2 => b,
                3 => (a + b) / 2,
                4 => {
                    let p = a + b - c;
                    let (pa, pb, pc) = ((p - a).abs(), (p - b).abs(), (p - c).abs());
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("PNG filter {f}"),
            };
            row[i] = (row[i] as i32 + add) as u8;
        }
        pixels.extend(row.chunks(channels).map(|p| [p[0], p[1], p[2]]));
        prev = row;
    }
    Image { width, height, pixels }
}

/// A binary PPM (`P6`, maxval 255), as `pdftoppm` writes by default.
pub fn read_ppm(path: &Path) -> Image {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        fields.push(String::from_utf8_lossy(&bytes[start..at]).to_string());
    }
    assert_eq!(fields[0], "P6", "{} is not a binary PPM", path.display());
    assert_eq!(fields[3], "255");
    let (width, height): (usize, usize) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
    let body = &bytes[at + 1..];
    let pixels = body[..width * height * 3]
        .chunks(3)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    Image { width, height, pixels }
}

pub const VERDICTS: [Verdict; 4] = [Verdict::Pass, Verdict::Fail, Verdict::Inconclusive, Verdict::InfraError];

pub fn near(a: Rgb, b: Rgb, tolerance: i32) -> bool {
    a.iter().zip(b).all(|(x, y)| (*x as i32 - y as i32).abs() <= tolerance)
}

/// Which verdict's colour `p` is, if any.
pub fn verdict_of(p: Rgb) -> Option<Verdict> {
    VERDICTS.into_iter().find(|&v| {
        let (r, g, b) = verdict_rgb(v);
        near(p, [r, g, b], 6)
    })
}

/// One bar of the chart as drawn: its rows, where it starts, and how many pixels of each
/// verdict's colour its middle row holds.
#[derive(Debug)]
pub struct Bar {
    pub top: usize,
    pub bottom: usize,
    pub left: usize,
    pub widths: [usize; 4],
}

impl Bar {
    /// The verdict whose colour fills most of the bar.
    pub fn main_verdict(&self) -> Verdict {
        let i = (0..4).max_by_key(|&i| self.widths[i]).unwrap();
        VERDICTS[i]
    }
}

/// The bars in the columns `x0..x1`: runs of rows with an unbroken stretch of at least
/// `min_width` pixels of verdict colours (so the legend's small squares, side by side, and
/// coloured text are not bars).
pub fn bars(img: &Image, x0: usize, x1: usize, min_width: usize) -> Vec<Bar> {
    let coloured = |y: usize| {
        let (mut longest, mut run) = (0, 0);
        for x in x0..x1 {
            run = if verdict_of(img.at(x, y)).is_some() { run + 1 } else { 0 };
            longest = longest.max(run);
        }
        longest
    };
    let mut out = Vec::new();
    let mut y = 0;
    while y < img.height {
        if coloured(y) < min_width {
            y += 1;
            continue;
        }
        let top = y;
        while y < img.height && coloured(y) >= min_width {
            y += 1;
        }
        let mid = (top + y) / 2;
        let mut widths = [0; 4];
        let mut left = x1;
        for x in x0..x1 {
            if let Some(v) = verdict_of(img.at(x, mid)) {
                widths[VERDICTS.iter().position(|&w| w == v).unwrap()] += 1;
                left = left.min(x);
            }
        }
        out.push(Bar {
            top,
            bottom: y,
            left,
            widths,
        });
    }
    out
}

/// Bars per verdict, each counted under the verdict that fills it (every scenario of the
/// example ran once, so each bar is one verdict).
pub fn bars_per_verdict(bars: &[Bar]) -> [u64; 4] {
    let mut n = [0; 4];
    for b in bars {
        n[VERDICTS.iter().position(|&v| v == b.main_verdict()).unwrap()] += 1;
    }
    n
}

/// The bounding box (x0, y0, x1, y1; exclusive ends) of the pixels of colour `marker`.
pub fn marker_box(img: &Image, marker: Rgb) -> Option<(usize, usize, usize, usize)> {
    let mut b: Option<(usize, usize, usize, usize)> = None;
    for y in 0..img.height {
        for x in 0..img.width {
            if img.at(x, y) == marker {
                let (x0, y0, x1, y1) = b.unwrap_or((x, y, x + 1, y + 1));
                b = Some((x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1)));
            }
        }
    }
    b
}

/// Rows of the box `(x0, y0, x1, y1)` whose last `edge` columns hold ink that is neither the
/// background `marker` nor a bar: text running into the chart's right edge, where the SVG
/// cuts it. A box that reaches the image's right side was cut by the window itself.
pub fn ink_at_right_edge(img: &Image, b: (usize, usize, usize, usize), marker: Rgb, edge: usize) -> Vec<usize> {
    let (_, y0, x1, y1) = b;
    if x1 >= img.width {
        return (y0..y1).collect();
    }
    (y0..y1)
        .filter(|&y| {
            (x1 - edge..x1).any(|x| {
                let p = img.at(x, y);
                !near(p, marker, 24) && verdict_of(p).is_none()
            })
        })
        .collect()
}

/// Rows of `bar` whose `gap` pixels just left of it hold ink (not near `background`): a label
/// running into its bar.
pub fn ink_left_of(img: &Image, bar: &Bar, gap: usize, background: Rgb) -> Vec<usize> {
    (bar.top..bar.bottom)
        .filter(|&y| (bar.left.saturating_sub(gap)..bar.left).any(|x| !near(img.at(x, y), background, 40)))
        .collect()
}
