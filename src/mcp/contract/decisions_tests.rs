//! Tests of `decisions`: ids, digests, expiry, the file's own errors.

use super::*;
use crate::mcp::contract::rules::Severity;
use serde_json::json;

fn finding(item: Option<&str>, message: &str) -> Finding {
    Finding {
        code: "GL020".into(),
        rule: "destructive-unannotated".into(),
        severity: Severity::Error,
        server: "release".into(),
        item: item.map(str::to_string),
        pointer: "/servers/0/tools/1".into(),
        message: message.into(),
    }
}

fn decided(f: &Finding, inventory: Option<&Value>) -> Decisions {
    Decisions {
        version: DECISIONS_VERSION,
        decisions: vec![Decision {
            finding: finding_id(f),
            decision: Verdict::Waived,
            reason: "publishing is gated by the release manager".into(),
            who: "ana".into(),
            when: "2026-12-04T10:00:00Z".into(),
            evidence: evidence_digest(f, inventory),
        }],
    }
}

#[test]
fn ids_name_code_server_and_item() {
    let id = finding_id(&finding(Some("publish_release"), "m"));
    assert!(
        id.starts_with("GL020:release/publish_release@") && id.len() == 36,
        "{id}"
    );
    assert!(finding_id(&finding(None, "m")).starts_with("GL020:release@"));
    // Two findings of one rule on one tool have two ids.
    assert_ne!(id, finding_id(&finding(Some("publish_release"), "other words")));
}

#[test]
fn a_decision_holds_while_the_evidence_is_the_same_and_expires_when_the_tool_changes() {
    let inv = json!({"servers": [{"tools": [{}, {"name": "publish_release", "description": "Publishes."}]}]});
    let f = finding(Some("publish_release"), "destructive tool without annotation");
    let d = decided(&f, Some(&inv));
    assert!(matches!(standing(&f, Some(&inv), &d), Standing::Decided(_)));
    assert!(!standing(&f, Some(&inv), &d).counts());
    // The tool's description changed on the server: the decision no longer covers it.
    let changed =
        json!({"servers": [{"tools": [{}, {"name": "publish_release", "description": "Publishes and deletes."}]}]});
    let s = standing(&f, Some(&changed), &d);
    assert!(matches!(s, Standing::Expired(_)) && s.counts(), "{s:?}");
    // Another wording of the finding, another item, or no decision at all: it counts.
    assert!(standing(&finding(Some("publish_release"), "other words"), Some(&inv), &d).counts());
    assert_eq!(
        standing(&finding(Some("push_tag"), "m"), Some(&inv), &d),
        Standing::Open
    );
    assert_eq!(standing(&f, Some(&inv), &Decisions::default()), Standing::Open);
}

#[test]
fn the_latest_decision_on_a_finding_wins() {
    let f = finding(Some("publish_release"), "m");
    let mut d = decided(&f, None);
    let mut later = d.decisions[0].clone();
    later.decision = Verdict::Accepted;
    later.evidence = "sha256:stale".into();
    d.decisions.push(later);
    assert!(matches!(standing(&f, None, &d), Standing::Expired(ref x) if x.decision == Verdict::Accepted));
}

#[test]
fn the_file_round_trips_and_its_faults_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.yaml");
    let path = decisions_path(&job);
    assert_eq!(path, dir.path().join("job.decisions.json"));
    assert_eq!(load(&path).unwrap(), Decisions::default());
    let d = decided(&finding(None, "m"), None);
    save(&path, &d).unwrap();
    assert_eq!(load(&path).unwrap(), d);
    for (text, want) in [
        ("{\"version\": 2, \"decisions\": []}", "format version 2"),
        ("{\"version\": 1, \"decisions\": [], \"extra\": 1}", "unknown field"),
        ("not json", "not a decisions file"),
    ] {
        std::fs::write(&path, text).unwrap();
        let e = load(&path).unwrap_err().to_string();
        assert!(e.contains("job.decisions.json") && e.contains(want), "{e}");
    }
    std::fs::remove_file(&path).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = load(&path).unwrap_err().to_string();
    assert!(e.contains("job.decisions.json"), "{e}");
}
