//! What is read back from stored runs: the summary's schema and one-line form, findings,
//! replay checks, rescore and merge.

pub mod merge;
pub(crate) mod replay_check;
pub mod rescore;
pub(crate) mod run_findings;
pub(crate) mod stored_versions;
pub(super) mod summary_line;
pub(crate) mod summary_schema;
