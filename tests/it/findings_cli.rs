//! `ghostlab findings list|accept|waive`: decisions beside the job, with reason, who and when,
//! refused for unknown ids, and expiring when the finding's evidence changes.

use assert_cmd::Command;
use std::path::Path;

fn ghostlab(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("ghostlab")
        .unwrap()
        .current_dir(dir)
        .env("GHOSTLAB_USER", "ana")
        .args(args)
        .output()
        .unwrap()
}

/// A job whose state folder holds the flawed fixture inventory and its contract.
fn job_with_contract() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("job.yaml"), "version: 1\nagent:\n  id: findings\n").unwrap();
    let state = d.path().join(".ghostlab");
    std::fs::create_dir_all(&state).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/inventory-flawed.json");
    std::fs::copy(&fixture, state.join("inventory.json")).unwrap();
    let out = ghostlab(
        d.path(),
        &[
            "lint",
            "--inventory",
            ".ghostlab/inventory.json",
            "--format",
            "json",
            "--out",
            ".ghostlab/contract.json",
        ],
    );
    assert!(state.join("contract.json").is_file(), "{out:?}");
    d
}

fn first_id(listing: &str) -> String {
    listing
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn a_waived_finding_is_stored_with_its_reason_and_shown_in_the_list() {
    let d = job_with_contract();
    let list = ghostlab(d.path(), &["findings", "list"]);
    assert_eq!(list.status.code(), Some(0), "{list:?}");
    let listing = String::from_utf8_lossy(&list.stdout).to_string();
    assert!(listing.contains("[open]"), "{listing}");
    let id = first_id(&listing);
    let waive = ghostlab(
        d.path(),
        &["findings", "waive", &id, "--reason", "the server is ours and read-only"],
    );
    assert_eq!(waive.status.code(), Some(0), "{waive:?}");
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("job.decisions.json")).unwrap()).unwrap();
    assert_eq!(stored["version"], 1);
    let decision = &stored["decisions"][0];
    assert_eq!(decision["finding"], id.as_str());
    assert_eq!(decision["decision"], "waived");
    assert_eq!(decision["who"], "ana");
    assert!(decision["when"].as_str().unwrap().starts_with("20"), "{decision}");
    let listing = String::from_utf8_lossy(&ghostlab(d.path(), &["findings", "list"]).stdout).to_string();
    assert!(
        listing
            .lines()
            .next()
            .unwrap()
            .contains("waived by ana (the server is ours and read-only)"),
        "{listing}"
    );
}

#[test]
fn unknown_ids_and_empty_reasons_write_nothing() {
    let d = job_with_contract();
    let id = first_id(&String::from_utf8_lossy(
        &ghostlab(d.path(), &["findings", "list"]).stdout,
    ));
    for args in [
        vec!["findings", "accept", id.as_str(), "GL999:nope", "--reason", "x"],
        vec!["findings", "accept", id.as_str(), "--reason", "  "],
    ] {
        let out = ghostlab(d.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(!d.path().join("job.decisions.json").exists(), "{args:?}");
    }
    // Without a contract the command says which command makes one.
    let bare = tempfile::tempdir().unwrap();
    std::fs::write(bare.path().join("job.yaml"), "version: 1\nagent:\n  id: bare\n").unwrap();
    let out = ghostlab(bare.path(), &["findings", "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("ghostlab discover"),
        "{out:?}"
    );
}

#[test]
fn a_decision_expires_when_the_server_changes_what_the_finding_rests_on() {
    let d = job_with_contract();
    let id = first_id(&String::from_utf8_lossy(
        &ghostlab(d.path(), &["findings", "list"]).stdout,
    ));
    ghostlab(d.path(), &["findings", "accept", &id, "--reason", "known"]);
    // Rewrite every description in the inventory: the evidence the decision covered is gone.
    let inv_path = d.path().join(".ghostlab/inventory.json");
    let mut inv: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&inv_path).unwrap()).unwrap();
    for server in inv["servers"].as_array_mut().unwrap() {
        for tool in server["tools"].as_array_mut().into_iter().flatten() {
            tool["description"] = serde_json::json!("Changed by the server's new release.");
        }
    }
    std::fs::write(&inv_path, serde_json::to_string(&inv).unwrap()).unwrap();
    let listing = String::from_utf8_lossy(&ghostlab(d.path(), &["findings", "list"]).stdout).to_string();
    let line = listing.lines().find(|l| l.starts_with(&id)).unwrap();
    assert!(line.contains("EXPIRED"), "{listing}");
}

/// The report of a run of `d`'s job (an empty run: the critique reads the job's state).
fn report_of(d: &Path) -> ghostlab::report::Report {
    let loaded = ghostlab::spec::load_job(&d.join("job.yaml")).unwrap();
    let run = d.join(".ghostlab/runs/r1");
    std::fs::create_dir_all(&run).unwrap();
    ghostlab::report::build_report(&loaded, &run).unwrap()
}

#[test]
fn the_report_shows_each_decision_with_who_when_why_and_whether_it_holds() {
    let d = job_with_contract();
    let listing = String::from_utf8_lossy(&ghostlab(d.path(), &["findings", "list"]).stdout).to_string();
    let ids: Vec<String> = listing
        .lines()
        .filter(|l| l.contains("  "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert!(ids.len() >= 2, "{listing}");
    let waived = ghostlab(
        d.path(),
        &[
            "findings",
            "waive",
            &ids[0],
            "--reason",
            "the server is ours & read-only",
        ],
    );
    assert_eq!(waived.status.code(), Some(0), "{waived:?}");
    ghostlab(
        d.path(),
        &["findings", "accept", &ids[1], "--reason", "risk taken <knowingly>"],
    );
    let report = report_of(d.path());
    let md = ghostlab::report::render_markdown(&report);
    assert!(md.contains("Decisions on findings"), "{md}");
    for needle in [
        &ids[0],
        &ids[1],
        "ana",
        "the server is ours & read-only",
        "in force",
        "· waived",
        "· accepted",
    ] {
        assert!(md.contains(needle), "markdown lacks {needle}:\n{md}");
    }
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert!(md.contains(&today), "when: {md}");
    let html = ghostlab::report::render_html(&report);
    assert!(html.contains("Decisions on findings"));
    assert!(
        html.contains("risk taken &lt;knowingly&gt;"),
        "escaped reason in the HTML"
    );
    assert!(!html.contains("<knowingly>"));
    let pdf = ghostlab::report::render_pdf(&report, &ghostlab::redact::Redactor::new()).unwrap();
    assert!(pdf.len() > 1000);
    // The server changes: both decisions show as expired, and the severity says so.
    let inv_path = d.path().join(".ghostlab/inventory.json");
    let mut inv: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&inv_path).unwrap()).unwrap();
    for server in inv["servers"].as_array_mut().unwrap() {
        for tool in server["tools"].as_array_mut().into_iter().flatten() {
            tool["description"] = serde_json::json!("Changed by the server's new release.");
        }
    }
    std::fs::write(&inv_path, serde_json::to_string(&inv).unwrap()).unwrap();
    let md = ghostlab::report::render_markdown(&report_of(d.path()));
    assert!(md.contains("EXPIRED"), "{md}");
    assert!(md.contains("(expired)"), "{md}");
}

#[test]
fn an_unreadable_decisions_file_is_named_in_the_report_not_skipped() {
    let d = job_with_contract();
    std::fs::write(d.path().join("job.decisions.json"), "{ not json").unwrap();
    let md = ghostlab::report::render_markdown(&report_of(d.path()));
    assert!(md.contains("decisions not shown"), "{md}");
    assert!(md.contains("job.decisions.json"), "{md}");
}

/// The lab records through the same code into the same file: `findings list` shows a decision
/// taken from the lab's executor, and the lab reads one taken by the CLI.
#[test]
fn the_lab_and_the_cli_share_one_decisions_store() {
    let d = job_with_contract();
    let job = d.path().join("job.yaml");
    let listing = String::from_utf8_lossy(&ghostlab(d.path(), &["findings", "list"]).stdout).to_string();
    let id = first_id(&listing);
    let rows = ghostlab::lab::decide_findings::decide(
        &job,
        &id,
        ghostlab::mcp::contract::decisions::Verdict::Waived,
        "decided in the lab",
    )
    .unwrap();
    let row = rows.iter().find(|r| r.id == id).unwrap();
    assert!(row.standing.starts_with("waived by ") && !row.counts, "{row:?}");
    let listing = String::from_utf8_lossy(&ghostlab(d.path(), &["findings", "list"]).stdout).to_string();
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with(&id) && l.contains("(decided in the lab)")),
        "{listing}"
    );
    // A blank reason or an unknown id from the lab writes nothing, like the CLI.
    let before = std::fs::read(d.path().join("job.decisions.json")).unwrap();
    for (finding, reason, said) in [
        (id.as_str(), "  ", "the reason must say why"),
        ("GL999:nope@000000", "why", "no finding `GL999:nope@000000`"),
    ] {
        let err = ghostlab::lab::decide_findings::decide(
            &job,
            finding,
            ghostlab::mcp::contract::decisions::Verdict::Accepted,
            reason,
        )
        .unwrap_err();
        assert!(
            matches!(err, ghostlab::lab::decide_findings::FindingsError::Decide(_)),
            "{err:?}"
        );
        assert!(err.to_string().contains(said), "{err}");
    }
    assert_eq!(std::fs::read(d.path().join("job.decisions.json")).unwrap(), before);
    // The CLI's decision shows in what the lab loads.
    ghostlab(d.path(), &["findings", "accept", &id, "--reason", "from the CLI"]);
    let rows = ghostlab::lab::decide_findings::load(&job).unwrap();
    assert!(rows.iter().any(|r| r.id == id && r.standing.contains("from the CLI")));
}
