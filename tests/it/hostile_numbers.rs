//! Numbers and commands that are not what they claim: NaN and infinities (which a YAML → JSON
//! conversion would quietly make "unset"), out-of-range sampling values, empty or NUL setup
//! commands, and `--repeat 0`. Each is refused with exit 2, the file and the key path.

use assert_cmd::Command;
use std::time::Duration;

const BASE: &str = "version: 1\nagent:\n  id: numbers\n";

fn validate(extra: &str) -> (Option<i32>, String) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("job.yaml"), format!("{BASE}{extra}")).unwrap();
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .current_dir(tmp.path())
        .args(["validate", "--job", "job.yaml"])
        .timeout(Duration::from_secs(10))
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

const AGENT: &str = "  runtime:\n    agents:\n      a:\n";

#[test]
fn non_finite_numbers_are_refused_with_their_key_path() {
    let cases: Vec<(String, &[&str])> = vec![
        (
            format!("{AGENT}        temperature: .nan\n"),
            &["agent.runtime.agents.a.temperature", "NaN"],
        ),
        (
            format!("{AGENT}        top_p: .inf\n"),
            &["agent.runtime.agents.a.top_p", "infinite"],
        ),
        (
            format!("{AGENT}        steps: -.inf\n"),
            &["agent.runtime.agents.a.steps", "infinite"],
        ),
        (
            "  runtime:\n    subagent_depth: .NaN\n".into(),
            &["agent.runtime.subagent_depth", "NaN"],
        ),
        ("sandbox:\n  cpu: .inf\n".into(), &["sandbox.cpu", "infinite"]),
        ("sandbox:\n  processes: .nan\n".into(), &["sandbox.processes", "NaN"]),
        ("sandbox:\n  timeout: -.Inf\n".into(), &["sandbox.timeout", "infinite"]),
        (
            "review:\n  gates:\n    min_pass_rate: .nan\n".into(),
            &["review.gates.min_pass_rate", "NaN"],
        ),
    ];
    for (yaml, expect) in &cases {
        let (code, stderr) = validate(yaml);
        assert_eq!(code, Some(2), "{yaml}\n{stderr}");
        assert!(stderr.contains("job.yaml"), "{stderr}");
        for e in *expect {
            assert!(stderr.contains(e), "missing `{e}` for\n{yaml}\n{stderr}");
        }
    }
}

#[test]
fn sampling_values_outside_their_range_are_refused_and_the_edges_accepted() {
    for (value, ok) in [("1.5", false), ("-0.1", false), ("1.0", true), ("0", true)] {
        let (code, stderr) = validate(&format!("{AGENT}        top_p: {value}\n"));
        let expect = if ok { Some(0) } else { Some(2) };
        assert_eq!(code, expect, "top_p {value}: {stderr}");
        if !ok {
            assert!(stderr.contains("agent.runtime.agents.a.top_p"), "{stderr}");
        }
    }
    let (code, stderr) = validate(&format!("{AGENT}        temperature: 2.5\n"));
    assert_eq!(code, Some(2), "{stderr}");
}

#[test]
fn empty_and_nul_setup_commands_are_refused_at_validate() {
    for (run, at) in [
        ("[\"\"]", "setup[0].run"),
        ("[\"  \", \"x\"]", "setup[0].run"),
        ("[\"echo\\0hi\"]", "setup[0].run[0]"),
        ("[\"sh\", \"-c\", \"true\\0\"]", "setup[0].run[2]"),
    ] {
        let (code, stderr) = validate(&format!("setup:\n  - name: s\n    run: {run}\n"));
        assert_eq!(code, Some(2), "{run}: {stderr}");
        assert!(stderr.contains(at), "missing `{at}` for {run}: {stderr}");
    }
}

#[test]
fn repeat_zero_is_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("job.yaml"), BASE).unwrap();
    // `--parallel 0` was taken as 1 without a word; it is refused like `--repeat 0`.
    for (cmd, flag, value) in [
        ("test", "--repeat", "0"),
        ("test", "--parallel", "0"),
        ("test", "--parallel", "100000"),
        ("lab", "--parallel", "0"),
    ] {
        let mut args = vec![cmd, "--job", "job.yaml", flag, value];
        if cmd == "lab" {
            args.push("--yes");
        }
        let out = Command::cargo_bin("ghostlab")
            .unwrap()
            .current_dir(tmp.path())
            .args(&args)
            .timeout(Duration::from_secs(10))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(flag), "{args:?}: {stderr}");
        assert!(
            !tmp.path().join(".ghostlab/runs").exists(),
            "no run folder for a refused command"
        );
    }
}

/// Words of serde, anyhow and Rust internals that must never reach a person at the terminal.
const INTERNAL_PHRASES: &[&str] = &[
    "untagged enum",
    "invalid type:",
    "unknown variant",
    "missing field",
    "expected struct",
    "Option<",
    "serde",
    "Caused by:",
    "panicked",
    "RUST_BACKTRACE",
];

#[test]
fn wrong_values_at_the_terminal_read_in_plain_words_with_their_key() {
    for (extra, key) in [
        ("  runtime:\n    backend: dockerish\n", "agent.runtime.backend"),
        ("  runtime:\n    temperature: warm\n", "agent.runtime.temperature"),
        ("  runtime:\n    tools: yes\n", "agent.runtime.tools"),
        ("sandbox:\n  network: sometimes\n", "sandbox.network"),
        ("sandbox:\n  processes: many\n", "sandbox.processes"),
        ("sandbox:\n  allow: github.com\n", "sandbox.allow"),
        (
            "review:\n  gates:\n    min_pass_rate: lots\n",
            "review.gates.min_pass_rate",
        ),
        ("generation:\n  judge: offline\n", "generation.judge"),
    ] {
        let (code, stderr) = validate(extra);
        assert_eq!(code, Some(2), "{extra}: {stderr}");
        assert!(stderr.contains("job.yaml") && stderr.contains(key), "{extra}: {stderr}");
        for phrase in INTERNAL_PHRASES {
            assert!(
                !stderr.contains(phrase),
                "{extra}: internal phrase {phrase:?} in {stderr}"
            );
        }
    }
}
