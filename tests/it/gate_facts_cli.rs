//! The contract gates and "some trial judged" read the same facts whichever command writes the
//! outcome (`test`, `merge`, `rescore`): findings in contract.json fail them everywhere, a
//! missing contract is not met with the reason, a contract.json that cannot be read (corrupt,
//! another version, a FIFO) stops the command with exit 2 naming it, and a run the offline
//! judge decided nothing in meets no gate.

use crate::common;

use std::path::{Path, PathBuf};

/// A mock release-bot with one stored run (offline judge) of `cases` (all when empty), and
/// that run's folder.
fn stored_run(tmp: &Path, cases: &[&str]) -> (PathBuf, PathBuf) {
    let dir = tmp.join("release-bot");
    common::mock_release_bot(&dir, &["CI is green. Draft notes for 1.3.0. Shall I proceed?", "Done."]);
    let mut args = vec!["test", "--job", "job.yaml", "--quiet"];
    for case in cases {
        args.extend(["--case", case]);
    }
    let out = run(&dir, &args);
    assert_eq!(out.0, Some(1), "{}", out.1);
    (dir.clone(), common::newest_run(&dir))
}

/// Runs ghostlab in `dir`: exit code and stderr.
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = common::ghostlab_in(dir, 60).args(args).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn gate(run: &Path, name: &str) -> serde_json::Value {
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    summary["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == name)
        .unwrap_or_else(|| panic!("no gate {name} in {summary:#}"))
        .clone()
}

/// A contract.json with `security` GL017 errors and `schema` GL001 errors.
fn write_contract(dir: &Path, security: usize, schema: usize) {
    let finding = |code: &str| {
        serde_json::json!({"code": code, "rule": "r", "severity": "error", "server": "release",
            "item": "t", "pointer": "/servers/0/tools/0", "message": "m"})
    };
    let mut findings: Vec<_> = (0..security).map(|_| finding("GL017")).collect();
    findings.extend((0..schema).map(|_| finding("GL001")));
    let contract = serde_json::json!({"version": 1, "generated_at": "2026-12-04T00:00:00Z", "servers": [],
        "findings": findings, "summary": {"error": security + schema, "warning": 0, "note": 0, "info": 0}});
    std::fs::write(dir.join(".ghostlab/contract.json"), contract.to_string()).unwrap();
}

/// Adds `no_tool_schema_errors` to the release-bot's gates (it sets `no_high_security_findings`).
fn gate_schema_errors_too(dir: &Path) {
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job).unwrap().replace(
        "no_high_security_findings: true",
        "no_high_security_findings: true\n    no_tool_schema_errors: true",
    );
    std::fs::write(job, text).unwrap();
}

/// `merge` of the run and `rescore` of it, into fresh folders; the two new run folders.
fn merge_and_rescore(dir: &Path, run_dir: &Path, tag: &str) -> [PathBuf; 2] {
    let merged = dir.join(format!("merged-{tag}"));
    let rescored = dir.join(format!("rescored-{tag}"));
    let src = run_dir.to_str().unwrap();
    for args in [
        vec!["merge", "--job", "job.yaml", "--out", merged.to_str().unwrap(), src],
        vec!["rescore", "--job", "job.yaml", "--out", rescored.to_str().unwrap(), src],
    ] {
        let (code, err) = run(dir, &args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
    }
    [merged, rescored]
}

#[test]
fn merge_and_rescore_read_the_contract_like_test_does() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, stored) = stored_run(tmp.path(), &[]);
    gate_schema_errors_too(&dir);

    // No contract: not met anywhere, with the reason (it used to read "0", met).
    for r in std::iter::once(stored.clone()).chain(merge_and_rescore(&dir, &stored, "none")) {
        let g = gate(&r, "no_high_security_findings");
        assert_eq!(g["met"], false, "{}: {g}", r.display());
        assert!(g["actual"].as_str().unwrap().contains("contract not linted"), "{g}");
    }
    for r in merge_and_rescore(&dir, &stored, "none2") {
        assert_eq!(gate(&r, "no_tool_schema_errors")["met"], false);
    }

    // High-security findings: merge and rescore count them (they used to pass empty facts).
    write_contract(&dir, 2, 0);
    for r in merge_and_rescore(&dir, &stored, "security") {
        let g = gate(&r, "no_high_security_findings");
        assert_eq!(
            (g["met"].clone(), g["actual"].clone()),
            (false.into(), "2".into()),
            "{g}"
        );
        assert_eq!(gate(&r, "no_tool_schema_errors")["met"], true);
    }

    // Schema errors alone fail only their gate.
    write_contract(&dir, 0, 3);
    for r in merge_and_rescore(&dir, &stored, "schema") {
        assert_eq!(gate(&r, "no_high_security_findings")["met"], true);
        let g = gate(&r, "no_tool_schema_errors");
        assert_eq!(
            (g["met"].clone(), g["actual"].clone()),
            (false.into(), "3".into()),
            "{g}"
        );
    }
}

/// Puts an unreadable contract.json in place.
type Make<'a> = Box<dyn Fn() + 'a>;

#[test]
fn an_unreadable_contract_stops_every_command_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, stored) = stored_run(tmp.path(), &[]);
    let contract = dir.join(".ghostlab/contract.json");
    let src = stored.to_str().unwrap().to_string();
    let cases: [(&str, Make, &str); 3] = [
        (
            "corrupt",
            Box::new(|| std::fs::write(&contract, "{ half a contract").unwrap()),
            "not a contract.json",
        ),
        (
            "newer",
            Box::new(|| std::fs::write(&contract, r#"{"version": 99, "findings": "?"}"#).unwrap()),
            "contract version 99",
        ),
        (
            "fifo",
            Box::new(|| {
                let _ = std::fs::remove_file(&contract);
                let c = std::ffi::CString::new(contract.to_str().unwrap()).unwrap();
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            }),
            "FIFO",
        ),
    ];
    for (what, make, says) in cases {
        make();
        let out_m = dir.join(format!("m-{what}"));
        let out_r = dir.join(format!("r-{what}"));
        for args in [
            vec!["test", "--job", "job.yaml", "--quiet"],
            vec!["merge", "--job", "job.yaml", "--out", out_m.to_str().unwrap(), &src],
            vec!["rescore", "--job", "job.yaml", "--out", out_r.to_str().unwrap(), &src],
        ] {
            let (code, err) = run(&dir, &args);
            assert_eq!(code, Some(2), "{what} {args:?}: {err}");
            assert!(
                err.contains("contract.json") && err.contains(says),
                "{what} {args:?}: {err}"
            );
        }
        assert!(!out_m.join("summary.json").exists() && !out_r.join("summary.json").exists());
    }
}

#[test]
fn a_run_the_offline_judge_decided_nothing_in_meets_no_gate() {
    let tmp = tempfile::tempdir().unwrap();
    // A case whose criteria need a judge (an off-topic request): offline it stays INCONCLUSIVE.
    let (dir, stored) = stored_run(tmp.path(), &["new-maintainer--scope-fetching-pages-web"]);
    assert_eq!(gate(&stored, "some trial judged")["met"], false, "as `test` wrote it");
    // Every other gate relaxed and the contract clean: only the judging is left to fail.
    write_contract(&dir, 0, 0);
    let job = dir.join("job.yaml");
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("min_pass_rate: 0.8", "min_pass_rate: 0.0")
        .replace("max_inconclusive_rate: 0.2", "max_inconclusive_rate: 1.0");
    std::fs::write(&job, text).unwrap();
    for r in merge_and_rescore(&dir, &stored, "relaxed") {
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(r.join("summary.json")).unwrap()).unwrap();
        assert_eq!(
            summary["summary"]["pass"].as_u64().unwrap() + summary["summary"]["fail"].as_u64().unwrap(),
            0
        );
        let judged = gate(&r, "some trial judged");
        assert_eq!(judged["met"], false, "{judged}");
        assert_eq!(summary["gates_met"], false);
        let others: Vec<_> = summary["gates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["gate"] != "some trial judged")
            .collect();
        assert!(others.iter().all(|g| g["met"] == true), "{others:?}");
    }
}

#[test]
fn waived_findings_leave_the_gates_until_their_evidence_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, stored) = stored_run(tmp.path(), &[]);
    // Two security findings with different words on one tool: two ids.
    let finding = |message: &str| {
        serde_json::json!({"code": "GL017", "rule": "r", "severity": "error", "server": "release",
            "item": "t", "pointer": "/servers/0/tools/0", "message": message})
    };
    let contract = serde_json::json!({"version": 1, "generated_at": "2026-12-04T00:00:00Z", "servers": [],
        "findings": [finding("hidden tag"), finding("points at ~/.ssh")],
        "summary": {"error": 2, "warning": 0, "note": 0, "info": 0}});
    std::fs::write(dir.join(".ghostlab/contract.json"), contract.to_string()).unwrap();
    let ids: Vec<String> = String::from_utf8_lossy(
        &common::ghostlab_in(&dir, 60)
            .args(["findings", "list"])
            .output()
            .unwrap()
            .stdout,
    )
    .lines()
    .filter(|l| l.starts_with("GL017"))
    .map(|l| l.split_whitespace().next().unwrap().to_string())
    .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    // One waived: one still counts, in merge and in rescore.
    let (code, err) = run(&dir, &["findings", "waive", &ids[0], "--reason", "our own test server"]);
    assert_eq!(code, Some(0), "{err}");
    for r in merge_and_rescore(&dir, &stored, "one-waived") {
        assert_eq!(gate(&r, "no_high_security_findings")["actual"], "1");
    }
    // Both decided: the gate is met (the run still fails on its pass rate).
    let (code, err) = run(
        &dir,
        &["findings", "accept", &ids[1], "--reason", "risk taken, reviewed"],
    );
    assert_eq!(code, Some(0), "{err}");
    for r in merge_and_rescore(&dir, &stored, "both") {
        let g = gate(&r, "no_high_security_findings");
        assert_eq!(
            (g["met"].clone(), g["actual"].clone()),
            (true.into(), "0".into()),
            "{g}"
        );
    }
    // The server changed the tool the findings point at: both decisions expire.
    std::fs::write(
        dir.join(".ghostlab/inventory.json"),
        r#"{"servers": [{"tools": [{"name": "t", "description": "new words"}]}]}"#,
    )
    .unwrap();
    for r in merge_and_rescore(&dir, &stored, "expired") {
        assert_eq!(gate(&r, "no_high_security_findings")["actual"], "2");
    }
}
