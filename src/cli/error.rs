//! The error every command returns: what went wrong, what to do about it, and — in one place —
//! which exit code that means. A run's own outcome maps to its exit code here too.

use std::fmt;
use std::process::ExitCode;

use crate::spec::SpecError;

/// Exit 0: the command did its work (for `test`, `lab`, `merge`, `rescore`: every gate met).
pub const EXIT_OK: u8 = 0;
/// Exit 1: a verdict against the input, not a failure to run.
pub const EXIT_NOT_MET: u8 = 1;
/// Exit 2: the command could not run.
pub const EXIT_COULD_NOT_RUN: u8 = 2;
/// Exit 124: `ghostlab sandbox exec` killed the command at its wall-clock limit.
pub const EXIT_TIMED_OUT: u8 = 124;
/// Exit 141: standard output was closed by its reader; the status of a SIGPIPE death.
pub const EXIT_OUTPUT_CLOSED: u8 = 141;

/// Every exit code Ghostlab itself chooses, with its meaning: the one table `--help` and the
/// man page's EXIT STATUS are written from.
pub const EXIT_CODES: &[(u8, &str)] = &[
    (EXIT_OK, "success; for test, lab, merge and rescore: every gate met"),
    (
        EXIT_NOT_MET,
        "a gate not met (test, lab, merge, rescore); findings at --fail-on (lint); a stale schema \
         (schema --check)",
    ),
    (
        EXIT_COULD_NOT_RUN,
        "could not run: bad arguments or input (the message names the file and key), a missing \
         prerequisite, a broken peer; init --force wrote a job that does not validate",
    ),
    (
        EXIT_TIMED_OUT,
        "sandbox exec: the command was killed at its wall-clock limit (otherwise sandbox commands \
         exit with the command's own status)",
    ),
    (
        EXIT_OUTPUT_CLOSED,
        "standard output was closed by its reader (`| head`): the command stopped writing, as a \
         program killed by SIGPIPE would",
    ),
];

/// The EXIT STATUS text of `--help`.
pub fn exit_status_help() -> String {
    let mut out = String::from("Exit status:\n");
    for (code, meaning) in EXIT_CODES {
        out.push_str(&format!("  {code:<3}  {meaning}\n"));
    }
    out
}

/// The EXIT STATUS section of the man page, in roff.
pub fn exit_status_roff() -> String {
    let mut out = String::from(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in EXIT_CODES {
        // A line starting with `.` or `'` would be read as a roff request.
        out.push_str(&format!(".TP\n\\fB{code}\\fR\n\\&{}\n", meaning.replace('\\', "\\e")));
    }
    out
}

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
            ErrorKind::CouldNotRun => EXIT_COULD_NOT_RUN,
        }
    }
}

/// Exit code of a finished run: 0 when every gate is met, 1 when one is not.
pub fn gates_exit(gates_met: bool) -> ExitCode {
    if gates_met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_NOT_MET)
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
