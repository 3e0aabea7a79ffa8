//! Gates when the job sets none, and the rule that holds whatever the job says: a run in which
//! no trial was judged (none ended PASS or FAIL) meets no gate.
//!
//! Without gates a run would exit 0 on any outcome, so "readiness: gates met" would be
//! printed for a run that proved nothing.

use super::gates::{Comparison, GateFigures, GateResult, GateUnit, Summary};
use crate::spec::Gates;

/// No trial may end INFRA_ERROR unless the job allows it.
pub(crate) const DEFAULT_MAX_INFRA_ERROR_RATE: f64 = 0.0;
/// At most one trial in five may end INCONCLUSIVE unless the job says otherwise.
pub(crate) const DEFAULT_MAX_INCONCLUSIVE_RATE: f64 = 0.2;

/// The job's gates, or the defaults when it sets none; `true` when the defaults apply.
pub(crate) fn effective_gates(job: &Gates) -> (Gates, bool) {
    if *job != Gates::default() {
        return (job.clone(), false);
    }
    (
        Gates {
            max_infra_error_rate: Some(DEFAULT_MAX_INFRA_ERROR_RATE),
            max_inconclusive_rate: Some(DEFAULT_MAX_INCONCLUSIVE_RATE),
            ..Gates::default()
        },
        true,
    )
}

/// Marks gates that came from the defaults, so reports say where a requirement came from.
pub(crate) fn label_defaults(results: &mut [GateResult]) {
    for g in results {
        g.gate = format!("{} (default)", g.gate);
    }
}

/// Not met unless some trial ended PASS or FAIL. INCONCLUSIVE is a judge that could not decide
/// (the offline judge decides nothing) and INFRA_ERROR a trial that never got judged: a run of
/// only those, or of no trial at all, proved nothing.
pub(crate) fn something_judged(summary: &Summary) -> GateResult {
    let judged = summary.pass + summary.fail;
    GateResult {
        gate: "some trial judged".into(),
        required: ">= 1 trial PASS or FAIL".into(),
        actual: format!("{judged} of {}", summary.trials),
        met: judged > 0,
        figures: GateFigures::new(1.0, Some(judged as f64), GateUnit::Count, Comparison::AtLeast),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_only_when_the_job_sets_none() {
        let (g, defaulted) = effective_gates(&Gates::default());
        assert!(defaulted);
        assert_eq!(g.max_infra_error_rate, Some(0.0));
        assert_eq!(g.max_inconclusive_rate, Some(DEFAULT_MAX_INCONCLUSIVE_RATE));
        let own = Gates {
            min_pass_rate: Some(0.5),
            ..Gates::default()
        };
        assert_eq!(effective_gates(&own), (own.clone(), false));
    }

    #[test]
    fn an_all_infra_error_run_judged_nothing() {
        let s = Summary {
            trials: 3,
            infra_error: 3,
            ..Summary::default()
        };
        assert!(!something_judged(&s).met);
        let s = Summary {
            trials: 3,
            infra_error: 2,
            fail: 1,
            ..Summary::default()
        };
        assert!(something_judged(&s).met);
        let s = Summary {
            trials: 2,
            inconclusive: 2,
            ..Summary::default()
        };
        assert!(!something_judged(&s).met, "INCONCLUSIVE is not judged");
        assert!(!something_judged(&Summary::default()).met, "no trial at all");
    }
}
