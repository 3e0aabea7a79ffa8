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

/// An inline SVG of stacked bars, one per scenario, with a legend.
pub(super) fn chart_svg(bars: &[ScenarioBar]) -> String {
    let row = 22.0;
    let label_w = 220.0;
    let bar_w = 600.0;
    let height = row * bars.len() as f64 + 34.0;
    let max = bars.iter().map(ScenarioBar::total).max().unwrap_or(0).max(1) as f64;
    let mut o = format!(
        "<svg role=\"img\" aria-label=\"verdicts per scenario\" width=\"{}\" height=\"{height}\" font-size=\"12\">",
        label_w + bar_w + 60.0
    );
    for (i, b) in bars.iter().enumerate() {
        let y = i as f64 * row + 4.0;
        let _ = write!(
            o,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            label_w - 6.0,
            y + 14.0,
            esc(&b.scenario)
        );
        let mut x = label_w;
        for (v, n) in b.counts() {
            if n == 0 {
                continue;
            }
            let w = bar_w * n as f64 / max;
            let (cr, cg, cb) = verdict_rgb(v);
            let _ = write!(
                o,
                "<rect x=\"{x:.1}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"rgb({cr},{cg},{cb})\"><title>{} {n}</title></rect>",
                row - 6.0,
                v.as_str()
            );
            x += w;
        }
        let _ = write!(o, "<text x=\"{:.1}\" y=\"{}\">{}</text>", x + 4.0, y + 14.0, b.total());
    }
    let ly = row * bars.len() as f64 + 22.0;
    let mut lx = label_w;
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
