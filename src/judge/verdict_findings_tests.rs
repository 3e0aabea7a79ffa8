use super::*;
use crate::judge::file_facts::FileFacts;
use crate::judge::observed::ObservedFacts;
use crate::judge::verdict::{Evidence, decide};
use crate::mcp::contract::decisions::{Decision, Verdict as Decided};

fn case(id: &str, checks: serde_json::Value) -> CaseSpec {
    serde_json::from_value(serde_json::json!({
        "id": id, "trial": 1,
        "persona": {"id": "p", "name": "P", "summary": "s"},
        "scenario": {"id": "s", "title": "t", "goal": "g", "opening_message": "hi", "max_turns": 3,
                     "expected": {"checks": checks}}
    }))
    .unwrap()
}

fn observed(added: &[&str], talk: &[&str]) -> ObservedFacts {
    let mut f = FileFacts::default();
    f.workspace.added = added.iter().map(|s| s.to_string()).collect();
    ObservedFacts {
        files: Some(f),
        agent_harness_talk: talk.iter().map(|s| s.to_string()).collect(),
        ..ObservedFacts::default()
    }
}

/// A verdict as `judge_case` decides it from these observations alone (every criterion upheld).
fn verdict(case: &CaseSpec, trial: u32, o: ObservedFacts) -> VerdictFile {
    let observations = unsettled(&o, &case.scenario.expected.checks);
    let d = decide(&Evidence {
        checks: vec![crate::judge::verdict::CheckResult {
            name: "c".into(),
            outcome: crate::judge::verdict::CheckOutcome::Passed { detail: String::new() },
        }],
        observations,
        ..Evidence::default()
    });
    VerdictFile {
        version: 1,
        case: case.id.clone(),
        trial,
        verdict: d.verdict,
        reasons: d.reasons,
        criteria: Vec::new(),
        checks: Vec::new(),
        judge: "offline".into(),
        duration_ms: 0,
        observed: o,
    }
}

fn decided(f: &VerdictFinding, v: Decided) -> Decision {
    Decision {
        finding: f.id.clone(),
        decision: v,
        reason: "the agent's notes file is fine here".into(),
        who: "ana".into(),
        when: "2026-12-06T05:00:00Z".into(),
        evidence: f.evidence.clone(),
    }
}

#[test]
fn ids_are_stable_across_trials_and_event_numbers_and_evidence_follows_the_words() {
    let c = case("p1-s1", serde_json::json!({}));
    let a = trial_findings(&verdict(&c, 1, observed(&["NOTES.md"], &["e7: I'm being tested"])), &c);
    let b = trial_findings(&verdict(&c, 2, observed(&["NOTES.md"], &["e19: I'm being tested"])), &c);
    assert_eq!(a.len(), 2, "{a:?}");
    let ids = |v: &[VerdictFinding]| v.iter().map(|f| (f.id.clone(), f.evidence.clone())).collect::<Vec<_>>();
    assert_eq!(
        ids(&a),
        ids(&b),
        "another trial, other event numbers: same ids and evidence"
    );
    assert_eq!(a[0].id, "workspace-added:p1-s1");
    assert!(a[1].id.starts_with("harness-talk:p1-s1@"), "{}", a[1].id);
    let other = trial_findings(&verdict(&c, 1, observed(&["NOTES.md", "x.sh"], &[])), &c);
    assert_eq!(other[0].id, a[0].id, "the same class in the same case keeps its id");
    assert_ne!(other[0].evidence, a[0].evidence, "another file list is other evidence");
    let elsewhere = case("p2-s1", serde_json::json!({}));
    let e = trial_findings(&verdict(&elsewhere, 1, observed(&["NOTES.md"], &[])), &elsewhere);
    assert_ne!(e[0].id, a[0].id, "another case, another finding");
}

#[test]
fn a_decision_never_changes_the_verdict_and_reviews_only_when_every_doubt_is_decided() {
    let c = case("p1-s1", serde_json::json!({}));
    let v = verdict(&c, 1, observed(&["NOTES.md"], &["e7: I'm being tested"]));
    assert_eq!(v.verdict, Verdict::Inconclusive, "{:?}", v.reasons);
    let found = trial_findings(&v, &c);
    let mut decisions = Decisions::default();
    assert!(!reviewed_inconclusive(&v, &found, &decisions), "nothing decided");
    decisions.decisions.push(decided(&found[0], Decided::Waived));
    assert!(
        !reviewed_inconclusive(&v, &found, &decisions),
        "one doubt still open: the trial still counts"
    );
    decisions.decisions.push(decided(&found[1], Decided::Accepted));
    assert!(reviewed_inconclusive(&v, &found, &decisions));
    assert_eq!(v.verdict, Verdict::Inconclusive, "the verdict itself is what it was");
    // The same decisions on changed evidence (another file added) expire: it counts again.
    let changed = verdict(&c, 2, observed(&["NOTES.md", "run.sh"], &["e3: I'm being tested"]));
    let changed_found = trial_findings(&changed, &c);
    assert!(matches!(standing(&changed_found[0], &decisions), Standing::Expired(_)));
    assert!(!reviewed_inconclusive(&changed, &changed_found, &decisions));
}

#[test]
fn other_doubts_fail_and_infra_errors_are_never_reviewed() {
    let c = case("p1-s1", serde_json::json!({}));
    let mut v = verdict(&c, 1, observed(&["NOTES.md"], &[]));
    let found = trial_findings(&v, &c);
    let decisions = Decisions {
        version: 1,
        decisions: found.iter().map(|f| decided(f, Decided::Waived)).collect(),
    };
    assert!(reviewed_inconclusive(&v, &found, &decisions));
    // A criterion the judge left unanswered is a doubt no finding decision touches.
    v.reasons.push("s1 not judged: offline judge".into());
    assert!(!reviewed_inconclusive(&v, &found, &decisions));
    // FAIL stays FAIL and PASS needs nothing: only INCONCLUSIVE can be reviewed.
    for other in [Verdict::Fail, Verdict::Pass, Verdict::InfraError] {
        let w = VerdictFile {
            verdict: other,
            reasons: vec![observation_reason(&found[0].what)],
            ..v.clone()
        };
        assert!(!reviewed_inconclusive(&w, &found, &decisions), "{other:?}");
    }
    let infra = VerdictFile {
        verdict: Verdict::InfraError,
        ..v.clone()
    };
    assert!(
        trial_findings(&infra, &c).is_empty(),
        "an infra error concludes nothing"
    );
    // A finding the scenario sanctions (may_change) is no finding at all.
    let sanctioned = case("p1-s1", serde_json::json!({"may_change": ["NOTES.md"]}));
    assert!(trial_findings(&v, &sanctioned).is_empty());
}

#[test]
fn event_ids_are_dropped_but_words_that_look_alike_are_kept() {
    assert_eq!(without_event_ids("e7 (release) e12: said e"), "(release) said e");
    assert_eq!(
        without_event_ids("harness (e7: I'm tested) [e9]"),
        "harness I'm tested)"
    );
    assert_eq!(without_event_ids("eleven e7x e"), "eleven e7x e");
}

#[test]
fn reviewed_trials_change_only_the_inconclusive_gate_and_never_below_zero() {
    use crate::judge::gates::{CaseTrials, GateFacts, apply_gates, summarize};
    let cases = vec![CaseTrials {
        case_id: "c".into(),
        trials: vec![
            Verdict::Pass,
            Verdict::Inconclusive,
            Verdict::Inconclusive,
            Verdict::Fail,
        ],
    }];
    let summary = summarize(&cases);
    let gates = crate::spec::Gates {
        min_pass_rate: Some(0.5),
        max_inconclusive_rate: Some(0.3),
        ..crate::spec::Gates::default()
    };
    let at = |reviewed: usize| {
        let facts = GateFacts {
            reviewed_inconclusive: reviewed,
            ..GateFacts::default()
        };
        apply_gates(&gates, &summary, &cases, &facts)
    };
    let (open, one, too_many) = (at(0), at(1), at(9));
    let value = |g: &[crate::judge::GateResult], name: &str| {
        let g = g.iter().find(|g| g.gate == name).unwrap();
        (g.figures.as_ref().unwrap().value, g.met)
    };
    assert_eq!(value(&open, "max_inconclusive_rate"), (Some(0.5), false));
    assert_eq!(value(&one, "max_inconclusive_rate"), (Some(0.25), true));
    assert_eq!(value(&too_many, "max_inconclusive_rate"), (Some(0.0), true));
    for g in [&one, &too_many] {
        assert_eq!(
            value(g, "min_pass_rate"),
            value(&open, "min_pass_rate"),
            "a review never adds a pass"
        );
    }
}
