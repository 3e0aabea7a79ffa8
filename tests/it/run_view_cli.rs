//! `ghostlab view --json` over runs made by the real binary (a mock agent on the local backend,
//! the offline emulator and judge): the cases and verdicts it shows equal the run's verdict
//! files, filters narrow them, a rescored run opens too, and bad input exits 2. Its output
//! validates against schemas/view.schema.json and names the run's figures as summary.json does.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn ghostlab(dir: &Path) -> Command {
    common::ghostlab_in(dir, 180)
}

fn view_json(dir: &Path, args: &[&str]) -> Value {
    let out = ghostlab(dir).args(["view", "--json"]).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("view --json prints JSON")
}

/// Every trial's verdict in `run` as `case/trial → VERDICT`, from its verdict.json.
fn verdict_files(run: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for case in std::fs::read_dir(run.join("cases")).unwrap() {
        let case = case.unwrap().path();
        for t in std::fs::read_dir(&case).unwrap() {
            let v: Value =
                serde_json::from_str(&std::fs::read_to_string(t.unwrap().path().join("verdict.json")).unwrap())
                    .unwrap();
            out.push((
                format!("{}/{}", v["case"].as_str().unwrap(), v["trial"]),
                v["verdict"].as_str().unwrap().to_string(),
            ));
        }
    }
    out.sort();
    out
}

fn shown(v: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                format!("{}/{}", c["case_id"].as_str().unwrap(), c["trial"]),
                c["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn view_json_shows_the_verdicts_of_a_real_run_and_of_its_rescore() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["CI is green. Shall I tag 1.3.0?", "Done."]);
    let out = ghostlab(&dir)
        .args(["test", "--job", "job.yaml", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let run = common::newest_run(&dir);

    // The newest run of job.yaml by default.
    let all = view_json(&dir, &[]);
    let files = verdict_files(&run);
    assert!(!files.is_empty());
    assert_eq!(
        shown(&all),
        files,
        "view shows every trial with its verdict file's verdict"
    );
    results_say_what_summary_json_says(&all, &run, files.len());
    filters_narrow_the_trials(&dir, &all, &files);

    // A rescored run (its own folder) opens the same way, by path.
    let rescored = tmp.path().join("rescored");
    let out = ghostlab(&dir)
        .args(["rescore", "--job", "job.yaml", "--out"])
        .arg(&rescored)
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let again = view_json(&dir, &[rescored.to_str().unwrap()]);
    assert_eq!(shown(&again), verdict_files(&rescored));
    assert_eq!(common::schema_errors("view", &again), Vec::<String>::new());

    // Bad input exits 2: no such run, a folder that is not a run, no terminal without --json.
    for args in [
        &["view", "--json", "no-such-run"][..],
        &["view", "--json", "cases"],
        &["view"],
    ] {
        let out = ghostlab(&dir).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "), "{args:?}");
    }
}

/// The view's results of `run` (with `trials` trials): not ready, the same data under the
/// same names as summary.json, both valid against their schemas, a reason for every trial that
/// did not pass, and the report's path.
fn results_say_what_summary_json_says(all: &Value, run: &Path, trials: usize) {
    let results = &all["results"];
    assert_eq!(results["gates_met"], false);
    assert_eq!(results["readiness"]["label"], "NOT READY");
    assert_eq!(results["trials"].as_array().unwrap().len(), trials);
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    // One vocabulary: the same data under the same names as summary.json.
    assert_eq!(results["summary"], summary["summary"]);
    assert_eq!(results["gates"], summary["gates"]);
    assert!(results.get("counts").is_none() && all.get("cases").is_none());
    let case_ids: Vec<&Value> = summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["case_id"])
        .collect();
    for t in results["trials"]
        .as_array()
        .unwrap()
        .iter()
        .chain(all["trials"].as_array().unwrap())
    {
        assert!(case_ids.contains(&&t["case_id"]) && t.get("case").is_none(), "{t}");
    }
    assert_eq!(common::schema_errors("view", all), Vec::<String>::new());
    assert_eq!(common::schema_errors("summary", &summary), Vec::<String>::new());
    for t in results["trials"].as_array().unwrap() {
        if t["verdict"] != "PASS" {
            assert!(
                t["first_failure"]["criterion"].is_string(),
                "a trial that did not pass says why: {t}"
            );
        }
    }
    assert!(
        results["reports"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str().unwrap().ends_with("report.html"))
    );
}

/// Filters: a verdict that is there, one that is not, a persona, and a text.
fn filters_narrow_the_trials(dir: &Path, all: &Value, files: &[(String, String)]) {
    let (first_case, first_verdict) = files[0].clone();
    let flag = first_verdict.to_lowercase().replace('_', "-");
    let by_verdict = view_json(dir, &["--verdict", &flag]);
    assert_eq!(
        shown(&by_verdict),
        files
            .iter()
            .filter(|(_, v)| *v == first_verdict)
            .cloned()
            .collect::<Vec<_>>()
    );
    let persona = all["trials"][0]["persona"].as_str().unwrap().to_string();
    let by_persona = view_json(dir, &["--persona", &persona]);
    assert!(
        by_persona["trials"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["persona"] == persona.as_str())
    );
    assert!(!by_persona["trials"].as_array().unwrap().is_empty());
    let case_id = first_case.split('/').next().unwrap();
    let by_text = view_json(dir, &["--search", case_id]);
    assert!(shown(&by_text).iter().any(|(c, _)| c == &first_case));
    let nothing = view_json(dir, &["--search", "no-trial-mentions-this-xyzzy"]);
    assert_eq!(nothing["trials"].as_array().unwrap().len(), 0);
    assert_eq!(common::schema_errors("view", &nothing), Vec::<String>::new());
}
