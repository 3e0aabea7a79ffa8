//! The transcript pane in a real terminal (tmux), at 160×45 and 80×24: Enter shows the bottom
//! turn in full (a tool call's arguments past the one-line preview and every line of its
//! result) and again collapses it; the mouse wheel over the pane scrolls the transcript back
//! to its first turn and forward to its end. `ghostlab view` of a stored run draws the same
//! pane as the lab's step 12 (`tui::transcript`), with a tool call the mock agent cannot make.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use serde_json::json;

use crate::lab_tmux::Tmux;

const CASE: &str = "demo-user--tool-demo";
const TURNS: u32 = 30;

/// A run folder with one unfinished trial: `TURNS` short turns, then one whose tool call has
/// arguments longer than the preview and a three-line result.
fn write_run(dir: &Path) -> std::path::PathBuf {
    let run = dir.join("run-1");
    let trial = run.join(format!("cases/{CASE}/trial-1"));
    std::fs::create_dir_all(&trial).unwrap();
    let mut events = vec![
        json!({"type": "case_started", "persona": "demo-user", "scenario": "tool-demo", "trial": 1, "max_turns": 40}),
    ];
    for turn in 1..=TURNS {
        events.push(
            json!({"type": "user_message", "turn": turn, "text": format!("question number {turn}"), "latency_ms": 5}),
        );
        events.push(json!({"type": "agent_message", "turn": turn, "text": format!("answer number {turn}"), "latency_ms": 9, "tokens": 10, "cost_usd": 0.0}));
    }
    let last = TURNS + 1;
    let notes = format!("ARGSTART {}ARGEND", "word ".repeat(38));
    events.push(json!({"type": "user_message", "turn": last, "text": "publish it", "latency_ms": 5}));
    events.push(
        json!({"type": "tool_call", "turn": last, "call_id": "c1", "tool": "release_publish",
        "arguments": {"notes": notes, "ref": "main"}, "result": "line one\nRESULT-LINE-2\nRESULT-LINE-3",
        "status": "completed", "latency_ms": 40}),
    );
    let t0 = Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap();
    let lines: Vec<String> = events
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let mut v = json!({"v": 1, "seq": i + 1, "ts": t0 + chrono::Duration::seconds(i as i64), "case": CASE, "trial_no": 1});
            v.as_object_mut().unwrap().extend(e.as_object().unwrap().clone());
            v.to_string()
        })
        .collect();
    std::fs::write(trial.join("events.jsonl"), lines.join("\n") + "\n").unwrap();
    run
}

/// Waits until `test` holds for the screen; the last screen either way.
fn settle(tmux: &Tmux, test: impl Fn(&str) -> bool) -> (bool, String) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let s = tmux.screen();
        if test(&s) || Instant::now() > deadline {
            return (test(&s), s);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A wheel notch (SGR mouse report, as a terminal sends it) at the 0-based cell `(x, y)`.
fn wheel(tmux: &Tmux, up: bool, (x, y): (usize, usize)) {
    let button = if up { 64 } else { 65 };
    tmux.keys(&["-l", &format!("\x1b[<{button};{};{}M", x + 1, y + 1)]);
}

/// A cell inside the transcript pane: two rows under its title (the case id on its border).
fn inside_transcript(screen: &str) -> (usize, usize) {
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(CASE))
        .unwrap_or_else(|| panic!("no transcript pane titled {CASE}:\n{screen}"));
    let x = line[..line.find(CASE).unwrap()].chars().count();
    (x + 2, y + 2)
}

fn enter_expands_and_the_wheel_scrolls(size: (u16, u16)) {
    if Command::new("tmux").arg("-V").output().is_err() {
        ghostlab::util::skip::skipped("skipped: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = write_run(dir.path());
    let tmux = Tmux {
        socket: format!("ghostlab-transcript-{}-{}x{}", std::process::id(), size.0, size.1),
    };
    tmux.start_command(dir.path(), "NO_COLOR=1", &format!("view {}", run.display()), size);
    let collapsed = tmux.wait_for("→ line one");
    assert!(collapsed.contains("tool release_publish("), "{collapsed}");
    for hidden in ["ARGEND", "RESULT-LINE-3", "arguments:"] {
        assert!(!collapsed.contains(hidden), "{hidden} shown before Enter:\n{collapsed}");
    }

    // Enter: the bottom turn in full.
    tmux.keys(&["Enter"]);
    let (ok, full) = settle(&tmux, |s| s.contains("RESULT-LINE-3"));
    assert!(ok, "Enter did not expand the turn:\n{full}");
    for shown in ["ARGEND", "RESULT-LINE-2", "RESULT-LINE-3", "\"ref\": \"main\""] {
        assert!(full.contains(shown), "{shown} missing from the expanded turn:\n{full}");
    }
    // Where the pane is shorter than the turn, its head is a wheel notch or two back.
    let at = inside_transcript(&full);
    for _ in 0..5 {
        if tmux.screen().contains("tool release_publish, arguments:") {
            break;
        }
        wheel(&tmux, true, at);
        std::thread::sleep(Duration::from_millis(100));
    }
    let (ok, head) = settle(&tmux, |s| s.contains("tool release_publish, arguments:"));
    assert!(ok, "the expanded turn's head is not above its result:\n{head}");
    assert!(head.contains("ARGSTART"), "{head}");
    tmux.keys(&["End"]);
    // Enter again: collapsed.
    tmux.keys(&["Enter"]);
    let (ok, again) = settle(&tmux, |s| !s.contains("RESULT-LINE-3") && s.contains("→ line one"));
    assert!(ok, "a second Enter did not collapse the turn:\n{again}");

    // The wheel over the pane: back to the first turn, then forward to the end.
    let at = inside_transcript(&again);
    assert!(
        !again.contains("[1] user:"),
        "the pane shows everything already:\n{again}"
    );
    for _ in 0..60 {
        if tmux.screen().contains("[1] user:") {
            break;
        }
        wheel(&tmux, true, at);
        std::thread::sleep(Duration::from_millis(60));
    }
    let (ok, top) = settle(&tmux, |s| s.contains("[1] user: question number 1"));
    assert!(ok, "the wheel did not scroll back to the first turn:\n{top}");
    assert!(!top.contains("→ line one"), "the tail still shows at the top:\n{top}");
    for _ in 0..60 {
        if tmux.screen().contains("→ line one") {
            break;
        }
        wheel(&tmux, false, at);
        std::thread::sleep(Duration::from_millis(60));
    }
    let (ok, end) = settle(&tmux, |s| s.contains("→ line one"));
    assert!(ok, "the wheel did not scroll forward to the end:\n{end}");
    tmux.keys(&["q"]);
}

#[test]
fn tmux_enter_expands_a_turn_and_the_wheel_scrolls_the_transcript_at_160x45() {
    enter_expands_and_the_wheel_scrolls((160, 45));
}

#[test]
fn tmux_enter_expands_a_turn_and_the_wheel_scrolls_the_transcript_at_80x24() {
    enter_expands_and_the_wheel_scrolls((80, 24));
}
