//! What people decided on findings (contract and verdict) (`<job>.decisions.json`), for the report:
//! each decided finding's verdict, who, when and why, and whether the decision is in force or
//! expired because the finding's evidence changed since. The same standing gates use
//! (`mcp::contract::decisions::standing`), so the report and the gates never disagree.

use serde_json::Value;

use super::model::DecisionRow;
use crate::judge::verdict_findings::{VerdictFinding, standing as verdict_standing};
use crate::mcp::contract::Finding;
use crate::mcp::contract::decide::verdict_word;
use crate::mcp::contract::decisions::{Decisions, Standing, finding_id, standing};
use crate::redact::Redactor;

/// The standing of one contract.json finding (`None`: not a finding this build reads).
pub(crate) fn standing_of(f: &Value, inventory: Option<&Value>, decisions: &Decisions) -> Option<Standing> {
    let f: Finding = serde_json::from_value(f.clone()).ok()?;
    Some(standing(&f, inventory, decisions))
}

/// A contract finding's severity with what was decided on it: `warning · waived`.
pub(crate) fn marked_severity(severity: &str, s: Option<&Standing>) -> String {
    match s {
        Some(Standing::Decided(d)) => format!("{severity} · {}", verdict_word(d.decision)),
        Some(Standing::Expired(d)) => format!("{severity} · {} (expired)", verdict_word(d.decision)),
        _ => severity.to_string(),
    }
}

/// Whether `id` names a contract finding (`GL020:release/publish@1a2b3c`) rather than a
/// verdict finding (`workspace-added:p1-s2`).
fn is_contract_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() > 6 && b.starts_with(b"GL") && b[2..5].iter().all(u8::is_ascii_digit) && b[5] == b':'
}

/// One row per decided finding (its latest decision), in the order decisions were taken: a
/// contract finding's standing from the contract, a verdict finding's from this run's trials
/// (`verdict`, `run::run_findings`).
pub(crate) fn decision_rows(
    contract: Option<&Value>,
    inventory: Option<&Value>,
    verdict: &[VerdictFinding],
    decisions: &Decisions,
    r: &Redactor,
) -> Vec<DecisionRow> {
    let findings: Vec<Finding> = contract
        .and_then(|c| c.get("findings"))
        .and_then(|f| serde_json::from_value(f.clone()).ok())
        .unwrap_or_default();
    let mut rows: Vec<DecisionRow> = Vec::new();
    for (i, d) in decisions.decisions.iter().enumerate() {
        let later = decisions.decisions[i + 1..].iter().any(|x| x.finding == d.finding);
        if later {
            continue;
        }
        let state = match findings.iter().find(|f| finding_id(f) == d.finding) {
            Some(f) => match standing(f, inventory, decisions) {
                Standing::Decided(_) => "in force: not counted by the gates".to_string(),
                _ => "EXPIRED: the finding's evidence changed; it counts again".to_string(),
            },
            None => match verdict
                .iter()
                .filter(|f| f.id == d.finding)
                .map(|f| verdict_standing(f, decisions))
                .reduce(
                    // One trial whose evidence still matches keeps the decision in force for it.
                    |a, b| if matches!(a, Standing::Decided(_)) { a } else { b },
                ) {
                Some(Standing::Decided(_)) => {
                    "in force: this run's trials show the decided evidence; the verdict is unchanged".to_string()
                }
                Some(_) => "EXPIRED: this run's evidence for the finding differs; it counts again".to_string(),
                None if !is_contract_id(&d.finding) => "the verdict finding does not occur in this run".to_string(),
                None => "the finding is no longer in the contract".to_string(),
            },
        };
        let red = |s: &str| r.redact(s).into_owned();
        rows.push(DecisionRow {
            finding: red(&d.finding),
            decision: verdict_word(d.decision).to_string(),
            who: red(&d.who),
            when: red(&d.when),
            reason: red(&d.reason),
            state,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::contract::decisions::{Decision, Verdict, evidence_digest};

    fn finding(message: &str) -> Value {
        serde_json::json!({
            "code": "GL020", "rule": "destructive-unconfirmed", "severity": "warning", "server": "release", "item": "publish",
            "message": message, "pointer": "/servers/0/tools/0"
        })
    }

    #[test]
    fn latest_decision_per_finding_with_its_state() {
        let kept = finding("destructive without a confirmation");
        let changed = finding("another one");
        let parsed: Finding = serde_json::from_value(kept.clone()).unwrap();
        let other: Finding = serde_json::from_value(changed.clone()).unwrap();
        let decision = |f: &Finding, v, why: &str, evidence: String| Decision {
            finding: finding_id(f),
            decision: v,
            reason: why.into(),
            who: "ana".into(),
            when: "2026-12-06T02:00:00Z".into(),
            evidence,
        };
        let decisions = Decisions {
            version: 1,
            decisions: vec![
                decision(
                    &parsed,
                    Verdict::Accepted,
                    "first thought",
                    evidence_digest(&parsed, None),
                ),
                decision(
                    &parsed,
                    Verdict::Waived,
                    "ours, read-only",
                    evidence_digest(&parsed, None),
                ),
                decision(&other, Verdict::Accepted, "old evidence", "sha256:old".into()),
                Decision {
                    finding: "GL001:gone@000000".into(),
                    ..decision(&parsed, Verdict::Waived, "gone", String::new())
                },
            ],
        };
        let contract = serde_json::json!({ "findings": [kept, changed] });
        let rows = decision_rows(Some(&contract), None, &[], &decisions, &Redactor::new());
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!(
            (rows[0].decision.as_str(), rows[0].reason.as_str()),
            ("waived", "ours, read-only")
        );
        assert!(rows[0].state.starts_with("in force"));
        assert!(rows[1].state.starts_with("EXPIRED"));
        assert!(rows[2].state.contains("no longer"));
        let s = standing_of(&contract["findings"][0], None, &decisions);
        assert_eq!(marked_severity("warning", s.as_ref()), "warning · waived");
        // Verdict findings: in force where this run shows the decided evidence, EXPIRED where it
        // shows other evidence, and said to be absent where the run does not show it.
        let vf = |id: &str, evidence: &str| VerdictFinding {
            id: id.into(),
            case: "p1-s2".into(),
            trial: 1,
            kind: "workspace-added".into(),
            what: "zz-notes.tmp added".into(),
            evidence: evidence.into(),
        };
        let on_verdicts = Decisions {
            version: 1,
            decisions: [
                "workspace-added:p1-s2",
                "tool-storm:p1-s2",
                "network-attempt:p9-s9@3f9a1c",
            ]
            .iter()
            .map(|id| Decision {
                finding: id.to_string(),
                evidence: "sha256:seen".into(),
                ..decision(&parsed, Verdict::Waived, "fine here", String::new())
            })
            .collect(),
        };
        let run = [
            vf("workspace-added:p1-s2", "sha256:seen"),
            vf("tool-storm:p1-s2", "sha256:other"),
        ];
        let rows = decision_rows(None, None, &run, &on_verdicts, &Redactor::new());
        assert!(rows[0].state.starts_with("in force"), "{:?}", rows[0]);
        assert!(rows[1].state.starts_with("EXPIRED"), "{:?}", rows[1]);
        assert!(rows[2].state.contains("does not occur in this run"), "{:?}", rows[2]);
        let s = standing_of(&contract["findings"][1], None, &decisions);
        assert_eq!(marked_severity("warning", s.as_ref()), "warning · accepted (expired)");
    }
}
