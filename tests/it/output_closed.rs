//! A reader that goes away (`ghostlab … | head -1`) stops the command quietly with 141, the
//! status of a SIGPIPE death, instead of a panic on stdout; other commands are unaffected.

use std::io::Read;
use std::process::{Command, Stdio};

/// Runs `args` with stdout a pipe whose reader is already gone (as after `| head` exited), and
/// returns (status, stderr).
fn with_reader_gone(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("ghostlab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (status.code(), err)
}

#[test]
fn a_closed_stderr_ends_with_141_not_a_panic() {
    // `ghostlab … 2>&1 | head -2`: notes and errors go to a pipe whose reader has gone.
    for args in [
        &["validate", "--job", "/nonexistent/job.yaml"][..],
        &["lab", "--job", "/nonexistent/job.yaml"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let status = Command::new(assert_cmd::cargo::cargo_bin("ghostlab"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(writer)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(141), "{args:?}");
    }
}

#[test]
fn a_closed_stdout_ends_big_outputs_with_141_and_no_panic() {
    for args in [
        &["schema", "--kind", "job"][..],
        &["schema", "--kind", "summary"],
        &["completions", "bash"],
        &["man"],
        &["validate", "--job", "/nonexistent/job.yaml"],
    ] {
        let (code, err) = with_reader_gone(args);
        // A command that fails before writing anything keeps its own status.
        let expected = if args[0] == "validate" { Some(2) } else { Some(141) };
        assert_eq!(code, expected, "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
    }
    // Read to the end, the same command exits 0.
    let out = Command::new(assert_cmd::cargo::cargo_bin("ghostlab"))
        .args(["schema", "--kind", "job"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!out.stdout.is_empty());
}
