//! A bounded fuzzer over job.yaml and MCP servers files: proptest mutations of the valid
//! fixtures (tests/fixtures/valid, tests/fixtures/mcp, the release-bot example) go through the
//! library loaders in-process (fast) and, for a sample, through `ghostlab validate`. Every input
//! must load or fail with diagnostics — never panic, never take more than a second — and the
//! binary must exit 0 or 2.
//!
//! Bounded by `GHOSTLAB_FUZZ_CASES` (default 3000 per target) and `GHOSTLAB_FUZZ_SECONDS`
//! (default 45 per target), whichever comes first; CI runs it as part of the suite.

use crate::common;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Fragments that have broken parsers before: numbers at type limits and non-finite ones, deep
/// nesting, aliases, tags, odd scalars, control characters, paths into system folders,
/// `{file:}` references out of the project, token-shaped literals, duplicate JSON keys.
const HOSTILE: &[&str] = &[
    "99999999999999999999h",
    "18446744073709551616",
    "4294967296",
    "-1",
    "0s",
    "1e400",
    "NaN",
    ".inf",
    "-.inf",
    ".NaN",
    "1.5",
    "{file:/proc/self/environ}",
    "\"Do {file:../../../etc/shadow}\"",
    "{file:./x",
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
    "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "\"gh\": {}, \"gh\": {}",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -",
    "&a [1, 2]",
    "*a",
    "*undefined",
    "!!binary aGVsbG8=",
    "!!python/object:os.system",
    "? complex key",
    "{a: 1, a: 2}",
    "\"\\uD800\"",
    "\t",
    "\u{0}",
    "\u{feff}",
    "'unterminated",
    "\"unterminated",
    "|",
    ">-",
    "~",
    "/etc/shadow",
    "../../../../..",
    "/proc/self/mem",
    "/sandbox/../etc",
    "${}",
    "${A",
    "AWS=AKIAIOSFODNN7EXAMPLE",
    "<<: *a",
    "---",
    "...",
    "%YAML 1.2",
];

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace bytes `[at, at+len)` with a hostile fragment.
    Splice { at: usize, len: usize, hostile: usize },
    /// Replace the value after the first `: ` of a line with a hostile fragment.
    Value { line: usize, hostile: usize },
    /// Duplicate, delete or re-indent a line.
    Line { line: usize, op: u8 },
    /// Flip one byte.
    Byte { at: usize, byte: u8 },
    /// Truncate the text.
    Truncate { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0usize..8, 0..HOSTILE.len()).prop_map(|(at, len, hostile)| Mutation::Splice {
            at,
            len,
            hostile
        }),
        (any::<usize>(), 0..HOSTILE.len()).prop_map(|(line, hostile)| Mutation::Value { line, hostile }),
        (any::<usize>(), 0u8..4).prop_map(|(line, op)| Mutation::Line { line, op }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Byte { at, byte }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn apply(text: &[u8], m: &Mutation) -> Vec<u8> {
    let mut out = text.to_vec();
    match *m {
        Mutation::Splice { at, len, hostile } => {
            let at = at % (out.len() + 1);
            let end = (at + len).min(out.len());
            out.splice(at..end, HOSTILE[hostile].bytes());
            out
        }
        Mutation::Byte { at, byte } => {
            if !out.is_empty() {
                let at = at % out.len();
                out[at] = byte;
            }
            out
        }
        Mutation::Truncate { at } => {
            out.truncate(at % (out.len() + 1));
            out
        }
        Mutation::Value { line, hostile } => edit_line(text, line, |l| {
            if let Some(colon) = l.find(": ") {
                *l = format!("{}: {}", &l[..colon], HOSTILE[hostile]);
            }
        }),
        Mutation::Line { line, op } => {
            let text = String::from_utf8_lossy(text);
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            if lines.is_empty() {
                return out;
            }
            let i = line % lines.len();
            match op {
                0 => lines.insert(i, lines[i].clone()),
                1 => {
                    lines.remove(i);
                }
                2 => lines[i] = format!("  {}", lines[i]),
                _ => lines[i] = lines[i].trim_start().to_string(),
            }
            let mut out = lines.join("\n").into_bytes();
            out.push(b'\n');
            out
        }
    }
}

fn edit_line(text: &[u8], line: usize, edit: impl FnOnce(&mut String)) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return text.as_bytes().to_vec();
    }
    let i = line % lines.len();
    edit(&mut lines[i]);
    let mut out = lines.join("\n").into_bytes();
    out.push(b'\n');
    out
}

/// Runs `check` on mutated seeds until the case count or the time budget runs out.
fn fuzz(name: &str, seeds: Vec<Vec<u8>>, check: &dyn Fn(&[u8]) -> Result<(), TestCaseError>) {
    let cases = env_number("GHOSTLAB_FUZZ_CASES", 3000) as u32;
    let budget = Duration::from_secs(env_number("GHOSTLAB_FUZZ_SECONDS", 45));
    let started = Instant::now();
    let ran = std::cell::Cell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..seeds.len(), proptest::collection::vec(mutation(), 1..6));
    let result = runner.run(&strategy, |(seed, mutations)| {
        if started.elapsed() > budget {
            return Ok(());
        }
        ran.set(ran.get() + 1);
        let mut text = seeds[seed].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        check(&text)
    });
    eprintln!(
        "fuzz {name}: {} cases in {:.1} s",
        ran.get(),
        started.elapsed().as_secs_f64()
    );
    if let Err(e) = result {
        panic!("fuzz {name}: {e}");
    }
}

/// Calls `f`, failing the case on a panic or when it takes more than a second.
fn bounded<T>(what: &str, text: &[u8], f: impl FnOnce() -> T) -> Result<T, TestCaseError> {
    let started = Instant::now();
    let out = std::panic::catch_unwind(AssertUnwindSafe(f))
        .map_err(|_| TestCaseError::fail(format!("{what} panicked on:\n{}", String::from_utf8_lossy(text))))?;
    if started.elapsed() > Duration::from_secs(1) {
        return Err(TestCaseError::fail(format!(
            "{what} took {:?} on {} bytes",
            started.elapsed(),
            text.len()
        )));
    }
    Ok(out)
}

fn release_bot(dir: &Path) -> PathBuf {
    let d = dir.join("release-bot");
    common::copy_release_bot(&d);
    d
}

#[test]
fn fuzz_job_files_never_panic_hang_or_exit_other_than_0_or_2() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = release_bot(tmp.path());
    let seeds: Vec<Vec<u8>> = [
        root().join("tests/fixtures/valid/minimal.yaml"),
        root().join("tests/fixtures/valid/full.yaml"),
        dir.join("job.yaml"),
    ]
    .iter()
    .map(|p| std::fs::read(p).unwrap())
    .collect();
    let job = dir.join("fuzz-job.yaml");
    let bin = assert_cmd::cargo::cargo_bin("ghostlab");
    let through_binary = std::cell::Cell::new(0u32);
    fuzz("job.yaml", seeds, &|text| {
        std::fs::write(&job, text).unwrap();
        let loaded = bounded("load_job", text, || ghostlab::spec::load_job(&job))?;
        if let Err(e) = &loaded {
            prop_assert!(!e.diagnostics.is_empty(), "an error without diagnostics");
        }
        // Every 50th case through the binary: exit 0 or 2, never a panic or a hang.
        through_binary.set(through_binary.get() + 1);
        if through_binary.get() % 50 == 1 {
            let out = assert_cmd::Command::new(&bin)
                .args(["validate", "--job"])
                .arg(&job)
                .timeout(Duration::from_secs(10))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            prop_assert!(
                matches!(out.status.code(), Some(0 | 2)),
                "exit {:?}: {stderr}",
                out.status.code()
            );
            prop_assert!(!stderr.contains("panicked"), "{stderr}");
            prop_assert_eq!(
                out.status.code() == Some(0),
                loaded.is_ok(),
                "binary and library disagree"
            );
        }
        Ok(())
    });
}

#[test]
fn fuzz_mcp_servers_files_never_panic_or_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = release_bot(tmp.path());
    let mut seeds: Vec<Vec<u8>> = ["servers-claude.json", "servers-vscode.json", "servers-opencode.json"]
        .iter()
        .map(|f| std::fs::read(root().join("tests/fixtures/mcp").join(f)).unwrap())
        .collect();
    seeds.push(std::fs::read(dir.join("mcp.json")).unwrap());
    let file = dir.join("fuzz-mcp.json");
    fuzz("MCP servers file", seeds, &|text| {
        std::fs::write(&file, text).unwrap();
        let read = bounded("read_mcp_file", text, || ghostlab::spec::mcp_file::read_mcp_file(&file))?;
        if let Err(e) = &read {
            prop_assert!(!e.diagnostics.is_empty(), "an error without diagnostics");
        }
        Ok(())
    });
}
