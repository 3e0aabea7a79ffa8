//! The error every command returns: what went wrong, what to do about it, and — in one place —
//! which exit code that means. A run's own outcome maps to its exit code here too.

use std::fmt;
use std::process::ExitCode;

use crate::spec::SpecError;

/// What kind of failure, which decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The command could not run: bad arguments or input, a missing prerequisite, a broken peer.
    CouldNotRun,
}

impl ErrorKind {
    /// The one mapping from failure kind to exit code.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::CouldNotRun => 2,
        }
    }
}

/// Exit code of a finished run: 0 when every gate is met, 1 when one is not.
pub fn gates_exit(gates_met: bool) -> ExitCode {
    if gates_met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// A failure for the person: the message, then each hint on its own `hint:` line.
#[derive(Debug)]
pub struct CliError {
    pub kind: ErrorKind,
    pub message: String,
    pub hints: Vec<String>,
}

impl CliError {
    /// The command could not run (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            kind: ErrorKind::CouldNotRun,
            message: message.into(),
            hints: Vec::new(),
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.kind.exit_code())
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

impl From<SpecError> for CliError {
    fn from(e: SpecError) -> Self {
        CliError::usage(e.to_string())
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::usage(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_follow_the_message_and_could_not_run_is_exit_2() {
        let e = CliError::usage("no cases selected").with_hint("approve cases");
        assert_eq!(e.to_string(), "error: no cases selected\nhint: approve cases");
        assert_eq!(e.kind.exit_code(), 2);
    }
}
