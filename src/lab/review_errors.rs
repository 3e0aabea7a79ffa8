//! Why an item-level review action (`review`) left the set as it was.

use super::propose_error::ProposeError;
use super::shared_error::Shared;

/// Why an edited or regenerated set cannot be kept: every problem its schema and checks found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", .0.join("; "))]
pub(crate) struct SetProblems(pub(crate) Vec<String>);

/// Why regenerating one item left the set as it was.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum RegenerateError {
    /// The proposer failed; its own reason.
    #[error(transparent)]
    Proposer(#[from] Shared<ProposeError>),
    /// Esc while it was asked.
    #[error("cancelled")]
    Cancelled,
    #[error("the proposer's answer is not a set")]
    NotASet,
    /// The answer has neither the item's id nor an item at its place.
    #[error("the proposer's answer has no item `{id}`")]
    NoSuchItem { id: String },
}
