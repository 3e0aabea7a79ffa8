//! Section 2, the inferred purpose profile, as sections a reader scans: what the agent is for,
//! its workflows, its risk surface, what it declines and which inputs were read. Printed as a
//! YAML-like dump it took seven PDF pages of the example.
//!
//! agent-profile.json is read as loose JSON (another command owns its format): a field this
//! build does not know is kept as an outline under "Other fields", never dropped.

use serde_json::{Map, Value};
use std::path::Path;

use super::config::mask_secret_keys;
use super::generated::{outline, scalar};
use super::model::{MAX_TOOL_TEXT, truncate};
use super::profile_model::{ProfileRisk, ProfileSection, ProfileWorkflow};
use super::read::read_value;
use super::tables::Table;
use crate::redact::Redactor;

/// The profile's fields this section prints; any other top-level key goes to `other`.
const KNOWN: [&str; 7] = [
    "version",
    "purpose",
    "audience",
    "workflows",
    "risk_surface",
    "out_of_scope",
    "evidence",
];

/// One titled part of the section, already as a table.
pub(crate) struct ProfilePart {
    pub(crate) title: &'static str,
    pub(crate) table: Table,
}

/// The section's parts in reading order; empty parts are left out.
pub(crate) fn parts(p: &ProfileSection) -> Vec<ProfilePart> {
    let mut parts = vec![ProfilePart {
        title: "What it is for",
        table: table(&["Field", "Value"], pairs(&p.about)),
    }];
    let workflows = p.workflows.iter().map(|w| {
        let steps: Vec<String> = w
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{}. {s}", i + 1))
            .collect();
        vec![
            format!("{}\n{}", w.name, w.id),
            steps.join("\n"),
            w.uses.join(", "),
            w.sources.clone(),
        ]
    });
    push(
        &mut parts,
        "Workflows",
        &["Workflow", "Steps", "Uses", "From"],
        workflows.collect(),
    );
    let risks = p.risks.iter().map(|r| {
        vec![
            format!("{}\n{}", r.risk, r.id),
            r.severity.clone(),
            r.capability.clone(),
            r.why.clone(),
        ]
    });
    push(
        &mut parts,
        "Risk surface",
        &["Risk", "Severity", "Through", "Why"],
        risks.collect(),
    );
    let scope = p
        .out_of_scope
        .iter()
        .map(|[what, id, from]| vec![format!("{what}\n{id}"), from.clone()]);
    push(&mut parts, "Out of scope", &["Declines", "From"], scope.collect());
    push(&mut parts, "Inputs read", &["Input", "What was read"], pairs(&p.inputs));
    parts
}

fn table(headers: &[&str], rows: Vec<Vec<String>>) -> Table {
    Table {
        headers: headers.iter().map(|h| h.to_string()).collect(),
        rows,
    }
}

fn pairs(rows: &[(String, String)]) -> Vec<Vec<String>> {
    rows.iter().map(|(k, v)| vec![k.clone(), v.clone()]).collect()
}

fn push(parts: &mut Vec<ProfilePart>, title: &'static str, headers: &[&str], rows: Vec<Vec<String>>) {
    if !rows.is_empty() {
        parts.push(ProfilePart {
            title,
            table: table(headers, rows),
        });
    }
}

/// Section 2 from agent-profile.json, secrets masked and redacted; "not generated" without it.
pub(super) fn profile_section(path: &Path, r: &Redactor) -> ProfileSection {
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = ProfileSection {
        file,
        present: false,
        about: Vec::new(),
        workflows: Vec::new(),
        risks: Vec::new(),
        out_of_scope: Vec::new(),
        inputs: Vec::new(),
        other: Vec::new(),
    };
    let Some(mut v) = read_value(path) else {
        return out;
    };
    out.present = true;
    mask_secret_keys(&mut v);
    r.redact_value(&mut v);
    let Some(map) = v.as_object() else {
        // Not the shape this build knows: shown whole rather than dropped.
        outline(&v, 0, &mut out.other);
        return out;
    };
    let text = |v: &Value, k: &str| {
        v.get(k)
            .map(scalar)
            .map(|s| truncate(&s, MAX_TOOL_TEXT))
            .unwrap_or_default()
    };
    let list = |k: &str| map.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    let strings = |v: &Value, k: &str| -> Vec<String> {
        v.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(scalar).collect())
            .unwrap_or_default()
    };
    let evidence = map.get("evidence").cloned().unwrap_or(Value::Null);
    out.about = vec![
        ("Purpose".into(), text(&v, "purpose")),
        ("Audience".into(), text(&v, "audience")),
        ("Purpose from".into(), purpose_from(&evidence)),
    ];
    out.workflows = list("workflows")
        .iter()
        .map(|w| ProfileWorkflow {
            id: text(w, "id"),
            name: text(w, "name"),
            steps: strings(w, "steps"),
            uses: strings(w, "capabilities_used"),
            sources: sources(w),
        })
        .collect();
    out.risks = list("risk_surface")
        .iter()
        .map(|x| ProfileRisk {
            id: text(x, "id"),
            risk: text(x, "risk"),
            severity: text(x, "severity"),
            capability: text(x, "capability"),
            why: text(x, "why"),
        })
        .collect();
    let rank = |s: &str| match s {
        "high" => 0,
        "medium" => 1,
        "low" => 2,
        _ => 3,
    };
    out.risks.sort_by_key(|x| rank(&x.severity));
    out.out_of_scope = list("out_of_scope")
        .iter()
        .map(|x| [text(x, "what"), text(x, "id"), sources(x)])
        .collect();
    out.inputs = inputs(&evidence);
    let rest: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| !KNOWN.contains(&k.as_str()))
        .map(|(k, x)| (k.clone(), x.clone()))
        .collect();
    outline(&Value::Object(rest), 0, &mut out.other);
    out
}

/// `AGENTS.md § Rules; release.publish_release`: where an entry came from, each place once.
fn sources(v: &Value) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in v.get("evidence").and_then(Value::as_array).into_iter().flatten() {
        let source = e.get("source").map(scalar).unwrap_or_default();
        let place = match e.get("section").map(scalar) {
            Some(section) if section != "—" => format!("{source} § {section}"),
            _ => source,
        };
        if !place.is_empty() && !seen.contains(&place) {
            seen.push(place);
        }
    }
    seen.join("; ")
}

fn purpose_from(evidence: &Value) -> String {
    if evidence.get("from_description").and_then(Value::as_bool) == Some(true) {
        return "the user's own description (agent.description)".into();
    }
    let from = sources(&serde_json::json!({ "evidence": evidence.get("purpose").cloned().unwrap_or(Value::Null) }));
    if from.is_empty() { "not recorded".into() } else { from }
}

/// One line per kind of input the profile was built from.
fn inputs(evidence: &Value) -> Vec<(String, String)> {
    let items = |k: &str| evidence.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    let s = |v: &Value, k: &str| v.get(k).map(scalar).unwrap_or_default();
    let joined = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(scalar).collect::<Vec<_>>().join("; "))
            .unwrap_or_default()
    };
    let with = |head: String, detail: String| {
        if detail.is_empty() {
            head
        } else {
            format!("{head} ({detail})")
        }
    };
    let mut rows = Vec::new();
    let mut add = |kind: &str, lines: Vec<String>| {
        if !lines.is_empty() {
            rows.push((kind.to_string(), lines.join("\n")));
        }
    };
    add(
        "Instructions",
        items("instructions")
            .iter()
            .map(|i| with(s(i, "file"), joined(i, "headings")))
            .collect(),
    );
    add(
        "Skills",
        items("skills")
            .iter()
            .map(|i| with(s(i, "name"), joined(i, "sections")))
            .collect(),
    );
    add(
        "Agents",
        items("agents")
            .iter()
            .map(|i| {
                let prompt = i.get("prompt_file").map(scalar).unwrap_or_default();
                with(s(i, "name"), prompt)
            })
            .collect(),
    );
    // MCP tools grouped by server, in first-seen order.
    let mut servers: Vec<(String, Vec<String>)> = Vec::new();
    for t in items("mcp_tools") {
        let (server, tool) = (s(&t, "server"), s(&t, "tool"));
        match servers.iter_mut().find(|(name, _)| *name == server) {
            Some((_, tools)) => tools.push(tool),
            None => servers.push((server, vec![tool])),
        }
    }
    add(
        "MCP tools",
        servers
            .into_iter()
            .map(|(server, tools)| format!("{server} ({}): {}", tools.len(), tools.join(", ")))
            .collect(),
    );
    add(
        "Permissions",
        items("permissions")
            .iter()
            .map(|p| format!("{}: {}", s(p, "key"), s(p, "action")))
            .collect(),
    );
    if let Some(ws) = evidence.get("workspace").filter(|w| w.is_object()) {
        let title = ws.get("readme_title").map(|t| format!("; README: {}", scalar(t)));
        add(
            "Workspace",
            vec![format!(
                "{}: {}{}",
                s(ws, "path"),
                joined(ws, "layout").replace("; ", ", "),
                title.unwrap_or_default()
            )],
        );
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(json: Value) -> ProfileSection {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent-profile.json");
        std::fs::write(&path, json.to_string()).unwrap();
        profile_section(&path, &Redactor::new())
    }

    #[test]
    fn every_part_is_a_table_with_sources_and_risks_highest_first() {
        let s = section(serde_json::json!({
            "version": 1, "purpose": "Cuts releases", "audience": "maintainers",
            "workflows": [{"id": "wf-a", "name": "prepare", "steps": ["read", "check"],
                "capabilities_used": ["read", "ci"],
                "evidence": [{"kind": "instructions", "source": "AGENTS.md", "section": "Flow", "quote": "q"},
                             {"kind": "instructions", "source": "AGENTS.md", "section": "Flow", "quote": "q2"}]}],
            "risk_surface": [
                {"id": "risk-low", "risk": "small", "why": "w", "capability": "read", "severity": "low", "evidence": []},
                {"id": "risk-high", "risk": "big", "why": "w", "capability": "publish", "severity": "high", "evidence": []}],
            "out_of_scope": [{"id": "scope-x", "what": "weather", "evidence": [{"kind": "permission", "source": "p.webfetch", "quote": "deny"}]}],
            "evidence": {"from_description": true, "purpose": [], "audience": [],
                "instructions": [{"file": "AGENTS.md", "headings": ["Flow", "Rules"]}],
                "skills": [], "agents": [],
                "mcp_tools": [{"server": "rel", "tool": "a", "labels": [], "source": "inventory"},
                              {"server": "fs", "tool": "b", "labels": [], "source": "inventory"},
                              {"server": "rel", "tool": "c", "labels": [], "source": "inventory"}],
                "permissions": [{"key": "agent.runtime.permission.bash", "tool": "bash", "action": "ask"}]},
            "added_later": {"x": 1}
        }));
        assert!(s.present);
        let parts = parts(&s);
        let titles: Vec<&str> = parts.iter().map(|p| p.title).collect();
        assert_eq!(
            titles,
            [
                "What it is for",
                "Workflows",
                "Risk surface",
                "Out of scope",
                "Inputs read"
            ]
        );
        assert_eq!(parts[1].table.rows[0][1], "1. read\n2. check");
        assert_eq!(parts[1].table.rows[0][3], "AGENTS.md § Flow", "each place once");
        assert_eq!(parts[2].table.rows[0][0], "big\nrisk-high");
        assert_eq!(parts[2].table.rows[1][1], "low");
        assert_eq!(parts[3].table.rows[0], ["weather\nscope-x", "p.webfetch"]);
        let inputs = &parts[4].table.rows;
        assert_eq!(inputs[0], ["Instructions", "AGENTS.md (Flow; Rules)"]);
        assert_eq!(inputs[1], ["MCP tools", "rel (2): a, c\nfs (1): b"]);
        assert_eq!(inputs[2], ["Permissions", "agent.runtime.permission.bash: ask"]);
        assert_eq!(
            parts[0].table.rows[2][1],
            "the user's own description (agent.description)"
        );
        // A field this build does not know is shown, not dropped.
        assert_eq!(s.other, [(0, "added_later:".into()), (1, "x: 1".into())]);
    }

    #[test]
    fn a_missing_or_unknown_shaped_profile_is_said_not_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let s = profile_section(&dir.path().join("agent-profile.json"), &Redactor::new());
        assert!(!s.present && s.other.is_empty());
        let s = section(serde_json::json!(["a list", "not a profile"]));
        assert!(s.present);
        assert_eq!(s.other, [(0, "- a list".into()), (0, "- not a profile".into())]);
        // Empty parts are left out, the purpose table always stays.
        let s = section(serde_json::json!({"purpose": "p"}));
        assert_eq!(parts(&s).len(), 1);
        assert_eq!(parts(&s)[0].table.rows[2][1], "not recorded");
    }

    #[test]
    fn secrets_in_the_profile_are_masked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent-profile.json");
        std::fs::write(&path, r#"{"purpose": "uses hunter2-secret-value", "token": "abc"}"#).unwrap();
        let mut r = Redactor::new();
        r.add_secret("hunter2-secret-value");
        let s = profile_section(&path, &r);
        assert!(!s.about[0].1.contains("hunter2"), "{:?}", s.about);
        assert!(s.other.iter().all(|(_, l)| !l.contains("abc")), "{:?}", s.other);
    }
}
