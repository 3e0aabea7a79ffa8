//! Unit tests of the dashboard's fold: rows keyed by trial, summaries without transcripts, and
//! the focused trial's ring.

use super::dashboard_state::{Coverage, DashboardState, Nav, TranscriptError, TrialKey};
use super::focus_transcript::TRANSCRIPT_RING;
use crate::trial::{Envelope, Verdict};
use serde_json::{Value, json};

fn env(seq: u64, case: &str, trial: u32, event: Value) -> Envelope {
    let mut v = json!({"v": 1, "seq": seq, "ts": "2026-11-29T12:00:00Z", "case": case, "trial_no": trial});
    v.as_object_mut().unwrap().extend(event.as_object().unwrap().clone());
    serde_json::from_value(v).expect("envelope")
}

fn started(trial: u32) -> Value {
    json!({"type": "case_started", "persona": "p", "scenario": "s", "trial": trial, "max_turns": 5})
}

fn said(turn: u32) -> Value {
    json!({"type": "user_message", "turn": turn, "text": format!("turn {turn}"), "latency_ms": 1})
}

fn finished(v: &str) -> Value {
    json!({"type": "case_finished", "verdict": v, "duration_ms": 10})
}

#[test]
fn two_trials_of_one_case_running_at_once_keep_their_own_rows() {
    let mut d = DashboardState::new(Some(2));
    let events = [
        (
            1,
            json!({"type": "sandbox_ready", "role": "agent", "backend": "bubblewrap", "detail": ""}),
        ),
        (
            2,
            json!({"type": "sandbox_ready", "role": "agent", "backend": "bubblewrap", "detail": ""}),
        ),
        (1, started(1)),
        (2, started(2)),
        (1, said(1)),
        (2, said(1)),
        (2, said(2)),
        (2, said(3)),
        (1, finished("PASS")),
        (2, said(4)),
        (2, finished("FAIL")),
    ];
    for (seq, (trial, e)) in events.into_iter().enumerate() {
        d.push(env(seq as u64 + 1, "c", trial, e));
    }
    let rows: Vec<(u32, u32, Option<Verdict>)> = d.rows.iter().map(|r| (r.trial, r.turn, r.verdict)).collect();
    assert_eq!(
        rows,
        [(1, 1, Some(Verdict::Pass)), (2, 4, Some(Verdict::Fail))],
        "each trial's events land on its own row"
    );
    assert_eq!(d.max_trial, 2);
    assert_eq!(d.trial_label(&d.rows[1]), "c #2");
    assert_eq!(d.rows[1].events, 7, "sandbox, start, four turns, finish");
}

#[test]
fn a_row_is_a_summary_and_only_the_focused_trial_keeps_events() {
    let mut d = DashboardState::new(None);
    for case in ["a", "b"] {
        d.push(env(1, case, 1, started(1)));
    }
    for turn in 1..=300 {
        d.push(env(turn as u64 + 1, "a", 1, said(turn)));
        d.push(env(turn as u64 + 1, "b", 1, said(turn)));
    }
    assert_eq!(d.focus.row, Some(1), "following the newest trial");
    assert_eq!(d.focus.events.len(), TRANSCRIPT_RING);
    assert_eq!(d.focus.dropped, 301 - TRANSCRIPT_RING);
    assert!(d.focus.events.iter().all(|e| e.case == "b"));
    assert_eq!((d.rows[0].turn, d.rows[0].events), (300, 301));

    d.navigate(Nav::Up);
    let key = TrialKey {
        case: "a".into(),
        trial: 1,
    };
    assert_eq!(d.focus.coverage, Coverage::Loading { earlier: 301 });
    assert_eq!(d.wants_transcript(), Some(key.clone()));
    // What arrives while its file is read is kept, and not doubled by the read.
    d.push(env(302, "a", 1, said(301)));
    let stored: Vec<Envelope> = (1..=302).map(|s| env(s, "a", 1, said(s as u32))).collect();
    d.fill_transcript(&key, Ok(stored));
    assert_eq!(d.focus.coverage, Coverage::Whole);
    assert_eq!(d.focus.events.len(), TRANSCRIPT_RING);
    assert_eq!(d.focus.dropped, 302 - TRANSCRIPT_RING);
    assert_eq!(d.focus.events.back().map(|e| e.seq), Some(302));
    assert_eq!(d.wants_transcript(), None);
}

#[test]
fn a_transcript_that_cannot_be_read_back_says_what_it_shows() {
    let mut d = DashboardState::new(None);
    d.push(env(1, "a", 1, started(1)));
    d.push(env(2, "a", 1, said(1)));
    d.push(env(1, "b", 1, started(1)));
    d.navigate(Nav::Up);
    let key = d.wants_transcript().expect("wants a's earlier events");
    d.push(env(3, "a", 1, said(2)));
    // A late answer for a trial no longer selected is ignored.
    d.fill_transcript(
        &TrialKey {
            case: "b".into(),
            trial: 1,
        },
        Ok(vec![]),
    );
    d.fill_transcript(&key, Err(TranscriptError::NotOnDisk));
    assert_eq!(
        d.focus.coverage,
        Coverage::SinceSelected {
            earlier: 2,
            why: TranscriptError::NotOnDisk
        }
    );
    assert_eq!(d.focus.events.len(), 1, "the event that arrived since");
}

#[test]
fn old_logs_without_trial_numbers_still_fold_by_case() {
    let mut d = DashboardState::new(None);
    d.push(env(1, "c", 0, started(1)));
    d.push(env(2, "c", 0, said(1)));
    d.push(env(3, "c", 0, finished("PASS")));
    d.push(env(1, "c", 0, started(2)));
    d.push(env(2, "c", 0, said(1)));
    let rows: Vec<(u32, Option<Verdict>)> = d.rows.iter().map(|r| (r.trial, r.verdict)).collect();
    assert_eq!(rows, [(1, Some(Verdict::Pass)), (2, None)]);
}
