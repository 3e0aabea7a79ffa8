//! What people decided on the contract's findings (`<job>.decisions.json`), for the report:
//! each decided finding's verdict, who, when and why, and whether the decision is in force or
//! expired because the finding's evidence changed since. The same standing gates use
//! (`mcp::contract::decisions::standing`), so the report and the gates never disagree.

use serde_json::Value;

use super::model::DecisionRow;
use crate::mcp::contract::Finding;
use crate::mcp::contract::decide::verdict_word;
use crate::mcp::contract::decisions::{Decisions, Standing, finding_id, standing};
use crate::redact::Redactor;

/// The standing of one contract.json finding (`None`: not a finding this build reads).
pub fn standing_of(f: &Value, inventory: Option<&Value>, decisions: &Decisions) -> Option<Standing> {
    let f: Finding = serde_json::from_value(f.clone()).ok()?;
    Some(standing(&f, inventory, decisions))
}

/// A contract finding's severity with what was decided on it: `warning · waived`.
pub fn marked_severity(severity: &str, s: Option<&Standing>) -> String {
    match s {
        Some(Standing::Decided(d)) => format!("{severity} · {}", verdict_word(d.decision)),
        Some(Standing::Expired(d)) => format!("{severity} · {} (expired)", verdict_word(d.decision)),
        _ => severity.to_string(),
    }
}

/// One row per decided finding (its latest decision), in the order decisions were taken.
pub fn decision_rows(
    contract: Option<&Value>,
    inventory: Option<&Value>,
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
            None => "the finding is no longer in the contract".to_string(),
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
        let rows = decision_rows(Some(&contract), None, &decisions, &Redactor::new());
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
        let s = standing_of(&contract["findings"][1], None, &decisions);
        assert_eq!(marked_severity("warning", s.as_ref()), "warning · accepted (expired)");
    }
}
