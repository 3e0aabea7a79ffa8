//! Judging: verdict rules, deterministic checks, aggregation, gates, statistics, JUnit.
//!
//! Nothing here may turn doubt into a pass: an unanswered criterion, a check that could not
//! run, an emulator that broke character or a broken peer never yields PASS.

pub mod case_verdict;
pub mod checks;
pub(crate) mod citations;
pub(crate) mod compare;
pub(crate) mod confirmations;
pub(crate) mod dataset_checks;
pub(crate) mod default_gates;
pub(crate) mod evidence_criteria;
pub(crate) mod evidence_policy;
pub(crate) mod exercises;
pub(crate) mod facts;
pub(crate) mod file_facts;
pub(crate) mod gates;
pub(crate) mod integrity;
pub(crate) mod integrity_classifier;
pub(crate) mod integrity_context;
pub(crate) mod integrity_phrases;
pub(crate) mod junit;
pub mod llm_judge;
pub mod observability;
pub(crate) mod observed;
pub(crate) mod output_bound;
pub(crate) mod secret_scan;
pub(crate) mod stats;
pub(crate) mod tool_instructions;
pub mod verdict;
pub(crate) mod verdict_findings;
pub(crate) mod workspace_diff;

pub use gates::{CaseTrials, ContractFacts, GateFacts, GateResult, Summary, apply_gates, summarize};
pub use verdict::{
    Answer, CheckOutcome, CheckResult, CriterionKind, CriterionResult, Decision, Evidence, Verdict, decide,
};
