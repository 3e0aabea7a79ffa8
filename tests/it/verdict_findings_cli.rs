//! Decisions on verdict findings (the evidence policy's observations in a trial): listed with a
//! stable id by `ghostlab findings list`, accepted or waived with a reason, shown by
//! `view --json`, honoured by the gate `max_inconclusive_rate` only — the verdict stays
//! INCONCLUSIVE and is never counted as a pass — and expired when the evidence changes.

use crate::common;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = common::ghostlab_in(dir, 60)
        .env("GHOSTLAB_USER", "ana")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Makes trial 1 of the run's first case an INCONCLUSIVE whose only doubt is `files` added to
/// the workspace, which its scenario does not sanction. Returns the case id.
fn plant_observation(run_dir: &Path, files: &[&str]) -> String {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(run_dir.join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    let trial = cases[0].join("trial-1");
    let case_path = trial.join("case.json");
    let mut case = read(&case_path);
    case["scenario"]["expected"]["checks"] = json!({});
    std::fs::write(&case_path, case.to_string()).unwrap();
    let verdict_path = trial.join("verdict.json");
    let mut v = read(&verdict_path);
    let empty =
        json!({"added": [], "removed": [], "changed": [], "added_count": 0, "removed_count": 0, "changed_count": 0});
    let mut workspace = empty.clone();
    workspace["added"] = json!(files);
    workspace["added_count"] = json!(files.len());
    v["observed"] =
        json!({"files": {"workspace": workspace, "git_files": empty, "outside_writes": [], "outside_observed": []}});
    v["verdict"] = json!("INCONCLUSIVE");
    v["reasons"] = json!([format!(
        "observed {} file(s) added to the workspace ({}): no check settles it",
        files.len(),
        files.join(", ")
    )]);
    std::fs::write(&verdict_path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    case["id"].as_str().unwrap().to_string()
}

/// Merges `run_dir` into `out` (recomputing summary and gates with the job's decisions).
fn merged_summary(dir: &Path, run_dir: &Path, out: &str) -> Value {
    let out_dir = dir.join(out);
    let (code, _, err) = run(
        dir,
        &[
            "merge",
            "--job",
            "job.yaml",
            "--out",
            out_dir.to_str().unwrap(),
            run_dir.to_str().unwrap(),
        ],
    );
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
    read(&out_dir.join("summary.json"))
}

fn gate(summary: &Value, name: &str) -> Value {
    summary["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == name)
        .unwrap_or_else(|| panic!("no {name}: {summary:#}"))
        .clone()
}

/// A mock release-bot run whose one trial had a file added to its workspace: a verdict
/// finding with its id.
struct RunWithFinding {
    dir: PathBuf,
    run_dir: PathBuf,
    case: String,
    id: String,
}

fn run_with_a_verdict_finding(tmp: &Path) -> RunWithFinding {
    let dir = tmp.join("release-bot");
    common::mock_release_bot(&dir, &["CI is green. Draft notes for 1.3.0. Shall I proceed?", "Done."]);
    let (code, _, err) = run(&dir, &["test", "--job", "job.yaml", "--quiet"]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
    let run_dir = common::newest_run(&dir);
    let case = plant_observation(&run_dir, &["zz-notes.tmp"]);
    let id = format!("workspace-added:{case}");
    RunWithFinding { dir, run_dir, case, id }
}

#[test]
fn a_waived_verdict_finding_lowers_the_inconclusive_count_of_its_gate_but_never_the_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let RunWithFinding { dir, run_dir, case, id } = run_with_a_verdict_finding(tmp.path());

    let (code, listing, err) = run(&dir, &["findings", "list"]);
    assert_eq!(code, Some(0), "{err}");
    let line = listing
        .lines()
        .find(|l| l.starts_with(&id))
        .unwrap_or_else(|| panic!("{listing}"));
    assert!(
        line.contains("verdict") && line.contains("zz-notes.tmp") && line.contains("[open]"),
        "{line}"
    );

    let before = merged_summary(&dir, &run_dir, "m-open");
    let open_gate = gate(&before, "max_inconclusive_rate");
    assert!(
        !open_gate["actual"].as_str().unwrap().contains("left out"),
        "{open_gate}"
    );
    waive_with_its_evidence(&dir, &id);
    let after = merged_summary(&dir, &run_dir, "m-waived");
    verdicts_stay_the_gate_leaves_the_trial_out(&dir, &case, &before, &after);
    view_carries_the_finding_with_its_decision(&dir, &id);
    bare_run_lists_the_finding_with_standing_unknown(tmp.path(), &run_dir, &id);

    // The evidence changes (another file too): the decision expires and the trial counts again.
    plant_observation(&run_dir, &["zz-notes.tmp", "zz-run.sh"]);
    let (_, listing, _) = run(&dir, &["findings", "list"]);
    let line = listing.lines().find(|l| l.starts_with(&id)).unwrap();
    assert!(line.contains("EXPIRED"), "{line}");
    let expired = merged_summary(&dir, &run_dir, "m-expired");
    assert!(
        !gate(&expired, "max_inconclusive_rate")["actual"]
            .as_str()
            .unwrap()
            .contains("left out")
    );
}

/// `findings waive` stores the decision with the digest of the evidence it saw.
fn waive_with_its_evidence(dir: &Path, id: &str) {
    let (code, _, err) = run(
        dir,
        &[
            "findings",
            "waive",
            id,
            "--reason",
            "the agent's scratch notes are fine here",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let stored = read(&dir.join("job.decisions.json"));
    assert_eq!(stored["decisions"][0]["finding"], id);
    assert!(
        stored["decisions"][0]["evidence"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
}

/// The verdicts are what they were: same counts, the trial still INCONCLUSIVE, no new PASS;
/// the inconclusive gate leaves that one trial out, the pass-rate gate is unchanged.
fn verdicts_stay_the_gate_leaves_the_trial_out(dir: &Path, case: &str, before: &Value, after: &Value) {
    assert_eq!(after["summary"], before["summary"]);
    assert_eq!(
        read(&dir.join(format!("m-waived/cases/{case}/trial-1/verdict.json")))["verdict"],
        "INCONCLUSIVE"
    );
    let open_gate = gate(before, "max_inconclusive_rate");
    let waived_gate = gate(after, "max_inconclusive_rate");
    assert!(
        waived_gate["actual"]
            .as_str()
            .unwrap()
            .contains("1 INCONCLUSIVE trial(s) left out"),
        "{waived_gate}"
    );
    let trials = before["summary"]["trials"].as_f64().unwrap();
    let drop = open_gate["value"].as_f64().unwrap() - waived_gate["value"].as_f64().unwrap();
    assert!((drop - 1.0 / trials).abs() < 1e-9, "{open_gate} → {waived_gate}");
    assert_eq!(gate(after, "min_pass_rate"), gate(before, "min_pass_rate"));
}

/// view --json carries the finding with its decision.
fn view_carries_the_finding_with_its_decision(dir: &Path, id: &str) {
    let (code, out, err) = run(dir, &["view", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let view: Value = serde_json::from_str(&out).unwrap();
    let item = view["findings"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("{:#}", view["findings"]))
        .clone();
    assert_eq!(item["source"], "verdict");
    assert_eq!(item["standing"], "decided");
    assert_eq!(item["decision"]["reason"], "the agent's scratch notes are fine here");
    assert_eq!(item["decision"]["who"], "ana");
}

/// The run folder viewed without its job: the finding is listed, its standing unknown, and why.
fn bare_run_lists_the_finding_with_standing_unknown(elsewhere: &Path, run_dir: &Path, id: &str) {
    let (code, out, err) = run(elsewhere, &["view", "--json", run_dir.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let bare: Value = serde_json::from_str(&out).unwrap();
    assert!(bare["findings"]["decisions_file"].is_null(), "{:#}", bare["findings"]);
    assert!(bare["findings"]["notes"][0].as_str().unwrap().contains("--job"));
    let item = bare["findings"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap();
    assert_eq!(item["standing"], "unknown");
}

#[test]
fn verdict_ids_are_checked_against_the_run_and_a_job_without_contract_can_still_decide() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["Done."]);
    let (code, _, err) = run(&dir, &["test", "--job", "job.yaml", "--quiet"]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
    let run_dir = common::newest_run(&dir);
    let case = plant_observation(&run_dir, &["zz-notes.tmp"]);
    // The mock job has no contract.json: the run's findings are still listed, the contract's absence said.
    let (code, listing, err) = run(&dir, &["findings", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(listing.contains("ghostlab discover"), "{listing}");
    // An id of another case, or of the right case in another class, is refused: nothing written.
    for bad in ["workspace-added:no-such-case".to_string(), format!("tool-storm:{case}")] {
        let (code, _, err) = run(&dir, &["findings", "accept", &bad, "--reason", "x"]);
        assert_eq!(code, Some(2), "{bad}: {err}");
        assert!(err.contains(&bad), "{err}");
        assert!(!dir.join("job.decisions.json").exists());
    }
    // A run named that does not exist is an error, not an empty list.
    let (code, _, err) = run(&dir, &["findings", "list", "--run", "no-such-run"]);
    assert_eq!(code, Some(2), "{err}");
    let id = format!("workspace-added:{case}");
    let (code, _, err) = run(
        &dir,
        &[
            "findings",
            "accept",
            &id,
            "--run",
            run_dir.to_str().unwrap(),
            "--reason",
            "known",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn the_lab_results_screen_lists_and_decides_verdict_findings_like_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    let RunWithFinding { dir, id, .. } = run_with_a_verdict_finding(tmp.path());
    let job = dir.join("job.yaml");
    // No contract.json in this job: the run's findings are still listed and decidable.
    let rows = ghostlab::lab::decide_findings::load(&job).unwrap();
    let row = rows.iter().find(|r| r.id == id).unwrap_or_else(|| panic!("{rows:?}"));
    assert!(
        row.counts && row.standing == "open" && row.message.contains("zz-notes.tmp"),
        "{row:?}"
    );
    let rows = ghostlab::lab::decide_findings::decide(
        &job,
        &id,
        ghostlab::mcp::contract::decisions::Verdict::Waived,
        "scratch notes are fine",
    )
    .unwrap();
    let row = rows.iter().find(|r| r.id == id).unwrap();
    assert!(
        !row.counts && row.standing.contains("scratch notes are fine"),
        "{row:?}"
    );
    // The CLI sees the lab's decision.
    let (_, listing, _) = run(&dir, &["findings", "list"]);
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with(&id) && l.contains("scratch notes are fine")),
        "{listing}"
    );
}
