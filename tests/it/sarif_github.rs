//! `ghostlab lint --format sarif` as GitHub code scanning takes it: valid under the OASIS SARIF
//! 2.1.0 schema, clean under Microsoft's SARIF Multitool `validate` with its GitHub rule set
//! (pinned in tools/npm), and under a check of GitHub's documented ingestion rules written
//! in tests/it/sarif_ingestion.rs (rules with fullDescription and help, numeric
//! security-severity on tagged security rules, regions, relative URIs under a declared base,
//! fingerprints, the upload limits).
//! Results point where each server is declared in the user's files, never at inventory.json.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    common::repo().join("tests/fixtures/mcp").join(name)
}

/// A git checkout holding a job in `agent/`: `notes` from a servers file whose name needs
/// percent-encoding, `broken` inline in job.yaml, `mirror` from a servers file outside the
/// checkout (allowed by `paths.outside_job`). The three servers of inventory-flawed.json.
fn checkout(base: &Path) -> PathBuf {
    let repo = base.join("repo");
    let agent = repo.join("agent");
    let outside = base.join("elsewhere");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(agent.join("config")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    for f in [
        agent.join("config/notes.mjs"),
        agent.join("broken.mjs"),
        outside.join("mirror.mjs"),
    ] {
        std::fs::write(f, "").unwrap();
    }
    std::fs::write(
        agent.join("config/mcp servers.json"),
        "{\n  // the team's servers\n  \"mcpServers\": {\n    \"notes-old\": { \"command\": \"node\", \"args\": [\"./notes.mjs\"] },\n    \"notes\": { \"command\": \"node\", \"args\": [\"./notes.mjs\"] }\n  }\n}\n",
    )
    .unwrap();
    std::fs::write(
        outside.join("mcp.json"),
        "{\"mcpServers\": {\"mirror\": {\"command\": \"node\", \"args\": [\"./mirror.mjs\"]}}}",
    )
    .unwrap();
    let job = format!(
        "version: 1\nagent:\n  id: sarif-demo\n  inputs:\n    mcps:\n      - config_ref: config/mcp servers.json\n        server: notes\n      - server: broken\n        command: [node, ./broken.mjs]\n      - config_ref: {}\n        server: mirror\npaths:\n  outside_job: [{}]\n",
        outside.join("mcp.json").display(),
        outside.display()
    );
    std::fs::write(agent.join("job.yaml"), job).unwrap();
    repo
}

/// Runs `ghostlab lint … --format sarif` in `dir`; the exit code, the SARIF (if written) and stderr.
fn sarif_lint(dir: &Path, inventory: &Path, extra: &[&str]) -> (Option<i32>, Option<Value>, String) {
    let out_file = dir.join("out dir/lint.sarif");
    let _ = std::fs::remove_file(&out_file);
    let out = common::ghostlab_in(dir, 60)
        .arg("lint")
        .arg("--inventory")
        .arg(inventory)
        .args(["--format", "sarif", "--out"])
        .arg(&out_file)
        .args(extra)
        .output()
        .unwrap();
    let sarif = std::fs::read_to_string(&out_file)
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    (
        out.status.code(),
        sarif,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub(crate) fn lint_checkout(base: &Path) -> Value {
    let repo = checkout(base);
    let (code, sarif, stderr) = sarif_lint(&repo, &fixture("inventory-flawed.json"), &["--job", "agent/job.yaml"]);
    assert_eq!(code, Some(1), "{stderr}");
    sarif.expect("the SARIF file")
}

#[test]
fn results_point_at_the_users_declarations_with_relative_uris() {
    let tmp = tempfile::tempdir().unwrap();
    let sarif = lint_checkout(tmp.path());
    let run = &sarif["runs"][0];
    let root = tmp.path().join("repo").canonicalize().unwrap();
    assert_eq!(
        run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        format!("file://{}/", root.display())
    );
    let place = |server: &str| -> (String, u64, u64) {
        let r = run["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["properties"]["server"] == server)
            .unwrap_or_else(|| panic!("no result for {server}"));
        let p = &r["locations"][0]["physicalLocation"];
        assert_eq!(p["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        (
            p["artifactLocation"]["uri"].as_str().unwrap().to_string(),
            p["region"]["startLine"].as_u64().unwrap(),
            p["region"]["startColumn"].as_u64().unwrap(),
        )
    };
    // `"notes"` on line 5 of the servers file (not `notes-old` on line 4).
    assert_eq!(place("notes"), ("agent/config/mcp%20servers.json".into(), 5, 5));
    // The inline server's `- server: broken` entry in job.yaml.
    assert_eq!(place("broken"), ("agent/job.yaml".into(), 8, 7));
    // A servers file outside the checkout: the job.yaml entry that references it.
    assert_eq!(place("mirror"), ("agent/job.yaml".into(), 10, 7));
    for r in run["results"].as_array().unwrap() {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(
            !uri.contains("inventory"),
            "a location names the generated inventory: {uri}"
        );
    }
}

#[test]
fn the_sarif_meets_githubs_ingestion_rules_and_the_oasis_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let sarif = lint_checkout(tmp.path());
    assert_eq!(
        crate::sarif_ingestion::github_ingestion_problems(&sarif),
        Vec::<String>::new()
    );
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(common::repo().join("schemas/sarif-schema-2.1.0.json")).unwrap())
            .unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    let poisoning = rules.iter().find(|r| r["id"] == "GL017").unwrap();
    assert_eq!(poisoning["properties"]["security-severity"], "9.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ruleId"] == "GL017" && r["level"] == "error"));
    for r in results {
        assert_eq!(rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"], r["ruleId"]);
    }
}

/// The Multitool's findings (errors and warnings) on `sarif`; `None` when it is not installed.
fn multitool(sarif: &Value) -> Option<Vec<String>> {
    let bin = common::pinned_tool("npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")?;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.sarif");
    let output = dir.path().join("validation.sarif");
    std::fs::write(&input, serde_json::to_string_pretty(sarif).unwrap()).unwrap();
    let out = std::process::Command::new(bin)
        .arg("validate")
        .arg(&input)
        .args(["--rule-kind", "Gh;Sarif", "--log", "ForceOverwrite", "--output"])
        .arg(&output)
        // .NET without ICU data on a minimal machine; no telemetry.
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .output()
        .unwrap();
    assert!(
        output.is_file(),
        "the Multitool wrote nothing: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    Some(
        log["runs"][0]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter(|r| matches!(r["level"].as_str(), Some("error" | "warning") | None))
            .map(|r| format!("{} {}", r["ruleId"].as_str().unwrap_or("?"), r["message"]))
            .collect(),
    )
}

#[test]
fn the_sarif_multitool_with_githubs_rules_finds_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let sarif = lint_checkout(tmp.path());
    let Some(findings) = multitool(&sarif) else { return };
    // SARIF2005 asks for `tool.driver.informationUri`, a page about the tool; Ghostlab has no
    // public home page to name, and GitHub does not need one. That rule alone is excused.
    let findings: Vec<String> = findings.into_iter().filter(|f| !f.starts_with("SARIF2005 ")).collect();
    assert_eq!(findings, Vec::<String>::new());
    // It does look: the same log without a rule's help is refused by the GitHub rules.
    let mut broken = sarif;
    broken["runs"][0]["tool"]["driver"]["rules"][0]
        .as_object_mut()
        .unwrap()
        .remove("help");
    let findings = multitool(&broken).unwrap();
    assert!(findings.iter().any(|f| f.starts_with("GH2012")), "{findings:?}");
}

/// The fingerprints of every result, in order.
fn fingerprints(sarif: &Value) -> Vec<(String, String)> {
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                r["partialFingerprints"]["ghostlabFinding/v1"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn uris_and_fingerprints_are_stable_across_checkouts_and_inventory_order() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = fingerprints(&lint_checkout(a.path()));
    // Another checkout folder, and the inventory's servers and tools in another order.
    let repo = checkout(b.path());
    let mut inventory: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("inventory-flawed.json")).unwrap()).unwrap();
    let servers = inventory["servers"].as_array_mut().unwrap();
    servers.reverse();
    for s in servers.iter_mut() {
        if let Some(tools) = s.get_mut("tools").and_then(Value::as_array_mut) {
            tools.reverse();
        }
    }
    let shuffled = b.path().join("inventory.json");
    std::fs::write(&shuffled, inventory.to_string()).unwrap();
    let (code, sarif, stderr) = sarif_lint(&repo, &shuffled, &["--job", "agent/job.yaml"]);
    assert_eq!(code, Some(1), "{stderr}");
    let mut second = fingerprints(&sarif.unwrap());
    let mut first_sorted = first.clone();
    first_sorted.sort();
    second.sort();
    assert_eq!(first_sorted, second);
    let unique: std::collections::BTreeSet<&String> = first.iter().map(|(_, f)| f).collect();
    assert!(
        unique.len() > 20,
        "distinct findings share fingerprints: {}",
        unique.len()
    );
}

#[test]
fn sarif_without_the_job_or_for_another_job_exits_2_naming_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = checkout(tmp.path());
    let (code, sarif, stderr) = sarif_lint(&repo, &fixture("inventory-flawed.json"), &[]);
    assert_eq!((code, sarif.is_none()), (Some(2), true), "{stderr}");
    assert!(stderr.contains("job.yaml") && stderr.contains("--job"), "{stderr}");
    // An inventory listing a server the job does not declare.
    let mut inventory: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("inventory-flawed.json")).unwrap()).unwrap();
    inventory["servers"][0]["name"] = "stranger".into();
    let other = tmp.path().join("other.json");
    std::fs::write(&other, inventory.to_string()).unwrap();
    let (code, _, stderr) = sarif_lint(&repo, &other, &["--job", "agent/job.yaml"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("other.json") && stderr.contains("`stranger`"),
        "{stderr}"
    );
}

/// Decisions in the job's `job.decisions.json` on the first two findings of `inventory`: the
/// first waived on its evidence now, the second accepted on evidence that has changed since.
fn decide_two(job_dir: &Path, inventory: &Path) -> (String, String) {
    use ghostlab::mcp::contract::decisions::{Decision, Decisions, Verdict, evidence_digest, finding_id, save};
    let text = std::fs::read_to_string(inventory).unwrap();
    let inv = ghostlab::mcp::inventory::Inventory::from_json(&text).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    let contract = ghostlab::mcp::contract::build_contract(&inv);
    let a = &contract.findings[0];
    let print = ghostlab::mcp::contract::sarif::fingerprint;
    let b = contract
        .findings
        .iter()
        .find(|f| finding_id(f) != finding_id(a) && print(f) != print(a))
        .unwrap();
    let decision = |id: String, decision, reason: &str, evidence| Decision {
        finding: id,
        decision,
        reason: reason.into(),
        who: "ana".into(),
        when: "2026-12-06T05:00:00Z".into(),
        evidence,
    };
    let decisions = Decisions {
        version: 1,
        decisions: vec![
            decision(
                finding_id(a),
                Verdict::Waived,
                "our own read-only server",
                evidence_digest(a, Some(&json)),
            ),
            decision(finding_id(b), Verdict::Accepted, "old evidence", "sha256:old".into()),
        ],
    };
    save(&job_dir.join("job.decisions.json"), &decisions).unwrap();
    (
        ghostlab::mcp::contract::sarif::fingerprint(a),
        ghostlab::mcp::contract::sarif::fingerprint(b),
    )
}

#[test]
fn decided_findings_carry_an_external_suppression_with_the_reason_and_stay_valid() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = checkout(tmp.path());
    let (waived, expired) = decide_two(&repo.join("agent"), &fixture("inventory-flawed.json"));
    let (code, sarif, stderr) = sarif_lint(&repo, &fixture("inventory-flawed.json"), &["--job", "agent/job.yaml"]);
    assert_eq!(code, Some(1), "{stderr}");
    let sarif = sarif.unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap().clone();
    let by_print = |p: &str| {
        results
            .iter()
            .find(|r| r["partialFingerprints"]["ghostlabFinding/v1"] == p)
            .unwrap()
            .clone()
    };
    let s = &by_print(&waived)["suppressions"];
    assert_eq!(s[0]["kind"], "external", "{s}");
    assert_eq!(s[0]["status"], "accepted");
    assert_eq!(s[0]["justification"], "our own read-only server");
    assert_eq!(s[0]["properties"]["decision"], "waived");
    // An expired decision suppresses nothing: the finding counts again.
    assert!(by_print(&expired).get("suppressions").is_none());
    let suppressed = results.iter().filter(|r| r.get("suppressions").is_some()).count();
    assert_eq!(suppressed, 1, "only the decided finding");
    // Still what GitHub and the schema take.
    assert_eq!(
        crate::sarif_ingestion::github_ingestion_problems(&sarif),
        Vec::<String>::new()
    );
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(common::repo().join("schemas/sarif-schema-2.1.0.json")).unwrap())
            .unwrap();
    let validator = jsonschema::draft4::new(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&sarif).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    if let Some(findings) = multitool(&sarif) {
        let findings: Vec<String> = findings.into_iter().filter(|f| !f.starts_with("SARIF2005 ")).collect();
        assert_eq!(findings, Vec::<String>::new());
    }
    // The schema checks suppressions: a kind SARIF does not know is refused.
    let mut bad = sarif.clone();
    for r in bad["runs"][0]["results"].as_array_mut().unwrap() {
        if let Some(s) = r.get_mut("suppressions") {
            s[0]["kind"] = "waived".into();
        }
    }
    assert!(validator.iter_errors(&bad).next().is_some());
}
