//! The run screen in a real terminal (tmux) while a run is live: Esc asks before it cancels
//! (`n` keeps the run going), and once cancelled the unfinished rows say "cancelled", never
//! "running". The agent is a process host that waits a minute per turn, so the run is live
//! whenever the keys arrive.

use std::process::Command;
use std::time::Duration;

use crate::lab_tmux::{Tmux, accept_steps, copy_example, replace_agent_host, title};

#[test]
fn tmux_esc_asks_before_cancelling_a_live_run_and_rows_then_say_cancelled() {
    if Command::new("tmux").arg("-V").output().is_err() {
        ghostlab::util::skip::skipped("skipped: tmux is not installed");
        return;
    }
    let (dir, _job) = copy_example();
    replace_agent_host(
        dir.path(),
        "hosts:\n  process:\n    command: [sh, -c, \"sleep 60; echo done\"]\n",
    );
    let source = dir.path().join("source-job.yaml");
    let text = std::fs::read_to_string(&source).expect("source job");
    std::fs::write(&source, text.replace("backend: mock", "backend: process")).expect("write");
    let tmux = Tmux {
        socket: format!("ghostlab-lab-run-{}", std::process::id()),
    };
    tmux.start_sized(dir.path(), "NO_COLOR=1", "--from source-job.yaml", (110, 34));
    accept_steps(&tmux, 1..=11);
    tmux.wait_for(&format!("{}deciding", title(12)));
    tmux.keys(&["Enter"]);
    tmux.wait_for("Cases (");
    rows_say(&tmux, "running");

    // Esc asks; `n` keeps the run going.
    tmux.keys(&["Escape"]);
    let asked = tmux.wait_for("Cancel the run?");
    assert!(asked.contains("y cancel the run · n keep running"), "{asked}");
    tmux.keys(&["n"]);
    std::thread::sleep(Duration::from_millis(500));
    let screen = tmux.screen();
    assert!(!screen.contains("Cancel the run?"), "{screen}");
    assert!(cases(&screen).contains("running"), "the run goes on:\n{screen}");

    // Esc, then `y`: cancelled, and the rows that had not finished say so.
    tmux.keys(&["Escape"]);
    tmux.wait_for("Cancel the run?");
    tmux.keys(&["y"]);
    // From the moment the question closes, no row may say running (the run takes a moment
    // to wind down: rows said "running" then).
    let until = std::time::Instant::now() + Duration::from_secs(3);
    while std::time::Instant::now() < until {
        let screen = tmux.screen();
        if !screen.contains("Cancel the run?") {
            assert!(
                !cases(&screen).contains("running"),
                "a row says running after the cancel:\n{screen}"
            );
            // Nor does a cancelled row spin while the run winds down.
            assert_still_marks(&screen);
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    let screen = rows_say(&tmux, "cancelled");
    std::thread::sleep(Duration::from_millis(500));
    let screen = format!("{screen}\n{}", tmux.screen());
    let rows = cases(&screen);
    assert!(!rows.contains("running"), "a row still says running:\n{screen}");
    // A cancelled row stands still: its mark is the same square in frames apart, never a
    // spinner frame.
    for _ in 0..3 {
        assert_still_marks(&tmux.screen());
        std::thread::sleep(Duration::from_millis(150));
    }
    tmux.keys(&["C-c"]);
}

/// Every cancelled row of the Cases table shows the still square, never a spinner frame.
fn assert_still_marks(screen: &str) {
    // The mark is the first cell inside the table's left border.
    let Some(border) = screen
        .lines()
        .find_map(|l| l.find("┌ Cases (").map(|at| l[..at].chars().count()))
    else {
        return;
    };
    for row in cases(screen).lines().filter(|l| l.contains("cancelled")) {
        let mark = row.chars().nth(border + 1);
        assert_eq!(mark, Some('■'), "a cancelled row's mark in {row:?}:\n{screen}");
    }
}

/// The rows of the last Cases table on `screen`: below its header, above its bottom border.
fn cases(screen: &str) -> String {
    let after = screen.rsplit("Cases (").next().unwrap_or_default();
    after
        .lines()
        .skip(2)
        .take_while(|l| !l.contains('└'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until some row of the Cases table contains `word`.
fn rows_say(tmux: &Tmux, word: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    loop {
        let screen = tmux.screen();
        if cases(&screen).contains(word) {
            return screen;
        }
        assert!(std::time::Instant::now() < deadline, "no row says {word}:\n{screen}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The transcript pane at 80×24: an answer longer than the pane wraps onto further rows (none
/// cut at the edge) and PgUp scrolls the pane back to its start.
#[test]
fn tmux_the_transcript_pane_wraps_long_lines_and_scrolls_at_80x24() {
    if Command::new("tmux").arg("-V").output().is_err() {
        ghostlab::util::skip::skipped("skipped: tmux is not installed");
        return;
    }
    let (dir, _job) = copy_example();
    let words: Vec<String> = (1..=60).map(|i| format!("word{i:02}")).collect();
    let answer = format!("{} TAILMARK", words.join(" "));
    replace_agent_host(dir.path(), &format!("hosts:\n  mock:\n    replies: [\"{answer}\"]\n"));
    let tmux = Tmux {
        socket: format!("ghostlab-lab-wrap-{}", std::process::id()),
    };
    tmux.start_sized(dir.path(), "NO_COLOR=1", "--from source-job.yaml", (80, 24));
    accept_steps(&tmux, 1..=11);
    tmux.wait_for(&format!("{}deciding", title(12)));
    tmux.keys(&["Enter"]);
    tmux.wait_for("Results of run");
    tmux.keys(&["d"]);
    let screen = tmux.wait_for("TAILMARK");
    // The answer's end is on the screen over several rows, every word whole (wrapped, not cut
    // at the pane's edge), in order.
    let seen: Vec<String> = regex::Regex::new(r"word\d*")
        .unwrap()
        .find_iter(&screen)
        .map(|m| m.as_str().to_string())
        .collect();
    assert!(
        seen.iter().all(|w| w.len() == 6),
        "a word cut at the edge: {seen:?}\n{screen}"
    );
    let first: usize = seen.first().expect("answer rows")[4..].parse().unwrap();
    let expected: Vec<String> = (first..=60).map(|i| format!("word{i:02}")).collect();
    assert_eq!(seen, expected, "words missing or out of order:\n{screen}");
    let rows_with_answer = screen.lines().filter(|l| l.contains("word")).count();
    assert!(rows_with_answer >= 2, "the answer did not wrap:\n{screen}");
    // PgUp scrolls the pane back to the answer's first word.
    for _ in 0..6 {
        if tmux.screen().contains("word01 ") {
            break;
        }
        tmux.keys(&["PageUp"]);
        std::thread::sleep(Duration::from_millis(200));
    }
    let up = tmux.screen();
    assert!(up.contains("word01 "), "PgUp did not scroll to the start:\n{up}");
    tmux.keys(&["C-c"]);
}
