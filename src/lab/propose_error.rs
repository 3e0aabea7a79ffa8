//! Why a step has no proposal: the reason the wizard shows in the step (and `lab --yes` prints),
//! keeping the file, flag or generator error it comes from.

use super::effect_errors::{Crashed, GeneratorError};
use super::gate_error::GateError;
use super::role_models::{RoleChoiceError, RoleFlagError};

#[derive(Debug, thiserror::Error)]
pub enum ProposeError {
    /// The source (`--from`, job.yaml, an MCP servers file) does not import or parse.
    #[error(transparent)]
    Source(#[from] crate::spec::SpecError),
    #[error(transparent)]
    Read(#[from] crate::util::bounded::BoundedError),
    /// The generator behind Steps 5, 6 and 7 failed.
    #[error(transparent)]
    Generate(#[from] GeneratorError),
    /// `--model` names a model the person's OpenCode cannot use.
    #[error(
        "--model {seed}: not a model you can use now (your OpenCode lists only providers with a credential). \
         Usable: {usable}"
    )]
    UnusableModel {
        seed: String,
        /// The usable models, comma-separated, or "none".
        usable: String,
    },
    /// A role flag (`--judge-model` …) is refused.
    #[error(transparent)]
    RoleFlag(#[from] RoleFlagError),
    #[error("--proposer-model: {0}")]
    ProposerChoice(#[source] RoleChoiceError),
    /// The proposer model could not draft the purpose (Step 2).
    #[error("the proposer model ({who}) could not draft the purpose: {source}")]
    PurposeDraft {
        who: String,
        #[source]
        source: GeneratorError,
    },
    #[error("the drafted profile is not valid: {0}")]
    DraftedProfile(#[source] serde_json::Error),
    /// A `--gate key=value` is refused (the message names the flag).
    #[error(transparent)]
    Gate(#[from] GateError),
    #[error(transparent)]
    Crashed(#[from] Crashed),
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn the_reason_names_the_flag_or_the_model() {
        let e = ProposeError::UnusableModel {
            seed: "openai/gpt-9".into(),
            usable: "none".into(),
        };
        assert_eq!(
            e.to_string(),
            "--model openai/gpt-9: not a model you can use now (your OpenCode lists only providers with a \
             credential). Usable: none"
        );
        let e = ProposeError::ProposerChoice(RoleChoiceError::NotProviderModel { choice: "gpt".into() });
        assert_eq!(
            e.to_string(),
            "--proposer-model: `gpt` is not `provider/model` or `offline`"
        );
        assert!(e.source().is_some());
    }

    #[test]
    fn a_failed_draft_names_the_model_and_keeps_the_generator_error() {
        let e = ProposeError::PurposeDraft {
            who: "anthropic/claude-haiku-4-5".into(),
            source: GeneratorError::Cancelled,
        };
        assert_eq!(
            e.to_string(),
            "the proposer model (anthropic/claude-haiku-4-5) could not draft the purpose: cancelled"
        );
        assert!(matches!(
            e.source().and_then(|s| s.downcast_ref::<GeneratorError>()),
            Some(GeneratorError::Cancelled)
        ));
    }

    #[test]
    fn generator_errors_pass_through_word_for_word() {
        let e = ProposeError::from(GeneratorError::NotAccepted { what: "profile" });
        assert_eq!(e.to_string(), "the profile has not been accepted yet");
    }
}
