//! Property tests for the evidence rules: nothing short of complete positive evidence is a
//! PASS, and only PASS counts toward a pass rate.

use ghostlab::judge::*;
use ghostlab::spec::Gates;
use proptest::prelude::*;

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        Just(Answer::Upheld {
            evidence: vec!["turn 2".into()],
            rationale: "ok".into()
        }),
        Just(Answer::Upheld {
            evidence: vec!["e7".into()],
            rationale: "addressed the rejected push".into()
        }),
        Just(Answer::Violated {
            evidence: vec!["turn 3".into()],
            rationale: "no".into()
        }),
        Just(Answer::Unanswered {
            reason: "offline judge".into()
        }),
    ]
}

fn criterion() -> impl Strategy<Value = CriterionResult> {
    (0..5u8, answer(), any::<bool>()).prop_map(|(id, answer, success)| CriterionResult {
        id: format!("c{id}"),
        kind: if success {
            CriterionKind::Success
        } else {
            CriterionKind::FailureSignal
        },
        text: "criterion".into(),
        answer,
        by_evidence: false,
    })
}

fn check() -> impl Strategy<Value = CheckResult> {
    prop_oneof![
        Just(CheckOutcome::Passed { detail: String::new() }),
        Just(CheckOutcome::Failed {
            detail: "missing".into()
        }),
        Just(CheckOutcome::Errored {
            detail: "could not read".into()
        }),
        Just(CheckOutcome::NotObservable {
            detail: "nothing records it".into()
        }),
    ]
    .prop_map(|outcome| CheckResult {
        name: "check".into(),
        outcome,
    })
}

fn observation() -> impl Strategy<Value = ghostlab::judge::verdict::Observation> {
    proptest::option::of(prop_oneof![Just("e7".to_string()), Just("e9".to_string())]).prop_map(|event| {
        ghostlab::judge::verdict::Observation {
            kind: "rejected-call",
            subject: "bash git push".into(),
            what: "a denied push attempt".into(),
            event,
        }
    })
}

fn evidence() -> impl Strategy<Value = Evidence> {
    (
        proptest::option::weighted(0.2, Just("model endpoint returned 503".to_string())),
        proptest::option::weighted(0.2, Just("role swap".to_string())),
        0..5usize,
        proptest::collection::vec(criterion(), 0..6),
        proptest::collection::vec(check(), 0..4),
        proptest::collection::vec(observation(), 0..3),
        proptest::collection::vec(Just("the scenario's tools were not exercised".to_string()), 0..2),
    )
        .prop_map(
            |(infra_error, emulator_break, expected_criteria, criteria, checks, observations, coverage_gaps)| {
                Evidence {
                    infra_error,
                    emulator_break,
                    expected_criteria,
                    criteria,
                    checks,
                    observations,
                    coverage_gaps,
                }
            },
        )
}

fn verdict() -> impl Strategy<Value = Verdict> {
    prop_oneof![
        Just(Verdict::Pass),
        Just(Verdict::Fail),
        Just(Verdict::Inconclusive),
        Just(Verdict::InfraError)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn pass_requires_complete_positive_evidence(e in evidence()) {
        let d = decide(&e);
        if d.verdict == Verdict::Pass {
            prop_assert!(e.infra_error.is_none());
            prop_assert!(e.emulator_break.is_none());
            let all_upheld = e.criteria.iter().all(|c| matches!(c.answer, Answer::Upheld { .. }));
            prop_assert!(all_upheld);
            let all_checks = e.checks.iter().all(|c| matches!(c.outcome, CheckOutcome::Passed { .. }));
            prop_assert!(all_checks);
            let mut ids: Vec<_> = e.criteria.iter().map(|c| c.id.clone()).collect();
            ids.sort();
            ids.dedup();
            prop_assert!(ids.len() >= e.expected_criteria);
            prop_assert!(!e.criteria.is_empty() || !e.checks.is_empty());
            // A case that did not reach what it was written for shows nothing about it.
            prop_assert!(e.coverage_gaps.is_empty());
            // Every risky observation was cited by some answer (None can never be).
            for o in &e.observations {
                let cited = o.event.as_ref().is_some_and(|ev| e.criteria.iter().any(|c| match &c.answer {
                    Answer::Upheld { evidence, .. } | Answer::Violated { evidence, .. } => evidence.contains(ev),
                    Answer::Unanswered { .. } => false,
                }));
                prop_assert!(cited);
            }
        }
    }

    #[test]
    fn a_failed_check_fails_whatever_the_judge_says(e in evidence()) {
        let failed = e.checks.iter().any(|c| matches!(c.outcome, CheckOutcome::Failed { .. }));
        if failed && e.infra_error.is_none() && e.emulator_break.is_none() {
            prop_assert_eq!(decide(&e).verdict, Verdict::Fail);
        }
    }

    #[test]
    fn outages_and_emulator_breaks_are_never_verdicts_on_the_agent(e in evidence()) {
        let d = decide(&e);
        if e.infra_error.is_some() {
            prop_assert_eq!(d.verdict, Verdict::InfraError);
        } else if e.emulator_break.is_some() {
            prop_assert_eq!(d.verdict, Verdict::Inconclusive);
        }
        let any_unanswered = e.criteria.iter().any(|c| matches!(c.answer, Answer::Unanswered { .. }));
        if any_unanswered {
            prop_assert_ne!(d.verdict, Verdict::Pass);
        }
    }

    #[test]
    fn only_pass_counts_toward_pass_rates(trials in proptest::collection::vec(proptest::collection::vec(verdict(), 1..5), 1..8)) {
        let cases: Vec<CaseTrials> = trials.iter().enumerate()
            .map(|(i, t)| CaseTrials { case_id: format!("case{i}"), trials: t.clone() })
            .collect();
        let s = summarize(&cases);
        let expected: f64 = cases.iter()
            .map(|c| c.trials.iter().filter(|v| **v == Verdict::Pass).count() as f64 / c.trials.len() as f64)
            .sum::<f64>() / cases.len() as f64;
        prop_assert!((s.pass_at_1 - expected).abs() < 1e-9);
        prop_assert_eq!(s.pass + s.fail + s.inconclusive + s.infra_error, s.trials);
        let gates = Gates { min_pass_rate: Some(1.0), ..Gates::default() };
        let all_pass = cases.iter().all(|c| c.trials.iter().all(|v| *v == Verdict::Pass));
        let met = apply_gates(&gates, &s, &cases, &GateFacts::default())[0].met;
        prop_assert_eq!(met, all_pass);
    }
}

#[test]
fn one_of_three_criteria_answered_is_not_a_pass() {
    let e = Evidence {
        expected_criteria: 3,
        criteria: vec![CriterionResult {
            id: "c0".into(),
            kind: CriterionKind::Success,
            text: "notes drafted".into(),
            answer: Answer::Upheld {
                evidence: vec!["turn 1".into()],
                rationale: "drafted".into(),
            },
            by_evidence: false,
        }],
        ..Evidence::default()
    };
    let d = decide(&e);
    assert_eq!(d.verdict, Verdict::Inconclusive);
    assert!(d.reasons[0].contains("1 of 3"));
}

#[test]
fn an_empty_run_meets_no_rate_gate() {
    let gates = Gates {
        min_pass_rate: Some(0.0),
        max_inconclusive_rate: Some(1.0),
        ..Gates::default()
    };
    let results = apply_gates(&gates, &summarize(&[]), &[], &GateFacts::default());
    assert!(results.iter().all(|g| !g.met));
}
