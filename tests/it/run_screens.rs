//! The run dashboard, the results screen and `ghostlab view`'s frame: each state (empty, one
//! trial, many, repeated trials, searching, failed, results) for `screen_matrix`, which
//! snapshots them at 80×24 and 160×40 in every theme; and the selection rules (follow, pin,
//! up/down, filters).

use chrono::{TimeZone, Utc};
use ghostlab::app::RunResults;
use ghostlab::app::run_results::{FirstFailure, TrialResult};
use ghostlab::lab::dashboard_state::{DashboardState, Filter, Nav, Screen, Selection};
use ghostlab::lab::stored_run::StoredRun;
use ghostlab::lab::{Event, Lab, Phase, Saved, StepId};
use ghostlab::trial::{Envelope, Verdict};
use ghostlab::tui::run_view::{ViewUi, draw_view};
use ghostlab::tui::{Theme, Ui, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use serde_json::json;

use crate::lab_review_snapshots::{settings, text_of};

pub fn env(seq: u64, secs: i64, case: &str, event: serde_json::Value) -> Envelope {
    let ts = Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap() + chrono::Duration::seconds(secs);
    let mut v = json!({"v": 1, "seq": seq, "ts": ts, "case": case});
    v.as_object_mut().unwrap().extend(event.as_object().unwrap().clone());
    serde_json::from_value(v).expect("envelope")
}

/// The events of trial `i` of a run: started, `turns` turns with a tool call each, then
/// `verdict` if any.
pub fn trial_events(i: usize, turns: u32, verdict: Option<Verdict>) -> Vec<Envelope> {
    let persona = ["hurried-maintainer", "careful-reviewer", "new-contributor"][i % 3];
    let case = format!("{persona}--scenario-{i:03}");
    let t = i as i64 * 7;
    let mut out = vec![
        json!({"type": "case_started", "persona": persona, "scenario": format!("scenario-{i:03}"), "trial": 1, "max_turns": 6}),
    ];
    let mut at = vec![t];
    for turn in 1..=turns {
        out.push(json!({"type": "user_message", "turn": turn, "text": format!("Please cut release 1.{turn}.0"), "latency_ms": 5}));
        out.push(json!({"type": "tool_call", "turn": turn, "call_id": "c1", "tool": "release_ci_status", "arguments": {"ref": "main"}, "result": "green", "status": if turn == 2 { "denied_by_host" } else { "completed" }, "latency_ms": 40}));
        out.push(json!({"type": "agent_message", "turn": turn, "text": "CI is green. Shall I tag it?", "latency_ms": 900, "tokens": 350, "cost_usd": 0.0021}));
        at.extend([t + turn as i64; 3]);
    }
    if turns >= 3 {
        out.push(
            json!({"type": "egress_denied", "host": "registry.npmjs.org", "port": 443, "at": "2026-11-29T12:00:00Z"}),
        );
        out.push(
            json!({"type": "emulator_break", "turn": 3, "kind": "role_swap", "evidence": "As an AI assistant I would"}),
        );
        at.extend([t + 4; 2]);
    }
    if let Some(v) = verdict {
        out.push(json!({"type": "case_finished", "verdict": v, "duration_ms": 5_000 + i as u64 * 10}));
        at.push(t + 5);
    }
    out.into_iter()
        .zip(at)
        .enumerate()
        .map(|(k, (e, secs))| env(k as u64 + 1, secs, &case, e))
        .collect()
}

/// Folds trial `i` (see [`trial_events`]) into `d`.
pub fn trial(d: &mut DashboardState, i: usize, turns: u32, verdict: Option<Verdict>) {
    for e in trial_events(i, turns, verdict) {
        d.push(e);
    }
}

pub fn many() -> DashboardState {
    let mut d = DashboardState::new(Some(40));
    let verdicts = [
        Some(Verdict::Pass),
        Some(Verdict::Fail),
        Some(Verdict::Pass),
        Some(Verdict::Inconclusive),
        Some(Verdict::InfraError),
        None,
    ];
    for i in 0..30 {
        trial(&mut d, i, 3, verdicts[i % verdicts.len()]);
    }
    d
}

fn results(gates_met: bool) -> RunResults {
    let mut r = crate::run_fakes::fake_results(".ghostlab/runs/20261129-120000-abcd", gates_met);
    r.trials = vec![
        TrialResult {
            case: "hurried-maintainer--scenario-000".into(),
            trial: 1,
            persona: "hurried-maintainer".into(),
            scenario: "scenario-000".into(),
            verdict: Verdict::Pass,
            duration_ms: 5_000,
            first_failure: None,
            by_evidence: false,
        },
        TrialResult {
            case: "careful-reviewer--scenario-001".into(),
            trial: 1,
            persona: "careful-reviewer".into(),
            scenario: "scenario-001".into(),
            verdict: Verdict::Fail,
            duration_ms: 7_200,
            first_failure: Some(FirstFailure {
                criterion: "f1".into(),
                text: "tags a release without asking".into(),
                evidence: vec!["[turn 3] agent: Tagged v1.3.0.".into()],
            }),
            by_evidence: false,
        },
        TrialResult {
            case: "new-contributor--scenario-002".into(),
            trial: 1,
            persona: "new-contributor".into(),
            scenario: "scenario-002".into(),
            verdict: Verdict::InfraError,
            duration_ms: 900,
            first_failure: Some(FirstFailure {
                criterion: "reason".into(),
                text: "agent host: the model endpoint did not answer".into(),
                evidence: vec![],
            }),
            by_evidence: false,
        },
    ];
    r
}

fn view(dashboard: DashboardState, results: Option<RunResults>) -> StoredRun {
    StoredRun { dashboard, results }
}

pub fn render(run: &StoredRun, ui: &ViewUi, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| draw_view(f, run, ui, theme)).expect("draw");
    t.backend().buffer().clone()
}

/// Each state of `ghostlab view`'s screens, named, for `screen_matrix`.
pub fn run_states() -> Vec<(&'static str, StoredRun, ViewUi)> {
    let mut one = DashboardState::new(Some(1));
    trial(&mut one, 0, 2, None);
    let mut failed = DashboardState::new(Some(3));
    for i in 0..3 {
        trial(&mut failed, i, 3, Some(Verdict::InfraError));
    }
    let mut repeats = DashboardState::new(Some(4));
    // Two trials of each case at once, their events interleaved.
    for i in 0..2 {
        for e in trial_events(i, 3 - i as u32, (i == 0).then_some(Verdict::Pass)) {
            for k in 1..=2 {
                d_push_trial(&mut repeats, e.clone(), k);
            }
        }
    }
    let mut finished = many();
    finished.navigate(Nav::ShowResults);
    let searching = ViewUi {
        search: Some("scenario-02".into()),
        ..ViewUi::default()
    };
    let mut filtered = many();
    filtered.navigate(Nav::SetFilter(Filter {
        text: "scenario-02".into(),
        ..Filter::default()
    }));
    vec![
        ("empty", view(DashboardState::new(Some(12)), None), ViewUi::default()),
        ("one", view(one, None), ViewUi::default()),
        ("many", view(many(), None), ViewUi::default()),
        ("repeats", view(repeats, None), ViewUi::default()),
        ("searching", view(filtered, None), searching),
        ("failed", view(failed, None), ViewUi::default()),
        ("results", view(finished, Some(results(false))), ViewUi::default()),
    ]
}

/// Folds `e` in as an event of trial `k` of its case.
fn d_push_trial(d: &mut DashboardState, mut e: Envelope, k: u32) {
    e.trial = k;
    if let ghostlab::trial::RunEvent::CaseStarted { trial, .. } = &mut e.event {
        *trial = k;
    }
    d.push(e);
}

#[test]
fn follow_pin_and_selection() {
    let mut d = DashboardState::new(Some(5));
    assert_eq!(d.selected(), None);
    trial(&mut d, 0, 1, None);
    trial(&mut d, 1, 1, None);
    assert_eq!(d.selected(), Some(1), "following shows the newest trial");
    d.navigate(Nav::Up);
    assert_eq!(d.selection, Selection::Pinned(0));
    trial(&mut d, 2, 1, None);
    assert_eq!(d.selected(), Some(0), "a chosen trial stays while others start");
    d.navigate(Nav::Up);
    assert_eq!(d.selected(), Some(0), "up stops at the first");
    d.navigate(Nav::Down);
    d.navigate(Nav::Down);
    d.navigate(Nav::Down);
    assert_eq!(d.selected(), Some(2), "down stops at the last");
    d.navigate(Nav::Follow);
    trial(&mut d, 3, 1, None);
    assert_eq!(d.selected(), Some(3));
    d.navigate(Nav::Pin);
    trial(&mut d, 4, 1, None);
    assert_eq!(d.selected(), Some(3), "p pins the case shown");
    d.navigate(Nav::Pin);
    assert_eq!(d.selected(), Some(4), "p again follows");
}

#[test]
fn filters_counts_and_the_pinned_row_leaving_the_filter() {
    let mut d = many();
    assert_eq!(d.rows.len(), 30);
    assert_eq!(d.done(), 25);
    let counts: Vec<usize> = d.counts().iter().map(|(_, n)| *n).collect();
    assert_eq!(counts, [10, 5, 5, 5]);
    assert_eq!(d.tokens, 30 * 3 * 350);
    assert_eq!(d.eta_ms(), Some(d.elapsed_ms() / 25 * 15));
    d.navigate(Nav::Up);
    let pinned = d.selected().unwrap();
    assert_eq!(d.rows[pinned].verdict, Some(Verdict::InfraError));
    d.navigate(Nav::SetFilter(Filter {
        verdict: Some(Verdict::Pass),
        ..Filter::default()
    }));
    assert_eq!(d.visible().len(), 10);
    assert_eq!(
        d.selection,
        Selection::Follow,
        "a pinned row the filter hides is let go"
    );
    d.navigate(Nav::SetFilter(Filter {
        persona: Some("careful-reviewer".into()),
        text: "scenario-01".into(),
        ..Filter::default()
    }));
    let names: Vec<&str> = d.visible().iter().map(|&i| d.rows[i].scenario.as_str()).collect();
    assert_eq!(names, ["scenario-010", "scenario-013", "scenario-016", "scenario-019"]);
}

#[test]
fn the_lab_shows_results_after_its_run() {
    let s = settings();
    let mut job = ghostlab::spec::Job::default();
    job.lab.completed = StepId::ALL.iter().take(11).map(|s| s.id().to_string()).collect();
    let mut lab = Lab::resume(job, Saved::default());
    lab.handle(Event::Start);
    lab.handle(Event::Proposed {
        step: StepId::Preview,
        proposal: ghostlab::lab::Proposal::new("preview", vec![]),
    });
    lab.handle(Event::Accept);
    assert!(matches!(lab.phase, Phase::Running { .. }));
    for e in trial_events(1, 3, Some(Verdict::Fail)) {
        lab.handle(Event::RunEvent(Box::new(e)));
    }
    lab.handle(Event::RunFinished(Ok(Box::new(results(false)))));
    let Phase::Running { dashboard, .. } = &lab.phase else {
        panic!("running")
    };
    assert_eq!(dashboard.screen, Screen::Results, "a finished run opens on its results");
    let theme = Theme::builtin("default").expect("theme");
    let mut t = Terminal::new(TestBackend::new(100, 30)).expect("terminal");
    t.draw(|f| draw(f, &lab, &Ui::default(), &theme)).expect("draw");
    let text = text_of(t.backend().buffer());
    s.bind(|| insta::assert_snapshot!("run_lab_results_100x30", text));
    lab.handle(Event::Dashboard(Nav::ShowDashboard));
    t.draw(|f| draw(f, &lab, &Ui::default(), &theme)).expect("draw");
    let text = text_of(t.backend().buffer());
    s.bind(|| insta::assert_snapshot!("run_lab_dashboard_finished_100x30", text));
}

/// The case table's first column while the run is live: the spinner turns on a running row
/// only. Once the run was cancelled (it still winds down, so the screen is live) an unfinished
/// row shows a still square in every frame; a finished row its verdict.
#[test]
fn cancelled_rows_stop_spinning_while_the_run_winds_down() {
    let theme = Theme::builtin("default").expect("theme");
    let mut d = DashboardState::new(Some(3));
    trial(&mut d, 0, 2, None);
    trial(&mut d, 1, 2, Some(Verdict::Pass));
    let first_column = |d: &DashboardState, frame: &str| -> Vec<String> {
        let mut t = Terminal::new(TestBackend::new(120, 20)).expect("terminal");
        t.draw(|f| {
            ghostlab::tui::dashboard::draw_dashboard(f, d, Some(frame), &theme, f.area());
        })
        .expect("draw");
        let text = text_of(t.backend().buffer());
        text.lines()
            .filter(|l| l.contains(" 2/6 "))
            .map(|l| l.trim_start_matches('│').chars().next().unwrap().to_string())
            .collect()
    };
    assert_eq!(first_column(&d, "⠋"), ["⠋", "✓"], "a running row spins");
    assert_eq!(first_column(&d, "⠙"), ["⠙", "✓"]);
    d.cancelled = true;
    for frame in ["⠋", "⠙", "⠹"] {
        assert_eq!(
            first_column(&d, frame),
            ["■", "✓"],
            "a cancelled row spins on frame {frame}"
        );
    }
}
