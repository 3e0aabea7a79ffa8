//! The rollout report of a real suite run (mock agent, local environment, offline emulator,
//! fake scripted judge) rendered by `ghostlab report`, checked with poppler and Chromium.

use crate::report_support;

use assert_cmd::Command;
use report_support::{CANARY, KNOWN_ARG, KNOWN_TOOL, build_run};
use std::path::Path;

/// The PDF's text in reading order; with `first`, one page only.
fn pdftotext(pdf: &Path, first: Option<usize>) -> String {
    let mut cmd = std::process::Command::new("pdftotext");
    if first.is_some() {
        // Keeps a contents line (title … page) on one line.
        cmd.arg("-layout");
    }
    if let Some(p) = first {
        cmd.args(["-f", &p.to_string(), "-l", &p.to_string()]);
    }
    let out = cmd
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils) is installed");
    assert!(
        out.status.success(),
        "pdftotext failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn pdf_pages(pdf: &Path) -> usize {
    let out = std::process::Command::new("pdfinfo")
        .arg(pdf)
        .output()
        .expect("pdfinfo is installed");
    assert!(
        out.status.success(),
        "pdfinfo failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info = String::from_utf8(out.stdout).unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("pdfinfo reports Pages")
}

const HEADINGS: [&str; 8] = [
    "Summary",
    "1. Agent configuration and sandbox provenance",
    "2. Inferred purpose profile",
    "3. Personas and scenarios",
    "4. Transcripts",
    "5. Judge verdicts and checks",
    "6. Tool-usability critique",
    "7. Gates and readiness",
];

/// The section headings appear in `body` in order, each as `prefix + heading`.
fn assert_in_order(body: &str, prefix: &str, what: &str) {
    let mut last = 0;
    for h in HEADINGS {
        let needle = format!("{prefix}{h}");
        let pos = body[last..]
            .find(&needle)
            .unwrap_or_else(|| panic!("{what}: section {h:?} missing or out of order"));
        last += pos + needle.len();
    }
}

#[tokio::test]
async fn report_of_a_suite_run_renders_in_every_format_without_the_canary() {
    let fx = build_run().await;
    // The run's own log was blind to the canary: it is in the artifacts, so this test can fail.
    let raw = std::fs::read_to_string(fx.run_dir.join("cases/notes-maintainer/trial-1/events.jsonl")).unwrap();
    assert!(raw.contains(CANARY), "fixture must leak the canary into events.jsonl");

    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["report", "--job"])
        .arg(&fx.job_file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("report.pdf"), "{printed}");

    let md = std::fs::read_to_string(fx.run_dir.join("report.md")).unwrap();
    let html = std::fs::read_to_string(fx.run_dir.join("report.html")).unwrap();
    let pdf = fx.run_dir.join("report.pdf");
    // Table cells wrap; whitespace is collapsed so a wrapped cell reads as one phrase.
    let text = pdftotext(&pdf, None).split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(keep) = std::env::var_os("GHOSTLAB_REPORT_KEEP") {
        // For the docs: keep the example report where the caller asked.
        std::fs::create_dir_all(&keep).unwrap();
        for f in ["report.md", "report.html", "report.pdf"] {
            std::fs::copy(fx.run_dir.join(f), Path::new(&keep).join(f)).unwrap();
        }
    }
    for (name, body) in [("md", &md), ("html", &html), ("pdf", &text)] {
        says_what_every_format_says(name, body);
    }
    sections_in_order_in_every_format(&md, &html, &text);
    // Unicode through the embedded font.
    assert!(text.contains("café ✓ Ωmega"), "unicode text lost in the PDF");
    assert!(pdf_pages(&pdf) > 3);
    chart_names_scenarios_by_title_once(&html, &pdf);

    // Evidence links point at transcript anchors that exist.
    assert!(html.contains("href=\"#t1-e4\""), "criterion evidence is not linked");
    assert!(html.contains("id=\"t1-e4\""));
    critiques_in_the_run_and_trial_folders(&fx.run_dir);
}

/// What the Markdown, HTML and PDF (`name`) report each say: the canary masked, the tool
/// call, the secret's reference, the denied egress, personas and dataset, the finding, the
/// readiness, the rejected scenario summarised, and unknown usage never shown as 0.
fn says_what_every_format_says(name: &str, body: &str) {
    assert!(!body.contains(CANARY), "{name} leaks the canary");
    assert!(body.contains("[REDACTED]"), "{name} shows no redaction mark");
    assert!(body.contains(KNOWN_TOOL), "{name} lacks the tool call");
    assert!(body.contains(KNOWN_ARG), "{name} lacks the tool call's arguments");
    // A narrow table cell may wrap the reference; its start must show, never the value.
    assert!(body.contains("${RELEASE"), "{name} does not show the secret reference");
    assert!(
        body.contains("api.github.com"),
        "{name} lacks the denied egress attempt"
    );
    assert!(body.contains("Mara the maintainer"), "{name} lacks the personas");
    assert!(
        body.contains("the high-severity risk of pushing a tag"),
        "{name} lacks why a scenario exists"
    );
    assert!(
        body.contains("required parameter `channel`"),
        "{name} lacks the contract finding"
    );
    assert!(body.contains("NOT READY"), "{name} lacks the readiness verdict");
    assert!(body.contains("made the pressure explicit"), "{name} lacks the dataset");
    // A rejected scenario is summarised by its title, not printed in full.
    assert!(
        body.contains("1 rejected in curation (not printed): Force-push over the release branch"),
        "{name} lacks the rejected summary"
    );
    assert!(
        !body.contains("a curated-away scenario"),
        "{name} prints a rejected scenario in full"
    );
    // The fake judge's calls are not metered and the mock agent reports no tokens: their
    // usage is unknown, never 0 (the judge answered nothing in the trial its script ran out).
    assert!(
        body.contains("judge unknown (at least 2040 tokens in 2 calls; not recorded in 7 trials)"),
        "{name}: judge usage"
    );
    assert!(
        body.contains("agent unknown (at least 3660 tokens in 18 calls; not recorded in 8 trials)"),
        "{name}: agent usage"
    );
    assert!(body.contains("emulator none (offline)"), "{name}: emulator usage");
    assert!(
        !body.contains(" 0 model calls") && !body.contains(" / 0 / 0"),
        "{name}: zero usage shown"
    );
}

/// The sections in order in each format; agent HTML is never live in the Markdown.
fn sections_in_order_in_every_format(md: &str, html: &str, text: &str) {
    assert_in_order(md, "\n## ", "markdown");
    assert!(
        !md.contains("<img"),
        "agent HTML must not become live HTML in the Markdown"
    );
    let html_body = &html[html.find("</nav>").unwrap()..];
    assert_in_order(html_body, "\">", "html");
    // In the PDF the contents list every heading first; the body starts after its last entry.
    let body = &text[text.find(HEADINGS[7]).unwrap() + HEADINGS[7].len()..];
    assert_in_order(body, "", "pdf");
}

/// The chart names scenarios by title, each once and whole, in the HTML and the PDF.
fn chart_names_scenarios_by_title_once(html: &str, pdf: &Path) {
    let labels: Vec<&str> = html
        .split("<text class=\"label\"")
        .skip(1)
        .map(|t| {
            // One line each here: `<tspan x="0" dy="0">title</tspan>`.
            let body = &t[t.find("</title>").unwrap() + 8..t.find("</text>").unwrap()];
            body.strip_prefix("<tspan x=\"0\" dy=\"0\">")
                .and_then(|b| b.strip_suffix("</tspan>"))
                .unwrap_or(body)
        })
        .collect();
    assert_eq!(
        labels,
        [
            "Check CI before a release",
            "Draft release notes",
            "Pressure to tag early"
        ],
        "chart labels"
    );
    let summary_page = pdftotext(pdf, Some(2));
    for title in &labels {
        assert_eq!(
            summary_page.matches(title).count(),
            1,
            "PDF chart label {title:?}:\n{summary_page}"
        );
    }
}

/// critique.md in the run folder and in each trial folder.
fn critiques_in_the_run_and_trial_folders(run_dir: &Path) {
    let critique = std::fs::read_to_string(run_dir.join("critique.md")).unwrap();
    assert!(
        critique.contains("release_publish") && critique.contains("retry"),
        "{critique}"
    );
    let trial = std::fs::read_to_string(run_dir.join("cases/ci-check-maintainer/trial-1/critique.md")).unwrap();
    assert!(trial.contains("denied by the host"), "{trial}");
    assert!(run_dir.join("cases/notes-maintainer/trial-2/critique.md").is_file());
}

#[tokio::test]
async fn pdf_contents_page_numbers_point_at_the_sections() {
    let fx = build_run().await;
    let pdf = fx.run_dir.join("only.pdf");
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["report", "--job"])
        .arg(&fx.job_file)
        .arg("--run")
        .arg(&fx.run_dir)
        .arg("--pdf")
        .arg(&pdf)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        !fx.run_dir.join("report.html").exists(),
        "only the requested format is written"
    );
    let contents = pdftotext(&pdf, Some(1));
    let pages = pdf_pages(&pdf);
    assert!(
        contents.contains("Readiness verdict"),
        "the summary does not start below the contents:\n{contents}"
    );
    for h in HEADINGS {
        let line = contents
            .lines()
            .find(|l| l.trim_start().starts_with(h))
            .unwrap_or_else(|| panic!("contents lacks {h:?}:\n{contents}"));
        let page: usize = line.split_whitespace().last().unwrap().parse().unwrap();
        // The body starts below the contents, on page 1.
        assert!(page >= 1 && page <= pages, "{h}: page {page}");
        let text = pdftotext(&pdf, Some(page));
        assert!(text.contains(h), "{h} is not on page {page}");
        assert!(
            text.contains(&format!("Page {page} of {pages}")),
            "footer missing on page {page}"
        );
    }
}

#[tokio::test]
async fn absent_generated_files_are_reported_as_not_generated() {
    let fx = build_run().await;
    let state = fx.job.state_dir();
    for f in [
        "agent-profile.json",
        "personas.json",
        "scenarios.json",
        "dataset.json",
        "contract.json",
    ] {
        std::fs::remove_file(state.join(f)).unwrap();
    }
    let report = ghostlab::report::build_report(&fx.job, &fx.run_dir).unwrap();
    let md = ghostlab::report::render_markdown(&report);
    assert!(md.contains("agent-profile.json not generated"), "{md}");
    assert!(md.contains("personas.json not generated; listed from the run's case.json files"));
    assert!(md.contains("contract.json not generated"));
    assert!(md.contains("dataset.json not generated"));
    // The personas still appear, taken from the cases that ran.
    assert!(md.contains("Nico the newcomer"));
}

fn external_refs(html: &str) -> Vec<String> {
    // Resource references only: a URL in transcript text is escaped text, not a request.
    let re = regex::Regex::new(
        r#"(?i)(src|srcset|href|action|poster|data|xlink:href)\s*=\s*["']?\s*(https?:|file:)?//|@import|url\(\s*["']?\s*(https?:)?//|<link\b|<script\b|<iframe\b"#,
    )
    .unwrap();
    re.find_iter(html).map(|m| m.as_str().to_string()).collect()
}

#[tokio::test]
async fn html_is_self_contained_and_loads_in_headless_chromium() {
    let fx = build_run().await;
    let report = ghostlab::report::build_report(&fx.job, &fx.run_dir).unwrap();
    let html = ghostlab::report::render_html(&report);
    assert_eq!(
        external_refs(&html),
        Vec::<String>::new(),
        "external references in the HTML"
    );
    assert!(
        external_refs("<img src=\"https://x/y.png\">").len() == 1,
        "the check itself must catch a URL"
    );
    assert!(!html.contains("<script"), "no scripts");
    let page = fx.run_dir.join("page.html");
    std::fs::write(&page, &html).unwrap();

    let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"].into_iter().find(|b| {
        std::process::Command::new(b)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        println!(
            "skipped: no chromium on PATH (scripts/install-deps.sh installs it); the headless load check did not run"
        );
        return;
    };
    let shot = fx.run_dir.join("first-screen.png");
    // Every request the browser makes goes to a local recording proxy that answers nothing.
    // A control page with a remote image proves the recorder sees page requests.
    let control = fx.run_dir.join("control.html");
    std::fs::write(
        &control,
        "<html><body>x<img src=\"http://example.invalid/pixel.png\"></body></html>",
    )
    .unwrap();
    let seen = load_through_recorder(chromium, &control, &fx.run_dir.join("control.png"));
    assert!(
        seen.iter().any(|r| r.contains("example.invalid")),
        "the recorder missed the control page's request: {seen:?}"
    );
    let seen = load_through_recorder(chromium, &page, &shot);
    let from_page: Vec<&String> = seen.iter().filter(|r| !is_browser_housekeeping(r)).collect();
    assert!(from_page.is_empty(), "the report made network requests: {from_page:?}");
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    // A blank 1280x900 page compresses to a few KB; a rendered report does not.
    assert!(png.len() > 20_000, "screenshot looks empty ({} bytes)", png.len());
}

#[test]
fn report_without_any_run_is_a_clear_usage_error() {
    report_support::set_canary_env();
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join("release-bot");
    ghostlab::sandbox::files::copy_tree(
        &std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/release-bot"),
        &dst,
    )
    .unwrap();
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["report", "--job"])
        .arg(dst.join("job.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no runs under") && err.contains(".ghostlab/runs"), "{err}");
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["report", "--job"])
        .arg(dst.join("job.yaml"))
        .args(["--run", "/nonexistent/run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/run does not exist"));
}

/// Chromium's own update and time checks, which happen whatever the page is.
fn is_browser_housekeeping(request_line: &str) -> bool {
    [
        "clients2.google.com",
        "update.googleapis.com",
        "accounts.google.com",
        ".gvt1.com",
    ]
    .iter()
    .any(|h| request_line.contains(h))
}

/// Loads `page` headless with every request sent to a local proxy that records the first
/// line and closes; returns the recorded request lines.
fn load_through_recorder(chromium: &str, page: &Path, shot: &Path) -> Vec<String> {
    use std::io::Read;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    // Each connection is read on its own thread, so one that stays silent (Chromium preconnects
    // to the proxy) holds up no other; a silent one carried no request and is not recorded.
    // Once Chromium has exited, connections still waiting to be accepted are read too.
    let read_first_line = |mut conn: std::net::TcpStream, seen: Arc<Mutex<Vec<String>>>| {
        std::thread::spawn(move || {
            conn.set_nonblocking(false).unwrap();
            conn.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
            let mut buf = [0u8; 512];
            let n = conn.read(&mut buf).unwrap_or(0);
            let line = String::from_utf8_lossy(&buf[..n])
                .lines()
                .next()
                .unwrap_or("")
                .to_string();
            if !line.is_empty() {
                seen.lock().unwrap().push(line);
            }
        })
    };
    let recorder = {
        let (seen, stop) = (seen.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut readers = Vec::new();
            loop {
                match listener.accept() {
                    Ok((conn, _)) => readers.push(read_first_line(conn, seen.clone())),
                    Err(_) if stop.load(Ordering::Relaxed) => break,
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
                }
            }
            readers.into_iter().for_each(|r| r.join().unwrap());
        })
    };
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--proxy-server=http://127.0.0.1:{port}"))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1280,900")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    recorder.join().unwrap();
    assert!(
        shot.is_file(),
        "chromium wrote no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    seen.lock().unwrap().clone()
}

#[tokio::test]
async fn each_trial_and_the_run_say_where_their_time_went() {
    let fx = build_run().await;
    let report = ghostlab::report::build_report(&fx.job, &fx.run_dir).unwrap();
    // Every trial has a wall time; the hand-written tool trial recorded no timing events,
    // so all of its time is unaccounted, and none of it is passed off as a phase.
    assert!(report.trials.iter().all(|t| t.timing.is_some()));
    let untimed = report
        .trials
        .iter()
        .find(|t| t.case_id == "ci-check-maintainer")
        .unwrap()
        .timing
        .as_ref()
        .unwrap();
    assert_eq!(untimed.wall_ms, 5_400, "{untimed:?}");
    assert_eq!(untimed.other_ms() + untimed.untimed_turn_ms, 5_400, "{untimed:?}");
    let timed: Vec<_> = report
        .trials
        .iter()
        .filter(|t| t.case_id != "ci-check-maintainer")
        .collect();
    assert_eq!(timed.len(), 8, "4 cases × 2 trials ran through run_suite");
    let first = timed[0].timing.as_ref().unwrap();
    assert!(first.turns >= 1 && first.trials == 1, "{first:?}");
    // The example job's setup step and the sandbox take measurable time.
    assert!(first.setup_ms + first.sandbox_ms > 0, "{first:?}");
    // Each trial's phases add up to its wall time, which is at least its verdict's duration.
    let mut wall_sum = 0;
    for t in &report.trials {
        let time = t.timing.as_ref().unwrap();
        let sum: u64 = time.phases().iter().map(|(_, ms)| ms).sum();
        assert_eq!(sum, time.wall_ms, "{}: {time:?}", t.case_id);
        assert!(time.wall_ms >= t.duration_ms, "{}: {time:?}", t.case_id);
        wall_sum += time.wall_ms;
    }
    // The run's line states that sum, and its parts add up to it within rounding.
    let line = report
        .summary
        .manifest
        .iter()
        .find(|(k, _)| k == "Where the time went")
        .map(|(_, v)| v.clone())
        .unwrap();
    let parts_ms: f64 = line
        .split(" — ")
        .next()
        .unwrap()
        .split(" · ")
        .map(|p| duration_ms(p.rsplit_once('(').unwrap().1.trim_end_matches(')')))
        .sum();
    let stated = duration_ms(line.split(" — ").nth(1).unwrap().split(" of wall time").next().unwrap());
    assert!((stated - wall_sum as f64).abs() <= 50.0, "{line} vs {wall_sum} ms");
    let parts = line.split(" — ").next().unwrap().split(" · ").count() as f64;
    assert!((parts_ms - stated).abs() <= 50.0 * parts, "{line}: parts {parts_ms} ms");

    let md = ghostlab::report::render_markdown(&report);
    let html = ghostlab::report::render_html(&report);
    for (name, body) in [("md", &md), ("html", &html)] {
        assert_eq!(body.matches("Time: ").count(), 10, "{name}: one timing line per trial");
        assert!(body.contains("judge"), "{name}");
        // A phase that took nothing is left out of a trial's line (as of the run's shares).
        for line in body.lines().filter(|l| l.contains("Time: ")) {
            assert!(!line.contains(" 0 ms ·"), "{name}: {line}");
        }
        assert!(body.contains("Where the time went"), "{name}: no run-level breakdown");
        assert!(body.contains("summed over 10 trials"), "{name}");
        assert!(body.contains("other (unaccounted)"), "{name}");
    }
}

/// `850 ms` or `12.3 s` in milliseconds.
fn duration_ms(text: &str) -> f64 {
    let text = text.trim();
    match text.strip_suffix(" ms") {
        Some(ms) => ms.parse().unwrap(),
        None => text.strip_suffix(" s").unwrap().parse::<f64>().unwrap() * 1000.0,
    }
}

#[tokio::test]
async fn no_word_of_the_pdf_is_split_across_lines() {
    let fx = build_run().await;
    let report = ghostlab::report::build_report(&fx.job, &fx.run_dir).unwrap();
    let pdf = fx.run_dir.join("words.pdf");
    std::fs::write(
        &pdf,
        ghostlab::report::render_pdf(&report, &ghostlab::redact::Redactor::for_job(&fx.job)).unwrap(),
    )
    .unwrap();
    // Every word the report contains, from its Markdown twin.
    let md = ghostlab::report::render_markdown(&report);
    let words: std::collections::HashSet<String> = md
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect();
    assert!(
        words.contains("unanswered") || words.contains("upheld"),
        "fixture has verdict words"
    );
    let text = pdftotext(&pdf, None);
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut split = Vec::new();
    for pair in lines.windows(2) {
        let tail: String = pair[0]
            .chars()
            .rev()
            .take_while(|c| c.is_alphabetic())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let head: String = pair[1].chars().take_while(|c| c.is_alphabetic()).collect();
        if tail.is_empty() || head.is_empty() {
            continue;
        }
        let joined = format!("{tail}{head}").to_lowercase();
        if words.contains(&joined) && !words.contains(&tail.to_lowercase()) {
            split.push(format!("{tail}|{head}"));
        }
    }
    assert!(split.is_empty(), "words split across lines: {split:?}");
}
