//! Judging: verdict rules, deterministic checks, aggregation, gates, statistics, JUnit.
//!
//! Nothing here may turn doubt into a pass: an unanswered criterion, a check that could not
//! run, an emulator that broke character or a broken peer never yields PASS.

pub mod case_verdict;
pub mod checks;
pub mod citations;
pub mod compare;
pub mod confirmations;
pub mod dataset_checks;
pub mod default_gates;
pub mod evidence_criteria;
pub mod evidence_policy;
pub mod exercises;
pub mod facts;
pub mod file_facts;
pub mod gates;
pub mod integrity;
pub mod integrity_classifier;
pub mod integrity_context;
pub mod integrity_phrases;
pub mod junit;
pub mod llm_judge;
pub mod observability;
pub mod observed;
pub mod output_bound;
pub mod secret_scan;
pub mod stats;
pub mod tool_instructions;
pub mod verdict;
pub mod verdict_findings;
pub mod workspace_diff;

pub use gates::{
    CaseTrials, Comparison, ContractFacts, GateFacts, GateFigures, GateResult, GateUnit, Summary, apply_gates,
    summarize,
};
pub use verdict::{
    Answer, CheckOutcome, CheckResult, CriterionKind, CriterionResult, Decision, Evidence, Verdict, decide,
};
