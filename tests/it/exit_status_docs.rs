//! EXIT STATUS: `--help` and the man page list every exit code the code defines (one table,
//! `cli::EXIT_CODES`), and no command picks a numeric exit code outside that table.

use crate::common;

fn ghostlab_out(args: &[&str]) -> String {
    let out = common::ghostlab_in(&common::repo(), 30).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn help_and_man_page_list_every_exit_code() {
    let help = ghostlab_out(&["--help"]);
    let man = ghostlab_out(&["man"]);
    assert!(help.contains("Exit status:"), "{help}");
    assert!(man.contains(".SH \"EXIT STATUS\""), "{man}");
    assert!(
        !man.contains(".SH EXTRA"),
        "the table is not repeated as a generic section"
    );
    for (code, meaning) in ghostlab::cli::EXIT_CODES {
        // clap wraps long lines to the terminal's width: compare words, not line breaks.
        let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat(&help).contains(&flat(&format!("{code} {meaning}"))),
            "--help lacks {code}: {help}"
        );
        assert!(man.contains(&format!(".TP\n\\fB{code}\\fR\n")), "man lacks {code}");
        let first_words: String = meaning.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
        assert!(man.contains(&first_words), "man lacks the meaning of {code}");
    }
    let dir = tempfile::tempdir().unwrap();
    ghostlab_out(&["man", "--out", dir.path().to_str().unwrap()]);
    let page = std::fs::read_to_string(dir.path().join("ghostlab.1")).unwrap();
    assert_eq!(page, man, "man --out writes the same top page");
}

#[test]
fn every_numeric_exit_code_comes_from_the_table() {
    let codes: Vec<u8> = ghostlab::cli::EXIT_CODES.iter().map(|(c, _)| *c).collect();
    assert!(codes.windows(2).all(|w| w[0] < w[1]), "one entry per code: {codes:?}");
    for entry in walkdir::WalkDir::new(common::repo().join("src")) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some(at) = line.find("ExitCode::from(") {
                let arg = &line[at + "ExitCode::from(".len()..];
                assert!(
                    !arg.starts_with(|c: char| c.is_ascii_digit()),
                    "{}:{}: a literal exit code; name it in cli::exit::EXIT_CODES",
                    entry.path().display(),
                    i + 1
                );
            }
        }
    }
}

/// The exit status is chosen in one place, `cli/exit.rs`: no other file builds an `ExitCode` or
/// ends the process with a number of its own.
#[test]
fn exit_codes_are_built_only_by_the_one_mapping() {
    // The sandbox's signal handler ends the process as the signal would have (128 + signal),
    // the shell's convention, not a Ghostlab verdict.
    const SIGNAL_DEATH: &str = "sandbox/session_sweep.rs";
    let src = common::repo().join("src");
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("cli/exit.rs") || path.ends_with(SIGNAL_DEATH) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if [
                "ExitCode::from(",
                "process::exit(",
                "ExitCode::SUCCESS",
                "ExitCode::FAILURE",
            ]
            .iter()
            .any(|p| code.contains(p))
            {
                found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "exit codes built outside cli/exit.rs:\n{}",
        found.join("\n")
    );
}
