//! Benchmark: the run dashboard while 500 trials × 20 turns stream in (4 running at a time),
//! drawn every 50 events in the lab's step-12 frame (120×40) and in `ghostlab view`'s frame
//! (200×60); frame time (mean, p99, max) and peak memory (VmHWM). Rows are summaries; only the
//! focused trial keeps transcript events (`TRANSCRIPT_RING` of them).
//!
//! Run: `cargo run --release --example run_dashboard`.

use chrono::{TimeZone, Utc};
use ghostlab::lab::dashboard_state::{DashboardState, TRANSCRIPT_RING};
use ghostlab::lab::stored_run::StoredRun;
use ghostlab::lab::{Event, Lab, Phase, Proposal, Saved, StepId};
use ghostlab::spec::Job;
use ghostlab::trial::Envelope;
use ghostlab::tui::run_view::{ViewUi, draw_view};
use ghostlab::tui::{Theme, Ui, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::time::Instant;

/// Trials streamed unless the first argument says otherwise (`run_dashboard 5000` shows whether
/// memory follows the run's size).
const DEFAULT_TRIALS: usize = 500;
const TURNS: u32 = 20;
const AT_ONCE: usize = 4;

fn running_lab() -> Lab {
    let mut job = Job::default();
    job.lab.completed = StepId::ALL[..11].iter().map(|s| s.id().to_string()).collect();
    let mut lab = Lab::resume(job, Saved::default());
    lab.handle(Event::Start);
    let mut p = Proposal::new("version: 1\n", vec![]);
    p.editable = false;
    lab.handle(Event::Proposed {
        step: StepId::Preview,
        proposal: p,
    });
    lab.handle(Event::Accept);
    assert!(matches!(lab.phase, Phase::Running { .. }));
    lab
}

fn envelope(seq: u64, case: &str, event: serde_json::Value) -> Envelope {
    let ts = Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap() + chrono::Duration::milliseconds(seq as i64 * 40);
    let mut v = json!({"v": 1, "seq": seq, "ts": ts, "case": case});
    v.as_object_mut().unwrap().extend(event.as_object().unwrap().clone());
    serde_json::from_value(v).expect("envelope")
}

/// The events of trial `i`, in order.
fn trial_events(i: usize) -> Vec<serde_json::Value> {
    let mut out = vec![json!({"type": "case_started", "persona": format!("persona-{}", i % 7),
        "scenario": format!("scenario-{i:04}"), "trial": 1, "max_turns": TURNS})];
    for turn in 1..=TURNS {
        out.push(json!({"type": "user_message", "turn": turn, "text": format!("please check release {turn} and tell me what you would do next"), "latency_ms": 5}));
        out.push(json!({"type": "tool_call", "turn": turn, "call_id": "c", "tool": "release_ci_status",
            "arguments": {"ref": "main", "turn": turn}, "result": "green: 42 checks passed", "status": "completed", "latency_ms": 40}));
        out.push(json!({"type": "agent_message", "turn": turn, "text": "CI is green. I would draft the notes first; shall I?", "latency_ms": 900, "tokens": 350, "cost_usd": 0.002}));
    }
    out.push(
        json!({"type": "case_finished", "verdict": if i.is_multiple_of(5) { "FAIL" } else { "PASS" }, "duration_ms": 30_000}),
    );
    out
}

/// Hands every event of the run to `f`, `AT_ONCE` trials interleaved at a time, generating
/// them batch by batch so the stream itself does not count toward peak memory.
fn stream(trials: usize, mut f: impl FnMut(Envelope)) {
    let mut seq = 0u64;
    for batch in (0..trials).collect::<Vec<_>>().chunks(AT_ONCE) {
        let events: Vec<Vec<serde_json::Value>> = batch.iter().map(|&i| trial_events(i)).collect();
        let longest = events.iter().map(Vec::len).max().unwrap_or(0);
        for k in 0..longest {
            for (j, evs) in events.iter().enumerate() {
                if let Some(e) = evs.get(k) {
                    seq += 1;
                    f(envelope(seq, &format!("case-{:04}", batch[j]), e.clone()));
                }
            }
        }
    }
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn stats(mut us: Vec<f64>) -> (f64, f64, f64) {
    us.sort_by(f64::total_cmp);
    let mean = us.iter().sum::<f64>() / us.len() as f64;
    let p99 = us[(us.len() * 99 / 100).min(us.len() - 1)];
    (mean, p99, *us.last().unwrap_or(&0.0))
}

fn main() {
    let trials: usize = std::env::args()
        .nth(1)
        .map_or(DEFAULT_TRIALS, |a| a.parse().expect("TRIALS: a number"));
    let theme = Theme::builtin("default").expect("theme");
    let mut total = 0usize;
    let base_hwm = vm_hwm_kib();
    let mut lab = running_lab();
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    let mut lab_us = Vec::new();
    let mut view = StoredRun {
        dashboard: DashboardState::new(Some(trials)),
        results: None,
    };
    let mut wide = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
    let mut view_us = Vec::new();
    let fold = Instant::now();
    stream(trials, |env| {
        let n = total;
        total += 1;
        view.dashboard.push(env.clone());
        lab.handle(Event::RunEvent(Box::new(env)));
        if n.is_multiple_of(50) {
            let t = Instant::now();
            term.draw(|f| draw(f, &lab, &Ui::default(), &theme)).expect("draw");
            lab_us.push(t.elapsed().as_secs_f64() * 1e6);
            let t = Instant::now();
            wide.draw(|f| draw_view(f, &view, &ViewUi::default(), &theme))
                .expect("draw");
            view_us.push(t.elapsed().as_secs_f64() * 1e6);
        }
    });
    let fold_s = fold.elapsed().as_secs_f64();
    let Phase::Running { dashboard, .. } = &lab.phase else {
        unreachable!()
    };
    let kept = dashboard.focus.events.len() + view.dashboard.focus.events.len();
    println!(
        "{trials} trials × {TURNS} turns = {total} events, {AT_ONCE} at a time; profile: {}",
        if cfg!(debug_assertions) { "dev" } else { "release" }
    );
    println!("| frame | frames | mean µs | p99 µs | max µs |");
    println!("|---|---:|---:|---:|---:|");
    for (name, us) in [("lab step 12, 120×40", lab_us), ("ghostlab view, 200×60", view_us)] {
        let n = us.len();
        let (mean, p99, max) = stats(us);
        println!("| {name} | {n} | {mean:.0} | {p99:.0} | {max:.0} |");
    }
    println!(
        "folding + drawing everything: {fold_s:.2} s; transcript events kept in both states together: {} of {total} each (ring {TRANSCRIPT_RING}, focused trial only)",
        kept
    );
    println!(
        "peak RSS (VmHWM): {:.1} MiB before the run, {:.1} MiB after ",
        base_hwm as f64 / 1024.0,
        vm_hwm_kib() as f64 / 1024.0
    );
}
