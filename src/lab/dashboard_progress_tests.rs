//! Unit tests of the dashboard's progress figures: the planned total from the approved set,
//! elapsed time from the earliest to the latest event with a live clock, the ETA, what an
//! unfinished row says, and Esc asking before a live run is cancelled.

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

use super::dashboard_progress::{planned_trials, scenario_titles};
use super::dashboard_state::{DashboardState, Filter, Nav};
use super::state::Lab;
use super::types::{Effect, Event, Phase};
use crate::generate::dataset::Case;
use crate::generate::{CaseStatus, Dataset};
use crate::trial::Envelope;

const T0: &str = "2026-11-29T12:00:00Z";

fn at(secs: i64) -> DateTime<Utc> {
    T0.parse::<DateTime<Utc>>().unwrap() + Duration::seconds(secs)
}

fn env(secs: i64, case: &str, event: Value) -> Envelope {
    let mut v = json!({"v": 1, "seq": secs, "ts": at(secs), "case": case, "trial_no": 1});
    v.as_object_mut().unwrap().extend(event.as_object().unwrap().clone());
    serde_json::from_value(v).expect("envelope")
}

fn started(scenario: &str) -> Value {
    json!({"type": "case_started", "persona": "p", "scenario": scenario, "trial": 1, "max_turns": 5})
}

fn finished() -> Value {
    json!({"type": "case_finished", "verdict": "PASS", "duration_ms": 10})
}

fn scenarios(n: usize) -> Value {
    let list: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("s{i}"), "title": format!("Title {i}")}))
        .collect();
    json!({"version": 1, "scenarios": list})
}

fn curation(statuses: &[CaseStatus]) -> Dataset {
    Dataset {
        version: 1,
        cases: statuses
            .iter()
            .enumerate()
            .map(|(i, s)| Case {
                id: format!("s{i}"),
                persona: "p".into(),
                scenario: format!("s{i}"),
                status: *s,
                note: None,
            })
            .collect(),
    }
}

#[test]
fn planned_trials_count_only_the_cases_that_will_run() {
    use CaseStatus::*;
    let set = scenarios(23);
    // 7 approved, 16 rejected: the run has 7 trials, not 23.
    let mut statuses = vec![Approved; 7];
    statuses.extend(vec![Rejected; 16]);
    assert_eq!(planned_trials(Some(&set), Some(&curation(&statuses))), Some(7));
    // Needs-edit stays out too; a case never curated (no entry) runs, as at the run's start.
    let partial = curation(&[NeedsEdit, Approved, Pending]);
    assert_eq!(planned_trials(Some(&scenarios(5)), Some(&partial)), Some(4));
    // No curation at all: every scenario runs; a bare list counts the same.
    assert_eq!(planned_trials(Some(&scenarios(3)), None), Some(3));
    assert_eq!(planned_trials(Some(&scenarios(3)["scenarios"]), None), Some(3));
    assert_eq!(planned_trials(None, None), None);
}

#[test]
fn the_header_counts_to_the_planned_total_and_the_eta_stops_when_all_finished() {
    let mut d = DashboardState::new(Some(2));
    d.push(env(0, "a", started("s0")));
    d.push(env(10, "a", finished()));
    assert_eq!((d.done(), d.total()), (1, 2));
    assert_eq!(d.eta_ms(), Some(10_000), "one more trial at the pace of the first");
    d.push(env(11, "b", started("s1")));
    d.push(env(20, "b", finished()));
    assert_eq!((d.done(), d.total()), (2, 2), "finished means the gauge is full");
    assert_eq!(d.eta_ms(), None, "nothing left to wait for");
    // More rows than planned (a resumed run's re-attempts): the total grows, never below done.
    d.push(env(21, "c", started("s2")));
    assert_eq!(d.total(), 3);
}

#[test]
fn elapsed_spans_the_earliest_to_the_latest_event_whatever_order_they_arrive_in() {
    // `ghostlab view` reads trial folders one after another: a later trial's events come first.
    let mut view = DashboardState::new(Some(2));
    for e in [env(60, "b", started("s1")), env(154, "b", finished())] {
        view.push(e);
    }
    for e in [env(0, "a", started("s0")), env(69, "a", finished())] {
        view.push(e);
    }
    assert_eq!(view.elapsed_ms(), 154_000);
    // The live lab saw the same events in time order: the same figure.
    let mut live = DashboardState::new(Some(2));
    for e in [
        env(0, "a", started("s0")),
        env(60, "b", started("s1")),
        env(69, "a", finished()),
        env(154, "b", finished()),
    ] {
        live.push(e);
    }
    assert_eq!(live.elapsed_ms(), view.elapsed_ms());
}

#[test]
fn the_clock_moves_elapsed_between_events_and_stops_with_the_run() {
    let mut d = DashboardState::new(Some(1));
    d.clock(at(-2));
    d.clock(at(3));
    assert_eq!(
        d.elapsed_ms(),
        0,
        "time counts from the first trial's start, as in `view`"
    );
    d.push(env(4, "a", started("s0")));
    d.clock(at(32));
    assert_eq!(
        d.elapsed_ms(),
        28_000 - 250,
        "28 s after the first event (a quarter second behind), not 0.3 s"
    );
    d.push(env(40, "a", finished()));
    d.clock(at(90));
    assert_eq!(
        d.elapsed_ms(),
        36_000,
        "every planned trial finished: the clock adds nothing"
    );
    d.stop_clock();
    assert_eq!(
        d.elapsed_ms(),
        36_000,
        "a finished run counts event times only, as `view` does"
    );
}

/// A millisecond-stamped event.
fn env_ms(ms: i64, case: &str, event: Value) -> Envelope {
    let mut e = env(0, case, event);
    e.ts = at(0) + Duration::milliseconds(ms);
    e
}

/// The figures a live lab shows for `inputs` (ticks of the wall clock and events, in the order
/// the screen gets them), the figure once the run ended, and `view`'s figure for its events.
fn live_and_stored(
    planned: usize,
    inputs: &[(i64, Option<(&str, Value)>)],
    cancel_at: Option<usize>,
) -> (Vec<u64>, u64, u64) {
    let mut live = DashboardState::new(Some(planned));
    let mut stored = DashboardState::new(Some(planned));
    let mut shown = Vec::new();
    for (i, (ms, event)) in inputs.iter().enumerate() {
        if cancel_at == Some(i) {
            live.cancelled = true;
        }
        match event {
            None => live.clock(at(0) + Duration::milliseconds(*ms)),
            Some((case, e)) => {
                live.push(env_ms(*ms, case, e.clone()));
                stored.push(env_ms(*ms, case, e.clone()));
            }
        }
        shown.push(live.elapsed_ms());
    }
    live.stop_clock();
    (shown, live.elapsed_ms(), stored.elapsed_ms())
}

/// Ticks every 120 ms from `from` to `to` (exclusive).
fn ticks(from: i64, to: i64) -> Vec<(i64, Option<(&'static str, Value)>)> {
    (from..to).step_by(120).map(|t| (t, None)).collect()
}

fn assert_never_steps_back(shown: &[u64], last: u64, stored: u64) {
    for (i, pair) in shown.windows(2).enumerate() {
        assert!(
            pair[1] >= pair[0],
            "the clock stepped back at input {}: {shown:?}",
            i + 1
        );
    }
    let peak = shown.iter().copied().max().unwrap_or(0);
    assert!(last >= peak, "the run ended on {last} ms after showing {peak} ms");
    assert_eq!(last, stored, "the lab ends on a figure other than `view`'s");
}

#[test]
fn the_clock_never_steps_back_and_ends_on_views_figure() {
    // Two trials; each event reaches the screen 100 ms after it was stamped, so a tick in
    // between reads a later time than the event carries. After the last trial the report takes
    // five seconds, with the clock ticking.
    let mut inputs = ticks(0, 500);
    inputs.push((380, Some(("a", started("s0")))));
    inputs.extend(ticks(500, 3_000));
    inputs.push((2_950, Some(("b", started("s1")))));
    inputs.extend(ticks(3_000, 9_000));
    // Stamped at 8.85 s and 11.8 s, they reach the screen after the ticks of 8.88 s and 11.88 s.
    inputs.push((8_850, Some(("a", finished()))));
    inputs.extend(ticks(9_000, 12_000));
    inputs.push((11_800, Some(("b", finished()))));
    inputs.extend(ticks(12_000, 17_000));
    let (shown, last, stored) = live_and_stored(2, &inputs, None);
    assert_never_steps_back(&shown, last, stored);
    assert_eq!(stored, 11_800 - 380);
    assert!(
        shown.iter().any(|&ms| ms > 8_000 && ms < 8_470),
        "the clock moved between events"
    );
}

#[test]
fn the_clock_stops_at_a_cancel_and_events_out_of_order_never_turn_it_back() {
    // Parallel trials: b's start (stamped earlier) reaches the screen after a's; the run is
    // cancelled at 4 s (the clock stops there) and a trial's last event comes after the cancel.
    let mut inputs = ticks(0, 1_000);
    inputs.push((900, Some(("a", started("s0")))));
    inputs.push((700, Some(("b", started("s1")))));
    inputs.extend(ticks(1_000, 4_000));
    let cancel = inputs.len();
    inputs.extend(ticks(4_000, 6_000));
    inputs.push((5_500, Some(("a", finished()))));
    inputs.extend(ticks(6_000, 8_000));
    let (shown, last, stored) = live_and_stored(3, &inputs, Some(cancel));
    assert_never_steps_back(&shown, last, stored);
    assert_eq!(stored, 5_500 - 700);
}

#[test]
fn a_clock_set_back_does_not_turn_elapsed_back() {
    let mut d = DashboardState::new(Some(2));
    d.push(env(0, "a", started("s0")));
    d.clock(at(20));
    let before = d.elapsed_ms();
    d.clock(at(5));
    assert_eq!(d.elapsed_ms(), before);
}

#[test]
fn unfinished_rows_say_running_cancelled_or_unfinished() {
    let mut d = DashboardState::new(Some(2));
    d.push(env(0, "a", started("s0")));
    d.push(env(1, "b", started("s1")));
    d.push(env(2, "b", finished()));
    let (a, b) = (d.rows[0].clone(), d.rows[1].clone());
    assert_eq!(d.row_status(&a, true), "running");
    assert_eq!(d.row_status(&b, true), "PASS");
    assert_eq!(d.row_status(&a, false), "unfinished", "a stored run that stopped");
    d.cancelled = true;
    assert_eq!(d.row_status(&a, false), "cancelled");
    assert_eq!(d.row_status(&a, true), "cancelled", "even before the runner stops");
    assert_eq!(d.row_status(&b, false), "PASS");
}

#[test]
fn rows_show_the_scenario_title_and_filters_match_it_in_any_case() {
    let mut d = DashboardState::new(None);
    d.titles = scenario_titles(Some(&scenarios(2)));
    d.push(env(0, "p--s0", started("s0")));
    d.push(env(1, "p--s9", started("s9")));
    assert_eq!(d.title(&d.rows[0].clone()), "Title 0");
    assert_eq!(d.title(&d.rows[1].clone()), "s9", "no title known: the id");
    d.navigate(Nav::SetFilter(Filter {
        text: "TITLE 0".into(),
        ..Filter::default()
    }));
    assert_eq!(d.visible(), [0]);
    d.navigate(Nav::SetFilter(Filter {
        persona: Some("P".into()),
        ..Filter::default()
    }));
    assert_eq!(d.visible(), [0, 1], "persona filter ignores case");
}

fn running_lab() -> Lab {
    let mut lab = Lab::new();
    lab.phase = Phase::Running {
        dashboard: DashboardState::new(Some(23)),
        tick: 0,
        outcome: None,
    };
    lab
}

fn dashboard(lab: &Lab) -> &DashboardState {
    match &lab.phase {
        Phase::Running { dashboard, .. } => dashboard,
        _ => panic!("not running"),
    }
}

#[test]
fn esc_during_a_live_run_asks_before_cancelling() {
    let mut lab = running_lab();
    assert_eq!(
        lab.handle(Event::Cancel),
        Vec::<Effect>::new(),
        "Esc alone cancels nothing"
    );
    assert!(dashboard(&lab).confirm_cancel);
    assert_eq!(lab.handle(Event::CancelRunDeclined), Vec::<Effect>::new());
    assert!(!dashboard(&lab).confirm_cancel && !dashboard(&lab).cancelled);
    // A stray yes without the question open does nothing either.
    assert_eq!(lab.handle(Event::CancelRunConfirmed), Vec::<Effect>::new());
    lab.handle(Event::Cancel);
    assert_eq!(lab.handle(Event::CancelRunConfirmed), vec![Effect::CancelRun]);
    assert!(dashboard(&lab).cancelled);
}

#[test]
fn quitting_a_live_run_marks_its_rows_cancelled_and_the_runner_states_the_total() {
    let mut lab = running_lab();
    lab.handle(Event::RunPlanned(7));
    assert_eq!(
        dashboard(&lab).planned,
        Some(7),
        "the runner's count wins over the estimate"
    );
    lab.handle(Event::Clock(at(5)));
    assert_eq!(dashboard(&lab).now, Some(at(5)));
    lab.handle(Event::Interrupt);
    let fx = lab.handle(Event::QuitConfirmed);
    assert!(fx.contains(&Effect::CancelRun), "{fx:?}");
    assert!(dashboard(&lab).cancelled);
}
