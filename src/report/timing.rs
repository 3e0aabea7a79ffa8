//! Where a trial's time went, from its `turn_timing` and `case_timing` events, and the same
//! summed over a run: creating the sandbox, the job's setup steps, the agent host's start-up,
//! the agent's model and host work, its tool calls, the simulated user, and the judge.

use serde::Serialize;

use crate::trial::RunEvent;

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
    pub turns: u32,
    /// Trials summed here.
    pub trials: u32,
}

impl Timing {
    /// The timing of one trial; `None` when its events hold no timing (an older run).
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a RunEvent>) -> Option<Timing> {
        let mut t = Timing {
            trials: 1,
            ..Timing::default()
        };
        let mut seen = false;
        for e in events {
            match e {
                RunEvent::TurnTiming {
                    user_ms,
                    agent_ms,
                    tools_ms,
                    start_ms,
                    ..
                } => {
                    seen = true;
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
                    seen = true;
                    t.sandbox_ms += sandbox_ms;
                    t.setup_ms += setup_ms;
                    t.judge_ms += judge_ms;
                }
                _ => {}
            }
        }
        seen.then_some(t)
    }

    pub fn add(&mut self, other: &Timing) {
        self.sandbox_ms += other.sandbox_ms;
        self.setup_ms += other.setup_ms;
        self.agent_start_ms += other.agent_start_ms;
        self.model_ms += other.model_ms;
        self.tools_ms += other.tools_ms;
        self.user_ms += other.user_ms;
        self.judge_ms += other.judge_ms;
        self.turns += other.turns;
        self.trials += other.trials;
    }

    /// Phases in a fixed order, with their labels.
    pub fn phases(&self) -> [(&'static str, u64); 7] {
        [
            ("sandbox", self.sandbox_ms),
            ("setup", self.setup_ms),
            ("agent start", self.agent_start_ms),
            ("model", self.model_ms),
            ("tools", self.tools_ms),
            ("user", self.user_ms),
            ("judge", self.judge_ms),
        ]
    }

    pub fn total_ms(&self) -> u64 {
        self.phases().iter().map(|(_, ms)| ms).sum()
    }

    /// `Time: sandbox 12 ms · setup 0 ms · … · judge 1.2 s (3 turns)`, one trial's line.
    pub fn line(&self) -> String {
        let parts: Vec<String> = self
            .phases()
            .iter()
            .map(|(label, ms)| format!("{label} {}", duration(*ms)))
            .collect();
        format!("Time: {} ({} turns)", parts.join(" · "), self.turns)
    }

    /// The run's breakdown, largest phase first, with its share of the summed time:
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
            "{} — summed over {} trials and {} turns (trials that ran in parallel overlap)",
            parts.join(" · "),
            self.trials,
            self.turns
        )
    }
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

    #[test]
    fn a_trial_splits_its_agent_time_into_start_model_and_tools() {
        let events = [
            turn(0, 5000, 300, 3000),
            turn(400, 1500, 200, 0),
            RunEvent::CaseTiming {
                sandbox_ms: 40,
                setup_ms: 0,
                judge_ms: 1200,
            },
        ];
        let t = Timing::from_events(&events).unwrap();
        assert_eq!(
            (t.agent_start_ms, t.model_ms, t.tools_ms, t.user_ms),
            (3000, 3000, 500, 400)
        );
        assert_eq!(t.total_ms(), 40 + 3000 + 3000 + 500 + 400 + 1200);
        assert_eq!(
            t.line(),
            "Time: sandbox 40 ms · setup 0 ms · agent start 3.0 s · model 3.0 s · tools 500 ms · user 400 ms · judge 1.2 s (2 turns)"
        );
    }

    #[test]
    fn tools_reported_longer_than_the_turn_leave_no_negative_model_time() {
        let t = Timing::from_events(&[turn(0, 100, 250, 0)]).unwrap();
        assert_eq!(t.model_ms, 0);
    }

    #[test]
    fn a_run_sums_its_trials_and_ranks_the_phases() {
        let mut run = Timing::default();
        for _ in 0..2 {
            run.add(&Timing::from_events(&[turn(100, 900, 0, 0)]).unwrap());
        }
        assert_eq!((run.trials, run.turns, run.model_ms), (2, 2, 1800));
        assert_eq!(
            run.shares_line(),
            "model 90% (1.8 s) · user 10% (200 ms) — summed over 2 trials and 2 turns (trials that ran in parallel overlap)"
        );
    }

    #[test]
    fn events_without_timing_give_none() {
        assert_eq!(
            Timing::from_events(&[RunEvent::Stopped {
                reason: crate::trial::StopReason::MaxTurns,
                detail: String::new(),
            }]),
            None
        );
        assert_eq!(Timing::default().shares_line(), "no time recorded");
    }
}
