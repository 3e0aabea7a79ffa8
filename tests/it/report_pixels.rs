//! The verdict chart as a reader sees it, checked in pixels: a headless Chromium screenshot of
//! the example's HTML report (in a wide and a narrow window) and the PDF's pages rendered by
//! `pdftoppm`. No label's ink may be cut by the chart's right edge (or the window's), none may
//! run into its bar, and the bars of each verdict's colour must be as many as the run's
//! verdict counts (summary.json, which the report's text states). Planted pages prove each
//! check sees what it looks for.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::pixels::{
    Image, Rgb, bars, bars_per_verdict, ink_at_right_edge, ink_left_of, marker_box, read_png, read_ppm,
};
use crate::report_example_pdf::run_example;

/// The chart's background in the screenshots (injected for the test; no report uses it).
const MARKER: Rgb = [255, 0, 255];
const WHITE: Rgb = [255, 255, 255];

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"].into_iter().find(|b| {
        Command::new(b)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// `html` as Chromium draws it in a window of `size`, with the verdict chart on the marker
/// colour. Requests go to a closed local port: the page loads offline.
fn screenshot(chromium: &str, html: &str, dir: &Path, name: &str, size: (u32, u32)) -> Image {
    let marked = html.replacen(
        "</head>",
        "<style>svg[aria-label=\"verdicts per scenario\"]{background:rgb(255,0,255)}</style></head>",
        1,
    );
    let page = dir.join(format!("{name}.html"));
    std::fs::write(&page, marked).unwrap();
    let shot = dir.join(format!("{name}.png"));
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--no-first-run",
            "--disable-background-networking",
            "--proxy-server=http://127.0.0.1:9",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("--window-size={},{}", size.0, size.1))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        shot.is_file(),
        "chromium wrote no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_png(&shot)
}

/// What the screenshot shows of the chart: rows where a label is cut at the right edge, and
/// the bars per verdict.
fn html_chart(img: &Image) -> (Vec<usize>, [u64; 4], usize) {
    let b = marker_box(img, MARKER).expect("the chart is on the screenshot");
    let cut = ink_at_right_edge(img, b, MARKER, 2);
    let found = bars(img, b.0, b.2, 30);
    (cut, bars_per_verdict(&found), found.len())
}

fn summary_counts(run: &Path) -> ([u64; 4], usize) {
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    let s = &summary["summary"];
    let counts = ["pass", "fail", "inconclusive", "infra_error"].map(|k| s[k].as_u64().unwrap());
    (counts, s["trials"].as_u64().unwrap() as usize)
}

/// Every page of `pdf` at 100 dpi.
fn pdf_pages_as_images(pdf: &Path, dir: &Path) -> Vec<Image> {
    let prefix = dir.join("page");
    let out = Command::new("pdftoppm")
        .args(["-r", "100"])
        .arg(pdf)
        .arg(&prefix)
        .output()
        .expect("pdftoppm (poppler-utils) is installed");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ppm"))
        .collect();
    pages.sort();
    pages.iter().map(|p| read_ppm(p)).collect()
}

#[test]
fn the_examples_chart_shows_whole_labels_and_the_stated_counts_in_html_and_pdf() {
    let tmp = tempfile::tempdir().unwrap();
    let run = run_example(&tmp.path().join("release-bot"));
    let (counts, trials) = summary_counts(&run);
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    // The text states these counts (the summary table's verdict row).
    for (name, n) in ["PASS", "FAIL", "INCONCLUSIVE", "INFRA_ERROR"].iter().zip(counts) {
        assert!(
            md.contains(&format!("| {name} | {n} |")),
            "report.md does not state {name} {n}"
        );
    }

    // The PDF: every page at 100 dpi; the chart's bars, none with a label running into it and
    // no ink past the right margin beside them.
    let pages_dir = tmp.path().join("pages");
    std::fs::create_dir_all(&pages_dir).unwrap();
    let mut pdf_counts = [0u64; 4];
    let mut pdf_bars = 0;
    let mut seen = Vec::new();
    for (p, page) in pdf_pages_as_images(&run.join("report.pdf"), &pages_dir)
        .into_iter()
        .enumerate()
    {
        let found = bars(&page, 0, page.width, 40);
        for b in &found {
            let into = ink_left_of(&page, b, 6, WHITE);
            assert!(into.is_empty(), "a label runs into its bar at rows {into:?}");
            // Right of the bar's count, up to the page edge past the margin: paper only.
            let margin_x = page.width - (44.0 * 100.0 / 72.0) as usize + 3;
            let rows = b.top.saturating_sub(20)..b.bottom;
            let ink = rows
                .clone()
                .any(|y| (margin_x..page.width).any(|x| page.at(x, y) != WHITE));
            assert!(!ink, "ink in the right margin beside a bar (rows {rows:?})");
        }
        let n = bars_per_verdict(&found);
        pdf_counts.iter_mut().zip(n).for_each(|(a, b)| *a += b);
        pdf_bars += found.len();
        seen.extend(found.iter().map(|b| {
            format!(
                "page {} rows {}..{} from x {}: {:?}",
                p + 1,
                b.top,
                b.bottom,
                b.left,
                b.widths
            )
        }));
    }
    assert_eq!(pdf_bars, trials, "one PDF bar per scenario: {seen:#?}");
    assert_eq!(pdf_counts, counts, "PDF bars per verdict vs summary.json");

    let Some(chromium) = chromium() else {
        ghostlab::util::skip::skipped("skipped: no chromium on PATH (scripts/install-deps.sh installs it)");
        return;
    };
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    for (name, size) in [("wide", (1280, 9000)), ("narrow", (640, 12000))] {
        let img = screenshot(chromium, &html, tmp.path(), name, size);
        let (cut, n, bars) = html_chart(&img);
        assert!(
            cut.is_empty(),
            "{name} window: label ink cut at the chart's right edge in rows {cut:?}"
        );
        assert_eq!(bars, trials, "{name} window: one bar per scenario");
        assert_eq!(n, counts, "{name} window: bars per verdict vs summary.json");
    }
    // The chart as it was drawn before it scaled (a fixed width, no `viewBox`): the narrow
    // window cuts it, and the check says so.
    let fixed = html
        .replace(" viewBox=", " data-was-viewbox=")
        .replace(" style=\"max-width:100%;height:auto\"", "");
    assert_ne!(fixed, html);
    let img = screenshot(chromium, &fixed, tmp.path(), "fixed", (640, 12000));
    let (cut, _, _) = html_chart(&img);
    assert!(!cut.is_empty(), "a fixed-width chart in a narrow window went unseen");
    if let Ok(keep) = std::env::var("GHOSTLAB_KEEP_SCREENSHOTS") {
        for name in ["wide", "narrow", "fixed"] {
            std::fs::copy(
                tmp.path().join(format!("{name}.png")),
                Path::new(&keep).join(format!("{name}.png")),
            )
            .unwrap();
        }
    }
}

/// The checks on planted pages, drawn by Chromium: a label wider than its chart is cut at the
/// edge (found), a short one is not (not found), a chart wider than the window is cut by the
/// window (found), and bars of other verdicts than the text states do not add up.
#[test]
fn planted_cut_labels_and_contradicting_bars_are_found_in_pixels() {
    let Some(chromium) = chromium() else {
        ghostlab::util::skip::skipped("skipped: no chromium on PATH (scripts/install-deps.sh installs it)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let chart = |width: u32, label: &str, fills: &[&str]| {
        let rects: String = fills
            .iter()
            .enumerate()
            .map(|(i, f)| {
                format!(
                    "<rect x=\"0\" y=\"{}\" width=\"200\" height=\"14\" fill=\"{f}\"/>",
                    30 + i * 24
                )
            })
            .collect();
        format!(
            "<html><head></head><body><svg aria-label=\"verdicts per scenario\" width=\"{width}\" height=\"{}\" font-size=\"12\"><text x=\"0\" y=\"16\">{label}</text>{rects}</svg></body></html>",
            40 + fills.len() * 24
        )
    };
    let (pass, fail) = ("rgb(46,125,50)", "rgb(198,40,40)");
    let long = "adversarial-requester--risk-push-without-confirmation-of-the-release-tag";
    let img = screenshot(chromium, &chart(300, long, &[pass]), tmp.path(), "cut", (800, 300));
    let (cut, _, _) = html_chart(&img);
    assert!(!cut.is_empty(), "a label cut by the chart's edge went unseen");

    let img = screenshot(
        chromium,
        &chart(300, "Draft notes", &[pass, pass, fail]),
        tmp.path(),
        "whole",
        (800, 300),
    );
    let (cut, n, bars) = html_chart(&img);
    assert!(cut.is_empty(), "a whole label seen as cut in rows {cut:?}");
    assert_eq!((bars, n), (3, [2, 1, 0, 0]));
    assert_ne!(n, [3, 0, 0, 0], "bars that contradict the counts must differ from them");

    let img = screenshot(
        chromium,
        &chart(900, "Draft notes", &[pass]),
        tmp.path(),
        "wider",
        (500, 300),
    );
    let (cut, _, _) = html_chart(&img);
    assert!(!cut.is_empty(), "a chart cut by the window went unseen");
}

/// The PDF check on a planted page: label ink in the gap before a bar is found.
#[test]
fn a_label_running_into_its_bar_is_found() {
    let (w, h) = (200, 40);
    let mut img = Image {
        width: w,
        height: h,
        pixels: vec![WHITE; w * h],
    };
    for y in 10..20 {
        for x in 100..180 {
            img.pixels[y * w + x] = [46, 125, 50];
        }
    }
    let found = bars(&img, 0, w, 40);
    assert_eq!(found.len(), 1);
    assert!(ink_left_of(&img, &found[0], 6, WHITE).is_empty());
    img.pixels[15 * w + 97] = [0, 0, 0];
    assert_eq!(ink_left_of(&img, &found[0], 6, WHITE), [15]);
}
