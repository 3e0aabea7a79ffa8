use super::*;

fn case(id: &str, trials: &[Verdict]) -> CaseTrials {
    CaseTrials {
        case_id: id.into(),
        trials: trials.to_vec(),
    }
}

fn every_gate() -> Gates {
    Gates {
        min_pass_rate: Some(0.5),
        pass_k: Some(PassK { k: 2, min_rate: 0.5 }),
        max_inconclusive_rate: Some(0.5),
        max_infra_error_rate: Some(0.5),
        no_high_security_findings: Some(true),
        no_tool_schema_errors: Some(true),
        no_denied_egress: Some(true),
    }
}

fn met(results: &[GateResult]) -> Vec<(&str, bool)> {
    results.iter().map(|g| (g.gate.as_str(), g.met)).collect()
}

#[test]
fn every_gate_reports_in_a_fixed_order_and_an_empty_run_meets_no_rate_gate() {
    let facts = GateFacts {
        contract: ContractFacts::linted(0, 0),
        ..GateFacts::default()
    };
    // Thresholds an empty run's figures (all 0) would meet, but for the empty-run rule.
    let lenient = Gates {
        min_pass_rate: Some(0.0),
        pass_k: Some(PassK { k: 2, min_rate: 0.0 }),
        max_inconclusive_rate: Some(1.0),
        max_infra_error_rate: Some(1.0),
        ..every_gate()
    };
    let results = apply_gates(&lenient, &summarize(&[]), &[], &facts);
    assert_eq!(
        met(&results),
        [
            ("min_pass_rate", false),
            ("pass^2", false),
            ("max_inconclusive_rate", false),
            ("max_infra_error_rate", false),
            ("no_high_security_findings", true),
            ("no_tool_schema_errors", true),
            ("no_denied_egress", true),
        ]
    );
    assert!(apply_gates(&Gates::default(), &summarize(&[]), &[], &facts).is_empty());
}

#[test]
fn a_case_short_of_k_trials_keeps_pass_k_unmet_even_when_all_passed() {
    let gates = Gates {
        pass_k: every_gate().pass_k,
        ..Gates::default()
    };
    let cases = [case("a", &[Verdict::Pass, Verdict::Pass]), case("b", &[Verdict::Pass])];
    let r = apply_gates(&gates, &summarize(&cases), &cases, &GateFacts::default());
    assert!(!r[0].met, "{r:?}");
    assert!(r[0].actual.contains("1 case(s) ran fewer than 2 trials"), "{r:?}");
    let full = [case("a", &[Verdict::Pass, Verdict::Pass])];
    assert!(apply_gates(&gates, &summarize(&full), &full, &GateFacts::default())[0].met);
}

#[test]
fn doubt_counts_against_the_rate_gates_and_missing_contract_facts_meet_nothing() {
    let cases = [case("a", &[Verdict::Inconclusive, Verdict::InfraError, Verdict::Pass])];
    let gates = Gates {
        max_inconclusive_rate: Some(0.2),
        max_infra_error_rate: Some(0.2),
        no_high_security_findings: Some(true),
        no_tool_schema_errors: Some(true),
        no_denied_egress: Some(true),
        ..Gates::default()
    };
    let facts = GateFacts {
        denied_egress: 1,
        ..GateFacts::default()
    };
    let r = apply_gates(&gates, &summarize(&cases), &cases, &facts);
    assert!(r.iter().all(|g| !g.met), "{r:?}");
    // Contract facts nobody gathered have no value to show, only the reason.
    assert_eq!(r[2].actual, "contract facts not gathered");
    assert_eq!(r[2].figures.as_ref().and_then(|f| f.value), None);
    // A reviewed INCONCLUSIVE trial is left out of its gate, and of no other.
    let reviewed = GateFacts {
        reviewed_inconclusive: 5,
        contract: ContractFacts::linted(0, 2),
        ..GateFacts::default()
    };
    let r = apply_gates(&gates, &summarize(&cases), &cases, &reviewed);
    assert_eq!(
        met(&r),
        [
            ("max_inconclusive_rate", true),
            ("max_infra_error_rate", false),
            ("no_high_security_findings", true),
            ("no_tool_schema_errors", false),
            ("no_denied_egress", true),
        ]
    );
}
