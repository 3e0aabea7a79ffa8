//! Comparing two runs: per-case changes and whether the overall pass-rate change is beyond
//! noise (Fisher's exact test on pass / not-pass trial counts, two-sided, α = 0.05).

use serde::Serialize;

use super::gates::CaseTrials;
use super::stats::fisher_exact_two_sided;

/// Significance level used to call a change real.
pub(crate) const ALPHA: f64 = 0.05;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct CaseChange {
    pub(crate) case_id: String,
    pub(crate) before: Option<String>,
    pub(crate) after: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Comparison {
    pub(crate) passes_a: usize,
    pub(crate) trials_a: usize,
    pub(crate) passes_b: usize,
    pub(crate) trials_b: usize,
    pub(crate) p_value: f64,
    pub(crate) beyond_noise: bool,
    pub changes: Vec<CaseChange>,
}

fn describe(c: &CaseTrials) -> String {
    format!("{}/{} pass", c.passes(), c.trials.len())
}

pub(crate) fn compare_runs(a: &[CaseTrials], b: &[CaseTrials]) -> Comparison {
    let count = |cases: &[CaseTrials]| -> (usize, usize) {
        (
            cases.iter().map(CaseTrials::passes).sum(),
            cases.iter().map(|c| c.trials.len()).sum(),
        )
    };
    let (pa, ta) = count(a);
    let (pb, tb) = count(b);
    let p = fisher_exact_two_sided(pa as u64, (ta - pa) as u64, pb as u64, (tb - pb) as u64);
    let mut ids: Vec<&str> = a.iter().chain(b).map(|c| c.case_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let changes = ids
        .into_iter()
        .filter_map(|id| {
            let before = a.iter().find(|c| c.case_id == id);
            let after = b.iter().find(|c| c.case_id == id);
            let same = matches!((before, after), (Some(x), Some(y)) if x.trials == y.trials);
            (!same).then(|| CaseChange {
                case_id: id.to_string(),
                before: before.map(describe),
                after: after.map(describe),
            })
        })
        .collect();
    Comparison {
        passes_a: pa,
        trials_a: ta,
        passes_b: pb,
        trials_b: tb,
        p_value: p,
        beyond_noise: p < ALPHA,
        changes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Verdict::*;

    fn case(id: &str, v: Vec<crate::judge::Verdict>) -> CaseTrials {
        CaseTrials {
            case_id: id.into(),
            trials: v,
        }
    }

    #[test]
    fn small_changes_are_noise_and_large_ones_are_not() {
        let a = vec![case("x", vec![Pass, Pass, Fail]), case("y", vec![Pass])];
        let b = vec![case("x", vec![Pass, Fail, Fail]), case("y", vec![Pass])];
        let c = compare_runs(&a, &b);
        assert!(!c.beyond_noise);
        assert_eq!(c.changes.len(), 1);
        let a: Vec<_> = (0..20).map(|i| case(&format!("c{i}"), vec![Pass])).collect();
        let b: Vec<_> = (0..20)
            .map(|i| case(&format!("c{i}"), vec![if i < 4 { Pass } else { Inconclusive }]))
            .collect();
        assert!(compare_runs(&a, &b).beyond_noise);
    }
}
