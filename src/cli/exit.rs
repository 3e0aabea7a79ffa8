//! Every way a command ends and the one mapping from that to the process exit code. Nothing
//! else in the crate picks an exit status (`tests/it/exit_status_docs.rs` checks).

use std::process::ExitCode;

use super::error::{CliError, ErrorKind};

/// Exit 0: the command did its work (for `test`, `lab`, `merge`, `rescore`: every gate met).
pub(crate) const EXIT_OK: u8 = 0;
/// Exit 1: a verdict against the input, not a failure to run.
pub(crate) const EXIT_NOT_MET: u8 = 1;
/// Exit 2: the command could not run.
pub(crate) const EXIT_COULD_NOT_RUN: u8 = 2;
/// Exit 124: `ghostlab sandbox exec` killed the command at its wall-clock limit.
pub(crate) const EXIT_TIMED_OUT: u8 = 124;
/// Exit 141: standard output was closed by its reader; the status of a SIGPIPE death.
pub(crate) const EXIT_OUTPUT_CLOSED: u8 = 141;

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

/// How a command ended. A failure to run is a `CliError` (its kind lands in `Failed`); the rest
/// are verdicts a command returns as `Ok`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The command did its work; every gate met.
    Success,
    /// A verdict against the input: a gate not met, findings at `--fail-on`, a stale schema.
    NotMet,
    /// The command could not run, for this reason.
    Failed(ErrorKind),
    /// `sandbox exec` killed the command at its wall-clock limit.
    TimedOut,
    /// Standard output was closed by its reader.
    OutputClosed,
    /// `sandbox exec`/`shell` and the internal relays: the wrapped command's own status (a
    /// status outside 0–255 becomes 1).
    Child(i32),
}

impl Exit {
    /// 0 when every gate is met, 1 when one is not.
    pub(crate) fn gates(gates_met: bool) -> Exit {
        if gates_met { Exit::Success } else { Exit::NotMet }
    }

    /// The one mapping to the numeric status.
    pub(crate) fn code(self) -> u8 {
        match self {
            Exit::Success => EXIT_OK,
            Exit::NotMet => EXIT_NOT_MET,
            Exit::Failed(
                ErrorKind::Usage
                | ErrorKind::BadInput
                | ErrorKind::Io
                | ErrorKind::MissingPrerequisite
                | ErrorKind::Peer,
            ) => EXIT_COULD_NOT_RUN,
            Exit::TimedOut => EXIT_TIMED_OUT,
            Exit::OutputClosed => EXIT_OUTPUT_CLOSED,
            Exit::Child(code) => u8::try_from(code).unwrap_or(EXIT_NOT_MET),
        }
    }

    /// Ends the process now with this status (for the places that cannot return: a closed
    /// output found deep inside a write).
    pub(crate) fn now(self) -> ! {
        std::process::exit(self.code().into())
    }
}

impl From<&CliError> for Exit {
    /// A command that could not run: exit 2, whatever the kind.
    fn from(e: &CliError) -> Exit {
        Exit::Failed(e.kind)
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

/// The EXIT STATUS text of `--help`.
pub(crate) fn exit_status_help() -> String {
    let mut out = String::from("Exit status:\n");
    for (code, meaning) in EXIT_CODES {
        out.push_str(&format!("  {code:<3}  {meaning}\n"));
    }
    out
}

/// The EXIT STATUS section of the man page, in roff.
pub(crate) fn exit_status_roff() -> String {
    let mut out = String::from(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in EXIT_CODES {
        // A line starting with `.` or `'` would be read as a roff request.
        out.push_str(&format!(".TP\n\\fB{code}\\fR\n\\&{}\n", meaning.replace('\\', "\\e")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERY_KIND: [ErrorKind; 5] = [
        ErrorKind::Usage,
        ErrorKind::BadInput,
        ErrorKind::Io,
        ErrorKind::MissingPrerequisite,
        ErrorKind::Peer,
    ];

    #[test]
    fn every_failure_kind_is_the_documented_could_not_run_status() {
        for kind in EVERY_KIND {
            assert_eq!(Exit::Failed(kind).code(), 2, "{kind:?}");
        }
        let e = CliError::usage("no cases selected").with_hint("approve cases");
        assert_eq!(Exit::from(&e).code(), 2);
        let could_not_run = EXIT_CODES.iter().find(|(c, _)| *c == 2).unwrap().1;
        assert!(could_not_run.starts_with("could not run"), "{could_not_run}");
    }

    #[test]
    fn every_outcome_maps_to_its_row_of_the_table() {
        let cases = [
            (Exit::Success, 0),
            (Exit::NotMet, 1),
            (Exit::TimedOut, 124),
            (Exit::OutputClosed, 141),
        ];
        for (exit, code) in cases {
            assert_eq!(exit.code(), code, "{exit:?}");
            assert!(EXIT_CODES.iter().any(|(c, _)| *c == code), "{code} is not in the table");
        }
        assert_eq!(Exit::gates(true), Exit::Success);
        assert_eq!(Exit::gates(false), Exit::NotMet);
    }

    #[test]
    fn a_child_status_passes_through_and_one_out_of_range_is_1() {
        assert_eq!(Exit::Child(0).code(), 0);
        assert_eq!(Exit::Child(3).code(), 3);
        assert_eq!(Exit::Child(255).code(), 255);
        assert_eq!(Exit::Child(256).code(), 1);
        assert_eq!(Exit::Child(-1).code(), 1);
    }
}
