//! Why an effect of the wizard failed, one enum per extension point (`traits`): the model
//! catalog, the generator and the suite runner. Each keeps the path or the cause it is about;
//! their Display is the reason the person reads in the step (word for word what it was when
//! these were strings).

use std::path::PathBuf;

/// An error a third-party catalog, generator or runner brings along (and what a test fake
/// refuses with); shown as its own message.
pub type BackendError = Box<dyn std::error::Error + Send + Sync>;

/// An executor panicked; `driver::guarded` turns the panic into this so the step ends with a
/// reason instead of leaving the wizard waiting.
#[derive(Debug, thiserror::Error)]
#[error("{what} crashed: {message}")]
pub struct Crashed {
    /// Which executor: "the proposer", "discovery", "the suite runner".
    pub(crate) what: &'static str,
    /// The panic's message, or "unknown panic".
    pub(crate) message: String,
}

/// Why `ModelCatalog::models` could not list models.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The catalog's own source (an endpoint, a registry) did not answer.
    #[error("cannot list models from {catalog}: {source}")]
    Unavailable {
        catalog: String,
        #[source]
        source: BackendError,
    },
}

/// Why `Generator::generate` produced no artifact.
#[derive(Debug, thiserror::Error)]
pub enum GeneratorError {
    /// The job as answered so far does not resolve.
    #[error(transparent)]
    Job(#[from] crate::spec::SpecError),
    /// `generation.proposer` names a model that cannot be built.
    #[error("generation.proposer: {0}")]
    Proposer(#[source] crate::llm::LlmError),
    /// A step the artifact builds on was not accepted yet.
    #[error("the {what} has not been accepted yet")]
    NotAccepted { what: &'static str },
    /// An accepted artifact does not read as its type.
    #[error("the accepted {what} is not valid: {source}")]
    InvalidAccepted {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
    /// The generation pipeline failed (model, schema, budget).
    #[error(transparent)]
    Pipeline(#[from] crate::generate::GenerateError),
    /// The generated artifact does not encode as JSON.
    #[error(transparent)]
    Encode(serde_json::Error),
    #[error("cancelled")]
    Cancelled,
    #[error(transparent)]
    Crashed(#[from] Crashed),
    /// Another generator's own error.
    #[error(transparent)]
    Backend(BackendError),
}

/// Why `SuiteRunner::run` ended without results.
#[derive(Debug, thiserror::Error)]
pub enum LabRunError {
    /// The saved job.yaml does not load.
    #[error(transparent)]
    Job(#[from] crate::spec::SpecError),
    /// The accepted artifacts could not be published for the run.
    #[error(transparent)]
    Publish(#[from] PublishError),
    /// The dataset's cases do not load (the message names the file).
    #[error(transparent)]
    Cases(#[from] crate::run::case::dataset_cases::CasesError),
    /// The run folder could not be chosen, or the suite failed.
    #[error(transparent)]
    Run(#[from] crate::app::test_run::TestRunError),
    /// The lab could not note which run it started (resuming after a kill needs it).
    #[error("{}: cannot record the run: {source}", lab_dir.display())]
    Marker {
        lab_dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The verdicts are written but the report is not.
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    #[error("cancelled; finished trials are kept in the run folder")]
    Cancelled,
    #[error(transparent)]
    Crashed(#[from] Crashed),
    /// Another runner's own error.
    #[error(transparent)]
    Backend(BackendError),
}

/// Why the accepted profile, personas and scenarios could not become the run's artifacts.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error(transparent)]
    Read(#[from] crate::util::bounded::BoundedError),
    #[error("{}: {source}", path.display())]
    NotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: no accepted artifact", path.display())]
    NotAccepted { path: PathBuf },
    #[error("the accepted {what} is not valid: {source}")]
    Invalid {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
    /// Reading the curation or writing an artifact failed.
    #[error(transparent)]
    Store(#[from] crate::generate::GenerateError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    fn not_json() -> serde_json::Error {
        serde_json::from_str::<serde_json::Value>("{").unwrap_err()
    }

    #[test]
    fn crashed_names_the_executor_and_the_panic() {
        let e = Crashed {
            what: "the proposer",
            message: "index out of bounds".into(),
        };
        assert_eq!(e.to_string(), "the proposer crashed: index out of bounds");
        let g = GeneratorError::from(e);
        assert_eq!(g.to_string(), "the proposer crashed: index out of bounds");
    }

    #[test]
    fn catalog_error_names_the_catalog_and_keeps_its_source() {
        let e = CatalogError::Unavailable {
            catalog: "http://127.0.0.1:11434/v1".into(),
            source: "connection refused".into(),
        };
        assert_eq!(
            e.to_string(),
            "cannot list models from http://127.0.0.1:11434/v1: connection refused"
        );
        assert_eq!(e.source().map(|s| s.to_string()).as_deref(), Some("connection refused"));
    }

    #[test]
    fn generator_errors_say_which_artifact_and_keep_the_parse_error() {
        assert_eq!(
            GeneratorError::NotAccepted { what: "personas" }.to_string(),
            "the personas has not been accepted yet"
        );
        let e = GeneratorError::InvalidAccepted {
            what: "profile",
            source: not_json(),
        };
        assert!(
            e.to_string().starts_with("the accepted profile is not valid: EOF"),
            "{e}"
        );
        assert!(e.source().is_some(), "the serde error stays the source");
        assert_eq!(GeneratorError::Cancelled.to_string(), "cancelled");
        assert_eq!(
            GeneratorError::Backend("fake generator told to fail".into()).to_string(),
            "fake generator told to fail"
        );
    }

    #[test]
    fn run_errors_keep_the_folder_and_the_io_cause() {
        let e = LabRunError::Marker {
            lab_dir: PathBuf::from("/jobs/bot/.ghostlab/lab"),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "read-only file system"),
        };
        assert_eq!(
            e.to_string(),
            "/jobs/bot/.ghostlab/lab: cannot record the run: read-only file system"
        );
        assert!(e.source().is_some());
        assert_eq!(
            LabRunError::Cancelled.to_string(),
            "cancelled; finished trials are kept in the run folder"
        );
        let published = LabRunError::from(PublishError::NotAccepted {
            path: PathBuf::from("/s/lab/personas.json"),
        });
        assert_eq!(published.to_string(), "/s/lab/personas.json: no accepted artifact");
    }

    #[test]
    fn publish_errors_name_the_file() {
        let e = PublishError::NotJson {
            path: PathBuf::from("/s/lab/profile.json"),
            source: not_json(),
        };
        assert!(e.to_string().starts_with("/s/lab/profile.json: EOF"), "{e}");
        assert!(e.source().is_some());
    }
}
