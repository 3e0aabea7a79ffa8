//! Why a step's answer cannot be accepted: the notice the person reads beside their answer
//! (and `lab --yes` prints). Each names the key, the server or the step it is about.

use super::role_models::RoleChoiceError;

#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    /// Step 1's job text does not parse as a job.
    #[error(transparent)]
    Source(#[from] crate::spec::SpecError),
    #[error("the purpose is empty: say in a sentence or two what the agent is for")]
    EmptyPurpose,
    /// A role line of Step 3 (`judge: …`) names no usable role.
    #[error("{role}: {source}")]
    Role {
        role: String,
        #[source]
        source: RoleChoiceError,
    },
    #[error("no model chosen: type `provider/model` (for example openai/gpt-4.1)")]
    NoModel,
    #[error("`{model}` is not `provider/model` (for example openai/gpt-4.1)")]
    NotProviderModel { model: String },
    /// The answer is not YAML, or breaks the YAML guard (nesting, alias budget).
    #[error("{what} is not readable YAML: {reason}")]
    Unreadable { what: String, reason: String },
    /// The answer is YAML but not a valid value at its key; `problems` name each key.
    #[error("{what} cannot be used: {problems}")]
    Unusable { what: String, problems: String },
    #[error("the job cannot be shown as JSON: {0}")]
    JobNotJson(#[source] serde_json::Error),
    /// `index` counts from 1, as the person reads the list.
    #[error("MCP server {index} has no `server` name")]
    UnnamedServer { index: usize },
    #[error(
        "two MCP servers are named `{name}`: the agent sees tools as `<server>_<tool>`, so each name must be unique; rename or remove one"
    )]
    DuplicateServer { name: String },
    /// A rule `validate` enforces too (network allowlist, gate ranges).
    #[error("{0}")]
    Rule(crate::spec::Broken),
    /// `what` is the step's title in lower case ("personas").
    #[error("the {what} is empty")]
    EmptyArtifact { what: String },
    #[error("accept personas before scenarios")]
    PersonasFirst,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn the_notice_names_the_key_or_the_server() {
        let e = AnswerError::Unusable {
            what: "the gates answer".into(),
            problems: "`min_pass_rate`: must be at most 1".into(),
        };
        assert_eq!(
            e.to_string(),
            "the gates answer cannot be used: `min_pass_rate`: must be at most 1"
        );
        assert_eq!(
            AnswerError::UnnamedServer { index: 2 }.to_string(),
            "MCP server 2 has no `server` name"
        );
        assert!(
            AnswerError::DuplicateServer { name: "gh".into() }
                .to_string()
                .starts_with("two MCP servers are named `gh`:")
        );
        let rule = AnswerError::Rule(crate::spec::Broken {
            key: "allow[0]".into(),
            message: "not host:port".into(),
        });
        assert_eq!(rule.to_string(), "allow[0]: not host:port");
    }

    #[test]
    fn a_refused_role_line_names_the_role_and_keeps_why() {
        let e = AnswerError::Role {
            role: "judge".into(),
            source: RoleChoiceError::NotProviderModel { choice: "gpt".into() },
        };
        assert_eq!(e.to_string(), "judge: `gpt` is not `provider/model` or `offline`");
        assert!(e.source().is_some());
    }
}
