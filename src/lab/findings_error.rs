//! Why the lab could not list a job's findings or record a decision on one (`decide_findings`),
//! and how the results screen says it (`findings_review`).

use super::shared_error::Shared;
use crate::mcp::contract::decide::DecideError;
use crate::mcp::contract::decisions::DecisionsError;

/// Why the findings could not be listed or a decision not recorded; each names its file.
#[derive(Debug, thiserror::Error)]
pub enum FindingsError {
    /// The saved job.yaml does not load.
    #[error(transparent)]
    Job(#[from] crate::spec::SpecError),
    /// The contract does not read, or the decision is refused (unknown id, blank reason).
    #[error(transparent)]
    Decide(#[from] DecideError),
    /// `<job>.decisions.json` does not read.
    #[error(transparent)]
    Decisions(#[from] DecisionsError),
}

/// What the results screen says went wrong with the findings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FindingsProblem {
    /// Enter with a blank reason: nothing is recorded.
    #[error("say why: the reason is stored with the decision and shown in the report")]
    NoReason,
    /// The findings could not be read, or the decision was refused.
    #[error(transparent)]
    Failed(#[from] Shared<FindingsError>),
}
