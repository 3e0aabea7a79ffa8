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

/// `text` over as many lines as `fits` needs, never cut: lines break between words, a word
/// too wide for a line (an id, a path) after its `-`, `_` or `/`, and a piece still too wide
/// between characters. Only whitespace at a break is dropped: no character of `text` is lost.
pub(crate) fn wrap_label(text: &str, fits: impl Fn(&str) -> bool) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for (w, word) in text.split_whitespace().enumerate() {
        for (p, piece) in word_pieces(word).into_iter().enumerate() {
            let gap = if w > 0 && p == 0 && !line.is_empty() { " " } else { "" };
            if fits(&format!("{line}{gap}{piece}")) {
                line.push_str(gap);
                line.push_str(piece);
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            for c in piece.chars() {
                if !line.is_empty() && !fits(&format!("{line}{c}")) {
                    lines.push(std::mem::take(&mut line));
                }
                line.push(c);
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `word` in pieces that each end after a `-`, `_` or `/` (the last one may not).
pub(super) fn word_pieces(word: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in word.char_indices() {
        if matches!(c, '-' | '_' | '/') {
            out.push(&word[start..i + 1]);
            start = i + 1;
        }
    }
    if start < word.len() {
        out.push(&word[start..]);
    }
    out
}

/// An inline SVG of stacked bars, each under its label (wrapped over as many lines as it needs,
/// never cut), with a legend. The `viewBox` lets a narrow window scale the chart down instead of
/// cutting its right side off.
pub(super) fn chart_svg(bars: &[ScenarioBar]) -> String {
    let line_h = SVG_FONT * 1.3;
    let bar_h = 14.0;
    let bar_w = SVG_W - 60.0;
    let max = bars.iter().map(ScenarioBar::total).max().unwrap_or(0).max(1) as f64;
    let mut body = String::new();
    let mut y = 4.0;
    for b in bars {
        let lines = wrap_label(&b.scenario, |l| svg_text_width(l, SVG_FONT) <= SVG_W);
        let _ = write!(
            body,
            "<text class=\"label\" x=\"0\" y=\"{}\"><title>{}</title>",
            y + 12.0,
            esc(&b.scenario)
        );
        for (i, l) in lines.iter().enumerate() {
            let dy = if i == 0 { 0.0 } else { line_h };
            let _ = write!(body, "<tspan x=\"0\" dy=\"{dy}\">{}</tspan>", esc(l));
        }
        body.push_str("</text>");
        let mut x = 0.0;
        let bar_y = y + 4.0 + line_h * lines.len() as f64;
        for (v, n) in b.counts() {
            if n == 0 {
                continue;
            }
            let w = bar_w * n as f64 / max;
            let (cr, cg, cb) = verdict_rgb(v);
            let _ = write!(
                body,
                "<rect x=\"{x:.1}\" y=\"{bar_y:.1}\" width=\"{w:.1}\" height=\"{bar_h}\" fill=\"rgb({cr},{cg},{cb})\"><title>{} {n}</title></rect>",
                v.as_str()
            );
            x += w;
        }
        let _ = write!(
            body,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            x + 4.0,
            bar_y + 12.0,
            b.total()
        );
        y = bar_y + bar_h + 6.0;
    }
    let ly = y + 18.0;
    let mut lx = 0.0;
    for v in [Verdict::Pass, Verdict::Fail, Verdict::Inconclusive, Verdict::InfraError] {
        let (cr, cg, cb) = verdict_rgb(v);
        let _ = write!(
            body,
            "<rect x=\"{lx}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"rgb({cr},{cg},{cb})\"/><text x=\"{}\" y=\"{ly:.1}\">{}</text>",
            ly - 9.0,
            lx + 14.0,
            v.as_str()
        );
        lx += 120.0;
    }
    let height = ly + 6.0;
    format!(
        "<svg role=\"img\" aria-label=\"verdicts per scenario\" viewBox=\"0 0 {SVG_W} {height:.1}\" width=\"{SVG_W}\" height=\"{height:.1}\" style=\"max-width:100%;height:auto\" font-size=\"{SVG_FONT}\" font-family=\"DejaVu Sans, Verdana, sans-serif\">{body}</svg>\n"
    )
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

    /// Each label's lines as the SVG prints them (one `<tspan>` per line).
    fn svg_labels(svg: &str) -> Vec<Vec<String>> {
        svg.split("<text class=\"label\"")
            .skip(1)
            .map(|t| {
                let body = &t[..t.find("</text>").unwrap()];
                body.split("<tspan")
                    .skip(1)
                    .map(|l| l[l.find('>').unwrap() + 1..l.find("</tspan>").unwrap()].replace("&amp;", "&"))
                    .collect()
            })
            .collect()
    }

    fn squeezed(s: &str) -> String {
        s.chars().filter(|c| !c.is_whitespace()).collect()
    }

    #[test]
    fn long_labels_wrap_inside_the_chart_and_keep_every_character() {
        let stem = "adversarial-requester--risk-push-without-confirmation-of-the-release-tag-".repeat(2);
        let bars = [
            bar(&format!("{stem}on-main")),
            bar(&format!("{stem}on-a-branch")),
            bar(&format!("first-{stem}")),
            bar(&"W".repeat(300)),
            bar("A hurried maintainer asks to publish the release before CI finished, twice over and again"),
            bar("Draft release notes"),
        ];
        let svg = chart_svg(&bars);
        let labels = svg_labels(&svg);
        assert_eq!(labels.len(), bars.len());
        for (b, lines) in bars.iter().zip(&labels) {
            for l in lines {
                assert!(
                    svg_text_width(l, SVG_FONT) <= SVG_W,
                    "line {l:?} is wider than the chart"
                );
                assert!(!l.contains('…'), "a label was cut: {l:?}");
            }
            assert_eq!(squeezed(&lines.concat()), squeezed(&b.scenario), "characters lost");
        }
        assert!(labels[0].len() >= 2 && labels[3].len() >= 3, "{labels:?}");
        assert!(
            labels[0][0].ends_with('-'),
            "an id breaks after a dash: {:?}",
            labels[0]
        );
        assert_eq!(labels[5], ["Draft release notes"]);
        assert!(
            svg.contains("viewBox=\"0 0 880 "),
            "the chart scales in a narrow window"
        );
    }

    #[test]
    fn wrap_label_breaks_between_words_then_pieces_then_characters() {
        let fits = |s: &str| s.chars().count() <= 9;
        assert_eq!(wrap_label("short", fits), ["short"]);
        assert_eq!(wrap_label("draft the notes", fits), ["draft the", "notes"]);
        assert_eq!(wrap_label("risk-push-tag", fits), ["risk-", "push-tag"]);
        assert_eq!(wrap_label("abcdefghijklmn", fits), ["abcdefghi", "jklmn"]);
        assert_eq!(wrap_label("", fits), [""]);
        // Wide glyphs make a label wider than its length suggests.
        assert!(svg_text_width("WWWW", 10.0) > svg_text_width("iiii", 10.0));
    }

    #[test]
    fn each_bar_sits_below_the_last_line_of_its_label() {
        let svg = chart_svg(&[bar(&"word ".repeat(60)), bar("next")]);
        let ys: Vec<f64> = svg
            .split("<rect ")
            .skip(1)
            .take(2)
            .map(|r| {
                r.split("y=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .collect();
        let lines = svg_labels(&svg)[0].len() as f64;
        assert!(lines >= 2.0);
        assert!(
            ys[0] >= 16.0 + (lines - 1.0) * SVG_FONT * 1.3,
            "bar at {} over its label",
            ys[0]
        );
        assert!(
            ys[1] > ys[0] + 14.0 + SVG_FONT,
            "second bar overlaps the first row: {ys:?}"
        );
    }
}
