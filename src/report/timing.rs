//! Where a trial's time went, from its `turn_timing` and `case_timing` events and the event
//! times, and the same summed over a run: creating the sandbox, the job's setup steps, the
//! agent host's start-up, the agent's model and host work, its tool calls, the simulated user,
//! the judge, agent turns without a `turn_timing` (cut short by a timeout or a failed host), and what
//! no event accounts for. The phases always add up to the trials' wall time.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::trial::{Envelope, RunEvent};

/// Milliseconds per phase (sums over a trial's turns, or over a run's trials).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Timing {
    pub sandbox_ms: u64,
    pub setup_ms: u64,
    /// The agent host's start-up when it was measured apart from the turn (a warm server).
    pub agent_start_ms: u64,
    /// The agent's turns less their tool calls and start-up: its model and its host's work.
    pub model_ms: u64,
    pub tools_ms: u64,
    /// The simulated user's answers.
    pub user_ms: u64,
    pub judge_ms: u64,
    /// Agent turns without a `turn_timing` (cut short by a timeout or a failed host, or from
    /// an older run), from the user message to the answer or the event that ended the turn.
    pub untimed_turn_ms: u64,
    /// The trial from its start to its verdict (at least the sum of the measured phases).
    pub wall_ms: u64,
    pub turns: u32,
    /// Trials summed here.
    pub trials: u32,
}

impl Timing {
    /// The timing of one trial; `None` when its events give no wall time (fewer than two
    /// events and no `case_finished`).
    pub fn from_envelopes(events: &[Envelope]) -> Option<Timing> {
        let mut t = Timing {
            trials: 1,
            ..Timing::default()
        };
        let mut finished_ms = None;
        // The turn being waited for: when its user message came, and the event that ended it.
        // A `turn_timing` measures it; without one (older runs, a turn cut short by a timeout
        // or a failed host) its span from the event times is counted instead.
        let mut open: Option<(DateTime<Utc>, Option<DateTime<Utc>>)> = None;
        let untimed = |open: &mut Option<(DateTime<Utc>, Option<DateTime<Utc>>)>, t: &mut Timing| {
            if let Some((asked, Some(ended))) = open.take() {
                t.turns += 1;
                t.untimed_turn_ms += millis_between(asked, ended);
            }
        };
        for e in events {
            match &e.event {
                RunEvent::UserMessage { .. } => {
                    untimed(&mut open, &mut t);
                    open = Some((e.ts, None));
                }
                RunEvent::AgentMessage { .. }
                | RunEvent::InfraError { .. }
                | RunEvent::Stopped { .. }
                | RunEvent::EmulatorBreak { .. } => {
                    if let Some((_, end @ None)) = &mut open {
                        *end = Some(e.ts);
                    }
                }
                RunEvent::TurnTiming {
                    user_ms,
                    agent_ms,
                    tools_ms,
                    start_ms,
                    ..
                } => {
                    open = None;
                    t.turns += 1;
                    t.user_ms += user_ms;
                    t.tools_ms += tools_ms;
                    t.agent_start_ms += start_ms;
                    // Tool latencies are the agent's own report and may overlap; never negative.
                    t.model_ms += agent_ms.saturating_sub(tools_ms + start_ms);
                }
                RunEvent::CaseTiming {
                    sandbox_ms,
                    setup_ms,
                    judge_ms,
                } => {
                    t.sandbox_ms += sandbox_ms;
                    t.setup_ms += setup_ms;
                    t.judge_ms += judge_ms;
                }
                RunEvent::CaseFinished { duration_ms, .. } => finished_ms = Some(*duration_ms),
                _ => {}
            }
        }
        untimed(&mut open, &mut t);
        let span = match (events.first(), events.last()) {
            (Some(a), Some(b)) if events.len() > 1 => Some(millis_between(a.ts, b.ts)),
            _ => None,
        };
        let wall = finished_ms.max(span)?;
        t.wall_ms = wall.max(t.measured_ms());
        Some(t)
    }

    pub fn add(&mut self, other: &Timing) {
        self.sandbox_ms += other.sandbox_ms;
        self.setup_ms += other.setup_ms;
        self.agent_start_ms += other.agent_start_ms;
        self.model_ms += other.model_ms;
        self.tools_ms += other.tools_ms;
        self.user_ms += other.user_ms;
        self.judge_ms += other.judge_ms;
        self.untimed_turn_ms += other.untimed_turn_ms;
        self.wall_ms += other.wall_ms;
        self.turns += other.turns;
        self.trials += other.trials;
    }

    /// Phases in a fixed order, with their labels; the last is what no event accounts for, so
    /// they sum to `wall_ms`.
    pub fn phases(&self) -> [(&'static str, u64); 9] {
        [
            ("sandbox", self.sandbox_ms),
            ("setup", self.setup_ms),
            ("agent start", self.agent_start_ms),
            ("model", self.model_ms),
            ("tools", self.tools_ms),
            ("user", self.user_ms),
            ("judge", self.judge_ms),
            ("untimed agent turns", self.untimed_turn_ms),
            ("other (unaccounted)", self.other_ms()),
        ]
    }

    /// The measured phases, without the unaccounted rest.
    fn measured_ms(&self) -> u64 {
        self.sandbox_ms
            + self.setup_ms
            + self.agent_start_ms
            + self.model_ms
            + self.tools_ms
            + self.user_ms
            + self.judge_ms
            + self.untimed_turn_ms
    }

    /// Wall time no event accounts for (writing artifacts, waiting for a lock, …).
    pub fn other_ms(&self) -> u64 {
        self.wall_ms.saturating_sub(self.measured_ms())
    }

    /// Every phase, unaccounted time included: the trials' wall time.
    pub fn total_ms(&self) -> u64 {
        self.wall_ms
    }

    /// `Time: 31.2 s — sandbox 12 ms · model 9.0 s · … · other 40 ms (3 turns)`, one trial's
    /// line; phases that took nothing are left out (as in `shares_line`), so it fits a line.
    pub fn line(&self) -> String {
        let parts: Vec<String> = self
            .phases()
            .iter()
            .filter(|(_, ms)| *ms > 0)
            .map(|(label, ms)| format!("{label} {}", duration(*ms)))
            .collect();
        format!(
            "Time: {} — {} ({} turns)",
            duration(self.wall_ms),
            parts.join(" · "),
            self.turns
        )
    }

    /// The run's breakdown, largest phase first, with its share of the trials' wall time:
    /// `model 71% (12.0 s) · user 20% (3.4 s) · …`; phases that took nothing are left out.
    pub fn shares_line(&self) -> String {
        let total = self.total_ms();
        if total == 0 {
            return "no time recorded".into();
        }
        let mut phases: Vec<(&str, u64)> = self.phases().into_iter().filter(|(_, ms)| *ms > 0).collect();
        phases.sort_by_key(|(_, ms)| std::cmp::Reverse(*ms));
        let parts: Vec<String> = phases
            .iter()
            .map(|(label, ms)| format!("{label} {:.0}% ({})", *ms as f64 * 100.0 / total as f64, duration(*ms)))
            .collect();
        format!(
            "{} — {} of wall time summed over {} trials and {} turns (trials that ran in parallel overlap)",
            parts.join(" · "),
            duration(total),
            self.trials,
            self.turns
        )
    }
}

fn millis_between(a: DateTime<Utc>, b: DateTime<Utc>) -> u64 {
    (b - a).num_milliseconds().max(0) as u64
}

/// `850 ms`, `12.3 s`.
fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(user_ms: u64, agent_ms: u64, tools_ms: u64, start_ms: u64) -> RunEvent {
        RunEvent::TurnTiming {
            turn: 1,
            user_ms,
            agent_ms,
            tools_ms,
            start_ms,
        }
    }

    fn case_timing(sandbox_ms: u64, judge_ms: u64) -> RunEvent {
        RunEvent::CaseTiming {
            sandbox_ms,
            setup_ms: 0,
            judge_ms,
        }
    }

    fn finished(duration_ms: u64) -> RunEvent {
        RunEvent::CaseFinished {
            verdict: crate::trial::Verdict::InfraError,
            duration_ms,
        }
    }

    fn user(turn: u32) -> RunEvent {
        RunEvent::UserMessage {
            turn,
            text: String::new(),
            latency_ms: 0,
        }
    }

    /// Events at the given milliseconds after a fixed start.
    fn timed(events: Vec<(i64, RunEvent)>) -> Vec<Envelope> {
        let t0 = DateTime::parse_from_rfc3339("2026-12-04T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        events
            .into_iter()
            .enumerate()
            .map(|(i, (ms, event))| Envelope {
                v: 1,
                seq: i as u64 + 1,
                ts: t0 + chrono::Duration::milliseconds(ms),
                case: "c".into(),
                trial: 1,
                event,
            })
            .collect()
    }

    fn assert_sums_to_wall(t: &Timing) {
        let sum: u64 = t.phases().iter().map(|(_, ms)| ms).sum();
        assert_eq!(sum, t.wall_ms, "{t:?}");
    }

    #[test]
    fn a_trial_splits_its_agent_time_into_start_model_and_tools() {
        let events = timed(vec![
            (0, user(1)),
            (5000, turn(0, 5000, 300, 3000)),
            (5100, user(2)),
            (6600, turn(400, 1500, 200, 0)),
            (7900, case_timing(40, 1200)),
            (7900, finished(9000)),
        ]);
        let t = Timing::from_envelopes(&events).unwrap();
        assert_eq!(
            (t.agent_start_ms, t.model_ms, t.tools_ms, t.user_ms),
            (3000, 3000, 500, 400)
        );
        assert_eq!(t.wall_ms, 9000);
        assert_eq!(t.other_ms(), 9000 - (40 + 3000 + 3000 + 500 + 400 + 1200));
        assert_sums_to_wall(&t);
        assert_eq!(
            t.line(),
            "Time: 9.0 s — sandbox 40 ms · agent start 3.0 s · model 3.0 s · tools 500 ms · user 400 ms · judge 1.2 s · other (unaccounted) 860 ms (2 turns)"
        );
    }

    #[test]
    fn a_turn_that_timed_out_counts_as_cut_short_not_as_sandbox_time() {
        // The run: a 30 s agent turn that never finished, so no turn_timing.
        let events = timed(vec![
            (0, user(1)),
            (
                30_000,
                RunEvent::InfraError {
                    component: "agent host".into(),
                    reason: "turn timed out".into(),
                },
            ),
            (30_010, case_timing(5_100, 0)),
            (30_020, finished(35_500)),
        ]);
        let t = Timing::from_envelopes(&events).unwrap();
        assert_eq!((t.untimed_turn_ms, t.sandbox_ms, t.turns), (30_000, 5_100, 1));
        assert_eq!(t.other_ms(), 400);
        assert_sums_to_wall(&t);
        assert!(
            t.shares_line()
                .starts_with("untimed agent turns 85% (30.0 s) · sandbox 14% (5.1 s)")
        );
    }

    #[test]
    fn a_trial_without_timing_events_is_all_unaccounted_time() {
        let events = timed(vec![(0, user(1)), (900, finished(1_000))]);
        let t = Timing::from_envelopes(&events).unwrap();
        assert_eq!((t.other_ms(), t.wall_ms), (1_000, 1_000));
        assert_sums_to_wall(&t);
        // An older run's answered turns are timed from the event times.
        let agent = |turn| RunEvent::AgentMessage {
            turn,
            text: String::new(),
            latency_ms: 0,
            tokens: 0,
            cost_usd: 0.0,
        };
        let events = timed(vec![
            (0, user(1)),
            (700, agent(1)),
            (800, user(2)),
            (1_400, agent(2)),
            (1_500, finished(1_600)),
        ]);
        let t = Timing::from_envelopes(&events).unwrap();
        assert_eq!((t.turns, t.untimed_turn_ms, t.other_ms()), (2, 1_300, 300));
        assert_sums_to_wall(&t);
    }

    #[test]
    fn phases_longer_than_the_wall_clock_raise_it_and_leave_no_negative_rest() {
        // Overlapping tool latencies reported by the agent exceed the measured turn.
        let events = timed(vec![(0, user(1)), (100, turn(50, 100, 250, 0)), (120, finished(150))]);
        let t = Timing::from_envelopes(&events).unwrap();
        assert_eq!((t.model_ms, t.other_ms()), (0, 0));
        assert_eq!(t.wall_ms, 300);
        assert_sums_to_wall(&t);
    }

    #[test]
    fn a_run_sums_its_trials_and_its_shares_add_up_to_the_wall_time() {
        let mut run = Timing::default();
        for _ in 0..2 {
            let events = timed(vec![(0, user(1)), (900, turn(100, 900, 0, 0)), (1000, finished(1000))]);
            run.add(&Timing::from_envelopes(&events).unwrap());
        }
        assert_eq!((run.trials, run.turns, run.model_ms, run.wall_ms), (2, 2, 1800, 2000));
        assert_eq!(
            run.shares_line(),
            "model 90% (1.8 s) · user 10% (200 ms) — 2.0 s of wall time summed over 2 trials and 2 turns (trials that ran in parallel overlap)"
        );
        assert_sums_to_wall(&run);
    }

    #[test]
    fn a_lone_event_gives_no_wall_time() {
        assert_eq!(Timing::from_envelopes(&timed(vec![(0, user(1))])), None);
        assert_eq!(Timing::from_envelopes(&[]), None);
        assert_eq!(Timing::default().shares_line(), "no time recorded");
    }
}
