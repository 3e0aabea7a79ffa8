//! A 1,000-turn transcript renders in every format, with tool results cut by a visible
//! marker while events.jsonl keeps the full text.

use crate::report_support;

use ghostlab::report::{ReportOutputs, TRUNCATION_MARK, write_all};
use report_support::{KNOWN_TOOL, build_long_run};

#[test]
fn thousand_turn_transcript_renders_with_truncation_markers() {
    let fx = build_long_run(1000);
    let started = std::time::Instant::now();
    write_all(&fx.job, &fx.run_dir, &ReportOutputs::defaults(&fx.run_dir)).unwrap();
    println!(
        "1,000-turn report in {:.1} s (debug build)",
        started.elapsed().as_secs_f64()
    );

    let md = std::fs::read_to_string(fx.run_dir.join("report.md")).unwrap();
    let html = std::fs::read_to_string(fx.run_dir.join("report.html")).unwrap();
    for (name, body) in [("md", &md), ("html", &html)] {
        assert_eq!(
            body.matches(TRUNCATION_MARK).count(),
            1000,
            "{name}: one marker per tool result"
        );
        assert!(
            body.contains("Turn 1000: the pipeline is green"),
            "{name}: last turn missing"
        );
    }
    let events = std::fs::read_to_string(fx.run_dir.join("cases/long-conversation/trial-1/events.jsonl")).unwrap();
    assert!(!events.contains("[truncated"), "artifacts keep the full text");

    let pdf = fx.run_dir.join("report.pdf");
    let info = std::process::Command::new("pdfinfo")
        .arg(&pdf)
        .output()
        .expect("pdfinfo is installed");
    let info = String::from_utf8_lossy(&info.stdout);
    let pages: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("pdfinfo reports pages");
    println!("1,000-turn PDF: {pages} pages");
    assert!(pages > 100, "a 1,000-turn transcript spans many pages, got {pages}");
    let text = std::process::Command::new("pdftotext")
        .arg(&pdf)
        .arg("-")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Turn 1000: the pipeline is green"));
    assert!(text.contains(KNOWN_TOOL));
    assert!(text.matches("[truncated, full text in events.jsonl]").count() >= 1000);
    assert!(text.contains(&format!("Page {pages} of {pages}")));
}

#[test]
fn interrupted_run_renders_and_is_not_ready() {
    let fx = build_long_run(3);
    let trial = fx.run_dir.join("cases/long-conversation/trial-1");
    std::fs::remove_file(fx.run_dir.join("summary.json")).unwrap();
    std::fs::remove_file(trial.join("verdict.json")).unwrap();
    // A crash mid-write: the log was never renamed and its last line is torn.
    let events = std::fs::read_to_string(trial.join("events.jsonl")).unwrap();
    std::fs::remove_file(trial.join("events.jsonl")).unwrap();
    std::fs::write(
        trial.join("events.jsonl.partial"),
        format!("{events}{{\"v\":1,\"seq\":99"),
    )
    .unwrap();

    let outputs = ReportOutputs {
        markdown: Some(fx.run_dir.join("r.md")),
        html: None,
        pdf: Some(fx.run_dir.join("r.pdf")),
    };
    write_all(&fx.job, &fx.run_dir, &outputs).unwrap();
    let md = std::fs::read_to_string(fx.run_dir.join("r.md")).unwrap();
    assert!(md.contains("**Readiness: NOT READY**"));
    assert!(md.contains("did not finish"));
    assert!(md.contains("NO VERDICT"));
    assert!(md.contains("verdict.json missing or unreadable"));
    assert!(
        md.contains("Turn 3: the pipeline is green"),
        "events from the .partial log are shown"
    );
    assert!(fx.run_dir.join("r.pdf").is_file());
}
