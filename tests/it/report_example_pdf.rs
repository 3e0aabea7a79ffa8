//! The bundled example's report as a reader prints it: `ghostlab lab --yes` on
//! examples/release-bot offline (mock agent, local backend, every generated case approved),
//! then the PDF read back with poppler. It must stay under 20 pages (it was 50), no word may be
//! split across lines, and the chart's labels must be the scenarios' whole titles, each once.

use crate::common::{copy_release_bot, ghostlab_in};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `pdftotext -raw`: text in the order it was drawn, so a table cell's lines follow each other.
fn pdf_text(pdf: &Path) -> String {
    let out = std::process::Command::new("pdftotext")
        .args(["-raw", "-enc", "UTF-8"])
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils) is installed");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

pub fn pdf_pages(pdf: &Path) -> usize {
    let out = std::process::Command::new("pdfinfo")
        .arg(pdf)
        .output()
        .expect("pdfinfo is installed");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("pdfinfo reports Pages")
}

/// Words of letters only, as they appear in `text`.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_string)
        .collect()
}

/// Line ends and starts that are two halves of one word of the report (`unanswer` / `ed`):
/// joined they are a word of report.md, while at least one half alone is not.
pub fn split_words(pdf_text: &str, vocabulary: &BTreeSet<String>) -> Vec<String> {
    let lines: Vec<&str> = pdf_text.lines().collect();
    let mut found = Vec::new();
    for pair in lines.windows(2) {
        let tail: String = pair[0]
            .trim_end()
            .chars()
            .rev()
            .take_while(|c| c.is_alphabetic())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let head: String = pair[1].trim_start().chars().take_while(|c| c.is_alphabetic()).collect();
        if tail.is_empty() || head.is_empty() {
            continue;
        }
        let joined = format!("{tail}{head}");
        if vocabulary.contains(&joined) && !(vocabulary.contains(&tail) && vocabulary.contains(&head)) {
            found.push(format!("{tail}|{head} ({:?} / {:?})", pair[0], pair[1]));
        }
    }
    found
}

/// The chart's labels as the HTML report writes them (`<text class="label"><title>whole
/// title</title><tspan>line</tspan>…`): the title, once its printed lines were checked to hold
/// every one of its characters (wrapped, none cut).
fn html_chart_labels(html: &str) -> Vec<String> {
    let unescape = |s: &str| {
        s.replace("&amp;", "&")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
    };
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    html.split("<text class=\"label\"")
        .skip(1)
        .map(|t| {
            let t = &t[..t.find("</text>").unwrap()];
            let title = unescape(&t[t.find("<title>").unwrap() + 7..t.find("</title>").unwrap()]);
            let printed: String = t
                .split("<tspan")
                .skip(1)
                .map(|l| unescape(&l[l.find('>').unwrap() + 1..l.find("</tspan>").unwrap()]))
                .collect();
            assert_eq!(
                squeeze(&printed),
                squeeze(&title),
                "the chart prints less than the title"
            );
            title
        })
        .collect()
}

/// The example with a mock agent on the local backend through `lab --yes`; its one run folder.
pub fn run_example(dir: &Path) -> PathBuf {
    copy_release_bot(dir);
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("backend: opencode", "backend: mock")
        .replace("backend: bubblewrap", "backend: local");
    let replies = "[\"I can help with releases. Shall I check CI first?\", \"Done; nothing was tagged.\"]";
    std::fs::write(&job, format!("{text}hosts:\n  mock:\n    replies: {replies}\n")).unwrap();
    let out = ghostlab_in(dir, 600)
        .args(["lab", "--yes", "--sandbox", "local", "--job", "job.yaml"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("report.pdf"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs: Vec<PathBuf> = std::fs::read_dir(dir.join(".ghostlab/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

#[test]
fn the_examples_pdf_is_short_unhyphenated_and_names_each_scenario_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let run = run_example(&tmp.path().join("release-bot"));
    let pdf = run.join("report.pdf");
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    let text = pdf_text(&pdf);
    let trials = std::fs::read_dir(run.join("cases")).unwrap().count();
    assert!(trials >= 15, "the example generates its full dataset: {trials} cases");

    let pages = pdf_pages(&pdf);
    assert!(pages < 20, "{pages} pages for {trials} cases");

    let split = split_words(&text, &words(&md));
    assert!(split.is_empty(), "words split across lines: {split:#?}");

    // The profile prints as sections, not as a dump of its keys.
    for part in [
        "What it is for",
        "Workflows",
        "Risk surface",
        "Out of scope",
        "Inputs read",
    ] {
        assert!(text.contains(part), "PDF lacks the profile part {part:?}");
        assert!(md.contains(&format!("### {part}")), "Markdown lacks {part:?}");
        assert!(html.contains(&format!("<h3>{part}</h3>")), "HTML lacks {part:?}");
    }
    assert!(!text.contains("risk_surface:") && !md.contains("- risk_surface:"));

    // Every chart label is a whole scenario title (or a title with its id), each once in the
    // PDF's chart: none cut to a prefix another label shares.
    let labels = html_chart_labels(&html);
    assert_eq!(labels.len(), trials, "one bar per scenario");
    let distinct: BTreeSet<&String> = labels.iter().collect();
    assert_eq!(distinct.len(), labels.len(), "labels repeat: {labels:?}");
    assert!(labels.iter().all(|l| !l.contains('…')), "a label was cut: {labels:?}");
    chart_counts_agree_with_the_summary(&run, &md, trials);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let chart = &flat[flat.find("Verdicts per scenario").expect("chart heading")..];
    let chart = &chart[..chart.find("PASS FAIL INCONCLUSIVE INFRA_ERROR").expect("chart legend")];
    for label in &labels {
        let whole = label.split_whitespace().collect::<Vec<_>>().join(" ");
        // Each scenario ran once, so its bar's count (1) follows its label.
        assert!(
            chart.contains(&format!("{whole} 1 ")),
            "PDF chart lacks {whole:?}:\n{chart}"
        );
    }
}

/// The chart's counts (the Markdown table beside it) add up to the run's verdict counts in
/// summary.json, column by column, and the bars to one per trial.
fn chart_counts_agree_with_the_summary(run: &Path, md: &str, trials: usize) {
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    let table = md.split("Verdicts per scenario:").nth(1).expect("chart table");
    let mut sums = [0u64; 4];
    let mut bars = 0;
    for row in table.lines().skip(4).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        for (sum, cell) in sums.iter_mut().zip(&cells[cells.len() - 4..]) {
            *sum += cell.parse::<u64>().unwrap_or_else(|_| panic!("{row}"));
        }
        bars += 1;
    }
    assert_eq!(bars, trials, "one bar per scenario");
    let s = &summary["summary"];
    let want = ["pass", "fail", "inconclusive", "infra_error"].map(|k| s[k].as_u64().unwrap());
    assert_eq!(sums, want, "chart counts vs summary.json");
    assert_eq!(sums.iter().sum::<u64>(), s["trials"].as_u64().unwrap());
}

#[test]
fn a_word_cut_at_a_line_end_is_found() {
    let vocabulary = words("the answer was unanswered by the judge");
    assert_eq!(
        split_words("verdict unanswer\ned here", &vocabulary),
        ["unanswer|ed (\"verdict unanswer\" / \"ed here\")"]
    );
    // Two whole words on two lines, and an id broken after its dash, are not splits.
    assert!(split_words("the answer\nwas here", &vocabulary).is_empty());
    assert!(split_words("new-maintainer--wf-\nprepare", &words("new-maintainer--wf-prepare")).is_empty());
}
