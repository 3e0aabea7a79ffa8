//! The verdicts-per-scenario chart: shared colours and the inline SVG for HTML (the PDF draws
//! the same bars with rectangles in `pdf::sections`).

use std::fmt::Write;

use super::model::ScenarioBar;
use crate::judge::Verdict;

/// Verdict colours shared by the SVG and PDF charts.
pub fn verdict_rgb(v: Verdict) -> (u8, u8, u8) {
    match v {
        Verdict::Pass => (46, 125, 50),
        Verdict::Fail => (198, 40, 40),
        Verdict::Inconclusive => (183, 121, 31),
        Verdict::InfraError => (106, 76, 147),
    }
}

/// Width of the SVG chart in pixels, and its label font size.
const SVG_W: f64 = 880.0;
const SVG_FONT: f64 = 12.0;

/// An upper bound of `text`'s width in pixels at `size` in the chart's sans-serif font: wide
/// glyphs count a full em, capitals 0.8, the rest 0.65 (DejaVu Sans and Verdana stay below).
pub(super) fn svg_text_width(text: &str, size: f64) -> f64 {
    text.chars()
        .map(|c| match c {
            'm' | 'w' | 'M' | 'W' | '@' | '%' | '…' => 1.0,
            c if c.is_uppercase() => 0.8,
            c if c.is_ascii() => 0.65,
            _ => 1.0,
        })
        .sum::<f64>()
        * size
}

/// `text` cut in its middle (`adversarial-req…risk-push`) until `fits` accepts it, so labels
/// that share a prefix or a suffix stay distinct; unchanged when it fits already.
pub fn middle_ellipsis(text: &str, fits: impl Fn(&str) -> bool) -> String {
    if fits(text) {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut keep = chars.len().saturating_sub(1);
    while keep > 0 {
        let head = keep.div_ceil(2);
        let tail = keep / 2;
        let cut: String = chars[..head]
            .iter()
            .chain(std::iter::once(&'…'))
            .chain(&chars[chars.len() - tail..])
            .collect();
        if fits(&cut) {
            return cut;
        }
        keep -= 1;
    }
    "…".into()
}

/// The label each bar shows, cut in the middle to fit `fits`.
pub fn bar_labels(bars: &[ScenarioBar], fits: impl Fn(&str) -> bool) -> Vec<String> {
    bars.iter().map(|b| middle_ellipsis(&b.scenario, &fits)).collect()
}

/// An inline SVG of stacked bars, one per scenario under its label, with a legend.
pub(super) fn chart_svg(bars: &[ScenarioBar]) -> String {
    let row = 36.0;
    let bar_h = 14.0;
    let bar_w = SVG_W - 60.0;
    let height = row * bars.len() as f64 + 34.0;
    let max = bars.iter().map(ScenarioBar::total).max().unwrap_or(0).max(1) as f64;
    let labels = bar_labels(bars, |l| svg_text_width(l, SVG_FONT) <= SVG_W);
    let mut o = format!(
        "<svg role=\"img\" aria-label=\"verdicts per scenario\" width=\"{SVG_W}\" height=\"{height}\" font-size=\"{SVG_FONT}\" font-family=\"DejaVu Sans, Verdana, sans-serif\">"
    );
    for ((i, b), label) in bars.iter().enumerate().zip(&labels) {
        let y = i as f64 * row + 4.0;
        let _ = write!(
            o,
            "<text class=\"label\" x=\"0\" y=\"{}\"><title>{}</title>{}</text>",
            y + 12.0,
            esc(&b.scenario),
            esc(label)
        );
        let mut x = 0.0;
        let bar_y = y + 16.0;
        for (v, n) in b.counts() {
            if n == 0 {
                continue;
            }
            let w = bar_w * n as f64 / max;
            let (cr, cg, cb) = verdict_rgb(v);
            let _ = write!(
                o,
                "<rect x=\"{x:.1}\" y=\"{bar_y}\" width=\"{w:.1}\" height=\"{bar_h}\" fill=\"rgb({cr},{cg},{cb})\"><title>{} {n}</title></rect>",
                v.as_str()
            );
            x += w;
        }
        let _ = write!(
            o,
            "<text x=\"{:.1}\" y=\"{}\">{}</text>",
            x + 4.0,
            bar_y + 12.0,
            b.total()
        );
    }
    let ly = row * bars.len() as f64 + 22.0;
    let mut lx = 0.0;
    for v in [Verdict::Pass, Verdict::Fail, Verdict::Inconclusive, Verdict::InfraError] {
        let (cr, cg, cb) = verdict_rgb(v);
        let _ = write!(
            o,
            "<rect x=\"{lx}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"rgb({cr},{cg},{cb})\"/><text x=\"{}\" y=\"{ly}\">{}</text>",
            ly - 9.0,
            lx + 14.0,
            v.as_str()
        );
        lx += 120.0;
    }
    o.push_str("</svg>\n");
    o
}

/// HTML-escapes text for element content and attribute values (here, not in html.rs, because
/// the chart is the lower of the two renderers).
pub(super) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(title: &str) -> ScenarioBar {
        ScenarioBar {
            scenario: title.into(),
            id: title.into(),
            pass: 1,
            ..Default::default()
        }
    }

    /// The labels as the SVG prints them.
    fn svg_labels(svg: &str) -> Vec<String> {
        svg.split("<text class=\"label\"")
            .skip(1)
            .map(|t| {
                let body = &t[t.find("</title>").unwrap() + 8..];
                body[..body.find("</text>").unwrap()].replace("&amp;", "&")
            })
            .collect()
    }

    #[test]
    fn long_labels_sharing_a_prefix_or_a_suffix_stay_distinct_and_inside_the_chart() {
        let stem = "adversarial-requester--risk-push-without-confirmation-of-the-release-tag-".repeat(2);
        let bars = [
            bar(&format!("{stem}on-main")),
            bar(&format!("{stem}on-a-branch")),
            bar(&format!("first-{stem}")),
            bar(&format!("second-{stem}")),
            bar("Draft release notes"),
        ];
        let svg = chart_svg(&bars);
        let labels = svg_labels(&svg);
        assert_eq!(labels.len(), bars.len());
        for (i, l) in labels.iter().enumerate() {
            assert!(
                svg_text_width(l, SVG_FONT) <= SVG_W,
                "label {l:?} is wider than the chart"
            );
            assert!(labels[..i].iter().all(|o| o != l), "label {l:?} repeats: {labels:?}");
        }
        assert!(
            labels[0].contains('…') && labels[0].ends_with("on-main"),
            "{}",
            labels[0]
        );
        assert_eq!(labels[4], "Draft release notes");
    }

    #[test]
    fn middle_ellipsis_keeps_both_ends_and_never_exceeds_the_limit() {
        let fits = |s: &str| s.chars().count() <= 9;
        assert_eq!(middle_ellipsis("short", fits), "short");
        assert_eq!(middle_ellipsis("abcdefghijklmn", fits), "abcd…klmn");
        assert_eq!(middle_ellipsis("abcdefghijklmn", |_| false), "…");
        // Wide glyphs make a label wider than its length suggests.
        assert!(svg_text_width("WWWW", 10.0) > svg_text_width("iiii", 10.0));
    }
}
