//! What is read back from stored runs: the summary's schema and one-line form, findings,
//! replay checks, rescore and merge.

pub mod merge;
pub mod replay_check;
pub mod rescore;
pub mod run_findings;
pub mod stored_versions;
pub(super) mod summary_line;
pub mod summary_schema;
