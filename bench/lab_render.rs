//! Benchmark: frame render time of the lab's step-12 screen with 100 / 1,000 / 10,000 / 100,000
//! events in the transcript, and peak memory (VmHWM). Results are ratios within one run.
//!
//! Run: `cargo run --example lab_render [--release]`.

use ghostlab::lab::{Event, Lab, Phase, Proposal, Saved, StepId};
use ghostlab::spec::Job;
use ghostlab::tui::{Theme, Ui, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::Instant;

fn running_lab(events: usize) -> Lab {
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
    for i in 0..events {
        let env = serde_json::json!({"v": 1, "seq": i, "ts": "2026-11-29T12:00:00Z", "case": "persona/scenario",
            "type": "agent_message", "turn": i / 2 + 1, "text": format!("reply number {i} with some words in it"),
            "latency_ms": 800, "tokens": 120, "cost_usd": 0.0});
        lab.handle(Event::RunEvent(Box::new(
            serde_json::from_value(env).expect("envelope"),
        )));
    }
    lab
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

fn main() {
    let theme = Theme::builtin("default").expect("theme");
    let ui = Ui::default();
    let frames = 300;
    let base_hwm = vm_hwm_kib();
    let mut results = Vec::new();
    for events in [100usize, 1_000, 10_000, 100_000] {
        let lab = running_lab(events);
        let mut term = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
        term.draw(|f| draw(f, &lab, &ui, &theme)).expect("warm-up");
        let start = Instant::now();
        for _ in 0..frames {
            term.draw(|f| draw(f, &lab, &ui, &theme)).expect("draw");
        }
        let per_frame = start.elapsed().as_secs_f64() * 1e6 / frames as f64;
        results.push((events, per_frame, vm_hwm_kib()));
        drop(lab);
    }
    let base = results[0].1;
    println!(
        "frame 120x40, {frames} frames each; profile: {}",
        if cfg!(debug_assertions) { "dev" } else { "release" }
    );
    println!("| events | µs/frame | ratio vs 100 | peak RSS (VmHWM) MiB |");
    println!("|---:|---:|---:|---:|");
    for (events, us, hwm) in &results {
        println!(
            "| {events} | {us:.0} | {:.2} | {:.1} |",
            us / base,
            *hwm as f64 / 1024.0
        );
    }
    println!(
        "process peak before building transcripts: {:.1} MiB",
        base_hwm as f64 / 1024.0
    );
}
