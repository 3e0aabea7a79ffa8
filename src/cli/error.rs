//! The error every command returns: what went wrong (its kind, the message), what to do about
//! it (hints), and the error underneath (source). Which exit code a kind means is decided in
//! one place, `exit::Exit::code` (`Exit::from(&CliError)`).

use std::fmt;

use crate::spec::SpecError;

/// Why a command could not run: the reasons the EXIT STATUS table names for exit 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The arguments are wrong, conflict or select nothing.
    Usage,
    /// An input file or its contents is wrong (the message names the file and key).
    BadInput,
    /// A file could not be read or written.
    Io,
    /// Something the command needs is missing: a run, a key, a working sandbox backend, a tool.
    MissingPrerequisite,
    /// A peer failed: an MCP server, a model endpoint, the sandbox, the agent's run.
    Peer,
}

/// The underlying error, kept for `std::error::Error::source`.
type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A failure for the person: the message, then each hint on its own `hint:` line.
#[derive(Debug)]
pub(crate) struct CliError {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
    pub(crate) hints: Vec<String>,
    pub(crate) source: Option<Source>,
}

impl CliError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CliError {
            kind,
            message: message.into(),
            hints: Vec::new(),
            source: None,
        }
    }

    /// An error of `kind` whose message is `error`'s own words, keeping `error` as the source.
    pub(crate) fn from_error(kind: ErrorKind, error: impl std::error::Error + Send + Sync + 'static) -> Self {
        CliError {
            kind,
            message: error.to_string(),
            hints: Vec::new(),
            source: Some(Box::new(error)),
        }
    }

    /// The arguments are wrong, conflict or select nothing.
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        CliError::new(ErrorKind::Usage, message)
    }

    /// An input file or its contents is wrong.
    pub(crate) fn bad_input(message: impl Into<String>) -> Self {
        CliError::new(ErrorKind::BadInput, message)
    }

    /// A file could not be read or written.
    pub(crate) fn io_error(message: impl Into<String>) -> Self {
        CliError::new(ErrorKind::Io, message)
    }

    /// Something the command needs is missing.
    pub(crate) fn missing(message: impl Into<String>) -> Self {
        CliError::new(ErrorKind::MissingPrerequisite, message)
    }

    /// A peer failed.
    pub(crate) fn peer(message: impl Into<String>) -> Self {
        CliError::new(ErrorKind::Peer, message)
    }

    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// Keeps `error` as the source without changing the message.
    pub(crate) fn because(mut self, error: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(error));
        self
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        for hint in &self.hints {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for CliError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|s| s as &(dyn std::error::Error + 'static))
    }
}

impl From<SpecError> for CliError {
    fn from(e: SpecError) -> Self {
        CliError::from_error(ErrorKind::BadInput, e)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::from_error(ErrorKind::Io, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn hints_follow_the_message() {
        let e = CliError::usage("no cases selected").with_hint("approve cases");
        assert_eq!(e.to_string(), "error: no cases selected\nhint: approve cases");
    }

    #[test]
    fn an_error_taken_from_another_keeps_its_words_and_its_source() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "job.yaml: not found");
        let e = CliError::from(io);
        assert_eq!(e.kind, ErrorKind::Io);
        assert_eq!(e.to_string(), "error: job.yaml: not found");
        assert_eq!(e.source().unwrap().to_string(), "job.yaml: not found");
    }

    #[test]
    fn because_keeps_the_message_and_adds_the_source() {
        let io = std::io::Error::other("connection refused");
        let e = CliError::peer("http://127.0.0.1:9: cannot list models").because(io);
        assert_eq!(e.to_string(), "error: http://127.0.0.1:9: cannot list models");
        assert_eq!(e.source().unwrap().to_string(), "connection refused");
        assert_eq!(e.kind, ErrorKind::Peer);
    }

    #[test]
    fn every_constructor_names_its_kind() {
        assert_eq!(CliError::usage("x").kind, ErrorKind::Usage);
        assert_eq!(CliError::bad_input("x").kind, ErrorKind::BadInput);
        assert_eq!(CliError::io_error("x").kind, ErrorKind::Io);
        assert_eq!(CliError::missing("x").kind, ErrorKind::MissingPrerequisite);
        assert_eq!(CliError::peer("x").kind, ErrorKind::Peer);
    }
}
