//! The judge's answer is part of the case, so it is bounded like the rest of it. A model client
//! has its own per-call timeout, but retries, a server that trickles bytes, or a judge that is
//! not a model client at all can each keep one case (and so the run) waiting without end. Past
//! the bound the judge has not answered: the case is INFRA_ERROR saying so, never PASS.

use std::sync::Arc;
use std::time::Duration;

use crate::judge::llm_judge::{Judge, JudgeAnswer};
use crate::llm::LlmError;
use crate::trial::{CaseSpec, Envelope};

/// A judge whose whole answer, every retry included, must come within `limit`.
pub(crate) struct BoundedJudge {
    inner: Arc<dyn Judge>,
    limit: Duration,
}

impl BoundedJudge {
    /// The bound used for a run: one turn's timeout (`sandbox.timeout`) plus the case grace.
    pub(crate) fn for_run(inner: Arc<dyn Judge>, turn_timeout: Duration) -> BoundedJudge {
        BoundedJudge::new(
            inner,
            turn_timeout.saturating_add(crate::run::case::case_bound::CASE_GRACE),
        )
    }

    pub(crate) fn new(inner: Arc<dyn Judge>, limit: Duration) -> BoundedJudge {
        BoundedJudge { inner, limit }
    }
}

impl Judge for BoundedJudge {
    fn label(&self) -> String {
        self.inner.label()
    }

    fn judge<'a>(&'a self, case: &'a CaseSpec, events: &'a [Envelope]) -> JudgeAnswer<'a> {
        Box::pin(async move {
            match tokio::time::timeout(self.limit, self.inner.judge(case, events)).await {
                Ok(answer) => answer,
                Err(_) => Err(LlmError::Timeout {
                    seconds: self.limit.as_secs().max(1),
                }),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FAKE judge: never answers (a judge endpoint that accepts and then stalls).
    struct FakeStalledJudge;

    impl Judge for FakeStalledJudge {
        fn label(&self) -> String {
            "fake-stalled".into()
        }
        fn judge<'a>(&'a self, _: &'a CaseSpec, _: &'a [Envelope]) -> JudgeAnswer<'a> {
            Box::pin(std::future::pending())
        }
    }

    #[tokio::test]
    async fn a_judge_that_never_answers_is_an_outage_after_the_bound() {
        let bounded = BoundedJudge::new(Arc::new(FakeStalledJudge), Duration::from_millis(100));
        let case = CaseSpec {
            id: "c".into(),
            trial: 1,
            persona: Default::default(),
            scenario: Default::default(),
        };
        let started = std::time::Instant::now();
        let answer = tokio::time::timeout(Duration::from_secs(10), bounded.judge(&case, &[]))
            .await
            .expect("the bound did not stop the judge");
        assert!(matches!(answer, Err(LlmError::Timeout { .. })), "{answer:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(bounded.label(), "fake-stalled");
    }
}
