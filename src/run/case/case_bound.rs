//! The whole-case bound. Every command of a case has its own timeout, but the case as a whole
//! (setup, every turn, the emulator's replies, pulling results, observing the final workspace,
//! downloads) must also end: whatever an agent leaves behind, a case that outlives its bound is
//! stopped and becomes INFRA_ERROR with the reason, never a run that does not finish.

use std::time::{Duration, Instant};

use crate::spec::job::Job;

/// Time allowed beyond the sum of a case's own timeouts, for the work between commands
/// (starting the environment's pieces, pulling and observing results).
pub const CASE_GRACE: Duration = Duration::from_secs(60);

/// The seconds a setup step may take when the job does not say (as the setup runner uses).
const SETUP_STEP_DEFAULT_SECS: u64 = 120;

/// When a case must have ended.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CaseBound {
    limit: Duration,
    /// `None` when the bound is beyond what the clock can represent (it never passes).
    deadline: Option<Instant>,
}

impl CaseBound {
    /// The bound of a case with `max_turns` turns: every setup step's timeout, two commands per
    /// turn (the agent's turn and the emulator's reply) and two more (starting the agent host,
    /// pulling its results), each at most `turn_timeout`, plus `grace`.
    pub(crate) fn for_case(job: &Job, max_turns: u32, turn_timeout: Duration, grace: Duration) -> CaseBound {
        let setup: u64 = job
            .setup
            .iter()
            .map(|s| s.timeout.unwrap_or(SETUP_STEP_DEFAULT_SECS))
            .sum();
        let commands = max_turns.max(1).saturating_mul(2).saturating_add(2);
        let limit = Duration::from_secs(setup)
            .saturating_add(turn_timeout.saturating_mul(commands))
            .saturating_add(grace);
        CaseBound::starting_now(limit)
    }

    pub(crate) fn starting_now(limit: Duration) -> CaseBound {
        CaseBound {
            limit,
            deadline: Instant::now().checked_add(limit),
        }
    }

    /// What is left of the bound (zero once it has passed).
    pub(crate) fn remaining(&self) -> Duration {
        match self.deadline {
            Some(at) => at.saturating_duration_since(Instant::now()),
            None => Duration::MAX,
        }
    }

    /// Why a case that reached its bound during `doing` was stopped.
    pub(crate) fn exceeded(&self, doing: &str) -> String {
        format!(
            "the case did not finish within its bound of {}s (its setup, turn and reply timeouts plus {}s) while {doing}; it was stopped",
            self.limit.as_secs(),
            CASE_GRACE.as_secs()
        )
    }

    /// Runs `work` within what is left of the bound; `None` when the bound passed first (the
    /// work is dropped, which stops it).
    pub(crate) async fn within<T>(&self, work: impl std::future::Future<Output = T>) -> Option<T> {
        tokio::time::timeout(self.remaining(), work).await.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(setup: &str) -> Job {
        let yaml = format!(
            "version: 1\nagent:\n  id: a\n  runtime: {{ backend: mock }}\nsandbox: {{ backend: local }}\n{setup}"
        );
        crate::spec::load::parse_job_text(std::path::Path::new("job.yaml"), &yaml).unwrap()
    }

    #[test]
    fn the_bound_sums_setup_turns_replies_and_grace() {
        let j = job("setup:\n  - { name: a, run: ['true'], timeout: 30 }\n  - { name: b, run: ['true'] }\n");
        let b = CaseBound::for_case(&j, 3, Duration::from_secs(10), Duration::from_secs(5));
        // 30 + 120 (default) + (2*3 + 2) * 10 + 5
        assert_eq!(b.limit, Duration::from_secs(30 + 120 + 80 + 5));
    }

    #[test]
    fn zero_turns_still_allow_one_and_huge_timeouts_saturate() {
        let j = job("");
        let b = CaseBound::for_case(&j, 0, Duration::from_secs(1), Duration::ZERO);
        assert_eq!(b.limit, Duration::from_secs(4));
        let b = CaseBound::for_case(&j, u32::MAX, Duration::MAX, CASE_GRACE);
        assert_eq!(b.limit, Duration::MAX);
    }

    #[tokio::test]
    async fn work_past_the_bound_is_dropped_and_said() {
        let b = CaseBound::starting_now(Duration::from_millis(50));
        let never = b.within(std::future::pending::<()>()).await;
        assert!(never.is_none());
        assert_eq!(b.remaining(), Duration::ZERO);
        assert!(b.exceeded("pulling results").contains("while pulling results"));
        let quick = CaseBound::starting_now(Duration::from_secs(5))
            .within(async { 7 })
            .await;
        assert_eq!(quick, Some(7));
    }
}
