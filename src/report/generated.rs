//! Section 3 from files other commands generate (personas.json, scenarios.json,
//! dataset.json), read as loose JSON so a format change there cannot break the
//! report; a missing file is shown as "not generated".

use serde_json::Value;
use std::path::Path;

use super::config::mask_secret_keys;
use super::model::*;
use super::read::read_value;
use crate::redact::Redactor;

/// Personas or scenarios from the generated file; else from the run's case.json files.
pub(super) fn items(path: &Path, key: &str, trials: &[TrialReport], r: &Redactor) -> ItemsSection {
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(mut v) = read_value(path) {
        mask_secret_keys(&mut v);
        r.redact_value(&mut v);
        let list = match v.get(key) {
            Some(Value::Array(a)) => a.clone(),
            _ => v.as_array().cloned().unwrap_or_default(),
        };
        return ItemsSection {
            source: file.clone(),
            file,
            items: list.iter().map(item_of).collect(),
            rejected: Vec::new(),
        };
    }
    let mut out: Vec<Item> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for t in trials {
        let (id, title, desc) = if key == "personas" {
            (t.persona.clone(), t.persona.clone(), String::new())
        } else {
            (t.scenario_id.clone(), t.scenario.clone(), t.goal.clone())
        };
        if !id.is_empty() && seen.insert(id.clone()) {
            out.push(Item {
                id,
                title,
                description: desc,
                why: format!("not generated: {file} is absent; taken from the run's case.json"),
                details: Vec::new(),
            });
        }
    }
    ItemsSection {
        source: format!("{file} not generated; listed from the run's case.json files"),
        file,
        items: out,
        rejected: Vec::new(),
    }
}

pub(super) fn dataset(path: &Path, r: &Redactor) -> DatasetSection {
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(mut v) = read_value(path) else {
        return DatasetSection {
            file,
            present: false,
            cases: Vec::new(),
        };
    };
    mask_secret_keys(&mut v);
    r.redact_value(&mut v);
    let list = match v.get("cases") {
        Some(Value::Array(a)) => a.clone(),
        _ => v.as_array().cloned().unwrap_or_default(),
    };
    let field = |c: &Value, k: &str| c.get(k).map(scalar).unwrap_or_default();
    DatasetSection {
        file,
        present: true,
        cases: list
            .iter()
            .map(|c| {
                [
                    field(c, "id"),
                    field(c, "persona"),
                    field(c, "scenario"),
                    field(c, "status"),
                    field(c, "note"),
                ]
            })
            .collect(),
    }
}

fn item_of(v: &Value) -> Item {
    let get = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| v.get(*k).filter(|x| !x.is_null()))
            .map(|x| match x {
                Value::Object(_) => {
                    let mut lines = Vec::new();
                    outline(x, 0, &mut lines);
                    lines.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join("; ")
                }
                other => scalar(other),
            })
            .unwrap_or_default()
    };
    let used = [
        "id",
        "name",
        "title",
        "summary",
        "goal",
        "description",
        "why",
        "rationale",
        "reason",
    ];
    let details = v
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| !used.contains(&k.as_str()))
                .map(|(k, x)| {
                    let text = match x {
                        Value::Object(_) | Value::Array(_)
                            if !x.as_array().is_some_and(|a| a.iter().all(|i| !i.is_object())) =>
                        {
                            serde_json::to_string(x).unwrap_or_default()
                        }
                        other => scalar(other),
                    };
                    (k.clone(), truncate(&text, MAX_TOOL_TEXT))
                })
                .collect()
        })
        .unwrap_or_default();
    Item {
        id: get(&["id"]),
        title: get(&["name", "title"]),
        description: get(&["summary", "goal", "description"]),
        why: {
            let w = match v.get("why").and_then(reason_of) {
                Some(reason) => reason,
                None => get(&["why", "rationale", "reason"]),
            };
            if w.is_empty() { "no reason recorded".into() } else { w }
        },
        details,
    }
}

/// A structured `why` (`{basis, id, reason}`) as its reason, with the basis and id it names
/// added unless the reason already says the id: `the main workflow (workflow w1)`.
fn reason_of(why: &Value) -> Option<String> {
    let reason = scalar(why.get("reason")?);
    let id = why.get("id").map(scalar).unwrap_or_default();
    if id.is_empty() || reason.contains(&id) {
        return Some(reason);
    }
    let basis = why.get("basis").map(scalar).unwrap_or_default();
    Some(format!("{reason} ({})", format!("{basis} {id}").trim()))
}

/// A readable outline of any JSON value: keys become lines, nested values indent.
pub(super) fn outline(value: &Value, depth: usize, out: &mut Vec<(usize, String)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match v {
                    Value::Object(_) | Value::Array(_) if !is_flat(v) => {
                        out.push((depth, format!("{k}:")));
                        outline(v, depth + 1, out);
                    }
                    _ => out.push((depth, format!("{k}: {}", scalar(v)))),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                if is_flat(item) {
                    out.push((depth, format!("- {}", scalar(item))));
                } else {
                    let mut inner = Vec::new();
                    outline(item, depth + 1, &mut inner);
                    if let Some(first) = inner.first_mut() {
                        first.0 = depth;
                        first.1 = format!("- {}", first.1);
                    }
                    out.extend(inner);
                }
            }
        }
        other => out.push((depth, scalar(other))),
    }
}

fn is_flat(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.iter().all(|x| !x.is_object() && !x.is_array()) && scalar(v).chars().count() < 160,
        Value::Object(m) => m.is_empty(),
        _ => true,
    }
}

/// A scalar (or a short array of scalars) as one line.
pub(super) fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        Value::Array(a) => a.iter().map(scalar).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_structured_why_reads_as_its_reason() {
        let it = item_of(&serde_json::json!({"id": "s", "why": {"basis": "risk", "id": "r1", "reason": "tags early"}}));
        assert_eq!(it.why, "tags early (risk r1)");
        let it =
            item_of(&serde_json::json!({"why": {"basis": "risk", "id": "r1", "reason": "Risk r1 from AGENTS.md"}}));
        assert_eq!(it.why, "Risk r1 from AGENTS.md", "the id is not said twice");
        // Without a reason the whole object is shown, never dropped.
        let it = item_of(&serde_json::json!({"why": {"basis": "risk", "id": "r1"}}));
        assert_eq!(it.why, "basis: risk; id: r1");
        let it = item_of(&serde_json::json!({"why": "plain"}));
        assert_eq!(it.why, "plain");
    }

    #[test]
    fn outline_indents_nested_values() {
        let mut out = Vec::new();
        outline(
            &serde_json::json!({"purpose": "p", "risks": [{"id": "r1", "why": "w"}], "tags": ["a", "b"]}),
            0,
            &mut out,
        );
        assert_eq!(
            out,
            vec![
                (0, "purpose: p".to_string()),
                (0, "risks:".into()),
                (1, "- id: r1".into()),
                (2, "why: w".into()),
                (0, "tags: a, b".into()),
            ]
        );
    }
}
