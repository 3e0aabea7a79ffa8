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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::effect_errors::GeneratorError;

    #[test]
    fn a_failed_regenerate_says_why_in_the_words_the_step_shows() {
        let down = RegenerateError::from(Shared::from(ProposeError::from(GeneratorError::Cancelled)));
        assert_eq!(down.to_string(), "cancelled");
        assert!(
            matches!(&down, RegenerateError::Proposer(e) if matches!(e.get(), ProposeError::Generate(GeneratorError::Cancelled))),
            "the proposer's own error is kept: {down:?}"
        );
        assert_eq!(
            RegenerateError::NotASet.to_string(),
            "the proposer's answer is not a set"
        );
        assert_eq!(
            RegenerateError::NoSuchItem { id: "ana".into() }.to_string(),
            "the proposer's answer has no item `ana`"
        );
    }

    #[test]
    fn set_problems_read_as_one_line_and_keep_each_problem() {
        let p = SetProblems(vec!["personas[0].id: required".into(), "duplicate id `ana`".into()]);
        assert_eq!(p.to_string(), "personas[0].id: required; duplicate id `ana`");
        assert_eq!(p.0.len(), 2);
    }
}
