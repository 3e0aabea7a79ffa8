//! The tool-usability critique: what the transcripts say about how usable the agent's tools
//! were (errors, refusals, retries, slow calls), plus discovery's contract findings and risk
//! labels when those files exist. Derived only from artifacts; it never calls a tool.

use serde_json::Value;
use std::collections::BTreeMap;

use super::decided::{decision_rows, marked_severity, standing_of};
use super::model::{Critique, Entry, Finding, ToolCall, ToolStats, TrialReport};
use crate::mcp::contract::decisions::{Decisions, DecisionsError};
use crate::redact::Redactor;

/// A tool call slower than this is reported as slow.
pub(crate) const SLOW_CALL_MS: u64 = 5_000;

/// Builds the critique from the trials, the optional discovery files and the people's
/// decisions on findings (`Err`: the decisions file could not be read; the report says so).
pub(crate) fn build_critique(
    trials: &[TrialReport],
    contract: Option<Value>,
    inventory: Option<Value>,
    decisions: Result<Decisions, DecisionsError>,
    verdict_findings: &[crate::judge::verdict_findings::VerdictFinding],
    r: &Redactor,
) -> Critique {
    let mut stats: BTreeMap<String, (ToolStats, u64)> = BTreeMap::new();
    let mut findings = Vec::new();
    for t in trials {
        findings.extend(trial_findings(t));
        let mut prev: Option<&ToolCall> = None;
        for e in &t.entries {
            let Entry::Tool(call) = e else {
                continue;
            };
            let (s, total) = stats.entry(call.tool.clone()).or_insert_with(|| {
                (
                    ToolStats {
                        tool: call.tool.clone(),
                        ..Default::default()
                    },
                    0,
                )
            });
            s.calls += 1;
            *total += call.latency_ms;
            s.max_ms = s.max_ms.max(call.latency_ms);
            match call.status.as_str() {
                "Error" => s.errors += 1,
                "DeniedByHost" => s.denied += 1,
                _ => {}
            }
            if prev.is_some_and(|p| call.repeats(p)) {
                s.retries += 1;
            }
            prev = Some(call);
        }
    }
    let tools = stats
        .into_values()
        .map(|(mut s, total)| {
            s.mean_ms = if s.calls == 0 { 0 } else { total / s.calls as u64 };
            s
        })
        .collect();
    let (decided, decisions_note) = match decisions {
        Ok(d) => (d, String::new()),
        Err(e) => (
            Decisions::default(),
            format!("; decisions not shown: {}", r.redact(&e.to_string())),
        ),
    };
    let (contract_findings, mut risk_labels, contract_note) = match &contract {
        Some(c) => (
            contract_of(c, inventory.as_ref(), &decided, r),
            labels_of(c, r),
            format!("from contract.json{decisions_note}"),
        ),
        None => (
            Vec::new(),
            Vec::new(),
            "contract.json not generated (run `ghostlab lint`)".to_string(),
        ),
    };
    if risk_labels.is_empty()
        && let Some(inv) = &inventory
    {
        risk_labels = hints_of(inv, r);
    }
    Critique {
        tools,
        findings,
        risk_labels,
        contract: contract_findings,
        contract_note,
        decisions: decision_rows(contract.as_ref(), inventory.as_ref(), verdict_findings, &decided, r),
    }
}

/// Findings of one trial, in transcript order.
pub(crate) fn trial_findings(t: &TrialReport) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut prev: Option<&ToolCall> = None;
    let at = |seq: u64| format!("{} · trial {} · e{seq}", t.case_id, t.trial);
    for e in &t.entries {
        match e {
            Entry::Tool(call) => {
                let first = call
                    .result
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(160)
                    .collect::<String>();
                if call.status == "Error" {
                    out.push(finding(
                        "error",
                        &call.tool,
                        format!("returned an error: {first}"),
                        at(call.seq),
                    ));
                }
                if call.status == "DeniedByHost" {
                    out.push(finding(
                        "warning",
                        &call.tool,
                        "was denied by the host's permissions; the agent tried a tool it may not use".into(),
                        at(call.seq),
                    ));
                }
                if prev.is_some_and(|p| call.repeats(p)) {
                    out.push(finding(
                        "warning",
                        &call.tool,
                        "was called again with the same arguments in the same turn (a retry: unclear result or error text?)".into(),
                        at(call.seq),
                    ));
                }
                if call.latency_ms > SLOW_CALL_MS {
                    out.push(finding(
                        "note",
                        &call.tool,
                        format!(
                            "took {:.1} s (slower than {} s)",
                            call.latency_ms as f64 / 1000.0,
                            SLOW_CALL_MS / 1000
                        ),
                        at(call.seq),
                    ));
                }
                prev = Some(call);
            }
            Entry::Note { seq, text, .. } if text.starts_with("the user refused") => {
                out.push(finding("note", "—", text.clone(), at(*seq)));
            }
            _ => {}
        }
    }
    out
}

fn finding(severity: &str, tool: &str, message: String, location: String) -> Finding {
    Finding {
        severity: severity.into(),
        tool: tool.into(),
        message,
        location,
    }
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).map(super::generated::scalar).unwrap_or_default()
}

fn contract_of(c: &Value, inventory: Option<&Value>, decisions: &Decisions, r: &Redactor) -> Vec<Finding> {
    c.get("findings")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|f| {
                    let server = text(f, "server");
                    let item = text(f, "item");
                    let tool = if item.is_empty() {
                        server.clone()
                    } else {
                        format!("{server}_{item}")
                    };
                    let code = text(f, "code");
                    let decided = standing_of(f, inventory, decisions);
                    Finding {
                        severity: r
                            .redact(&marked_severity(&text(f, "severity"), decided.as_ref()))
                            .into_owned(),
                        tool: r.redact(&tool).into_owned(),
                        message: r.redact(format!("{code} {}", text(f, "message")).trim()).into_owned(),
                        location: r.redact(&text(f, "pointer")).into_owned(),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `servers[].tools[].labels[].label` from contract.json.
fn labels_of(c: &Value, r: &Redactor) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in c.get("servers").and_then(Value::as_array).into_iter().flatten() {
        for t in s.get("tools").and_then(Value::as_array).into_iter().flatten() {
            let labels: Vec<String> = t
                .get("labels")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|l| {
                    l.get("label")
                        .map(super::generated::scalar)
                        .unwrap_or_else(|| super::generated::scalar(l))
                })
                .collect();
            let effect = text(t, "effect");
            let mut shown = labels.join(", ");
            if !effect.is_empty() {
                shown = if shown.is_empty() {
                    effect
                } else {
                    format!("{effect}: {shown}")
                };
            }
            let name = format!("{}_{}", text(s, "name"), text(t, "name"));
            out.push((r.redact(&name).into_owned(), r.redact(&shown).into_owned()));
        }
    }
    out
}

/// Annotation hints from inventory.json when no contract exists.
fn hints_of(inv: &Value, r: &Redactor) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in inv.get("servers").and_then(Value::as_array).into_iter().flatten() {
        for t in s.get("tools").and_then(Value::as_array).into_iter().flatten() {
            let mut hints = Vec::new();
            if let Some(a) = t.get("annotations").and_then(Value::as_object) {
                for (k, v) in a {
                    if v == &Value::Bool(true) {
                        hints.push(k.trim_end_matches("Hint").to_string());
                    }
                }
            }
            let shown = if hints.is_empty() {
                "no annotations (unlabelled)".to_string()
            } else {
                hints.join(", ")
            };
            let name = format!("{}_{}", text(s, "name"), text(t, "name"));
            out.push((r.redact(&name).into_owned(), r.redact(&shown).into_owned()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unusable_decisions_file_is_named_in_the_note_with_secrets_masked() {
        let mut r = Redactor::new();
        r.add_secret("sk-live-0123456789abcdef");
        let contract = serde_json::json!({"servers": []});
        let invalid = DecisionsError::Invalid {
            path: "/p/.ghostlab/decisions.json".into(),
            reason: "unknown field `sk-live-0123456789abcdef`".into(),
        };
        let c = build_critique(&[], Some(contract.clone()), None, Err(invalid), &[], &r);
        assert!(
            c.contract_note
                .starts_with("from contract.json; decisions not shown: /p/.ghostlab/decisions.json: "),
            "{}",
            c.contract_note
        );
        assert!(
            !c.contract_note.contains("sk-live-0123456789abcdef"),
            "{}",
            c.contract_note
        );
        let unwritable = DecisionsError::Write {
            path: "/p/d.json".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        let c = build_critique(&[], Some(contract.clone()), None, Err(unwritable), &[], &r);
        assert!(
            c.contract_note.contains("/p/d.json: cannot write"),
            "{}",
            c.contract_note
        );
        let c = build_critique(&[], Some(contract), None, Ok(Decisions::default()), &[], &r);
        assert_eq!(c.contract_note, "from contract.json");
    }
}
