//! Step 6's list of every discovered MCP tool with its risk labels and the permission it would
//! really get: OpenCode names an MCP tool `<server>_<tool>`, matches permission keys as
//! wildcards (`*` any text, `?` one character) and lets the last matching key decide; a tool
//! no key matches is allowed (OpenCode's default). Pure: the caller reads contract.json.

use indexmap::IndexMap;

use crate::mcp::contract::Contract;
use crate::mcp::contract::labels::RiskLabel;
use crate::spec::{Action, Job, PermissionRule};

/// What decides one tool's permission.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decided {
    /// A permission key matched; the last one wins.
    ByKey { key: String, action: Action },
    /// A key matched with per-argument patterns: it depends on the call.
    ByPatterns { key: String },
    /// No key matched.
    Default,
}

/// OpenCode's wildcard match of a whole permission key against a tool id.
pub(crate) fn wildcard_matches(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // Iterative matcher with backtracking to the last `*`: linear-ish, no recursion.
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// The permission `tool_id` gets from `map`.
pub fn decide(map: &IndexMap<String, PermissionRule>, tool_id: &str) -> Decided {
    match map.iter().rev().find(|(key, _)| wildcard_matches(key, tool_id)) {
        Some((key, PermissionRule::Action(action))) => Decided::ByKey {
            key: key.clone(),
            action: *action,
        },
        Some((key, PermissionRule::Patterns(_))) => Decided::ByPatterns { key: key.clone() },
        None => Decided::Default,
    }
}

fn action_word(a: Action) -> &'static str {
    match a {
        Action::Allow => "allow",
        Action::Ask => "ask",
        Action::Deny => "deny",
    }
}

fn label_word(l: RiskLabel) -> &'static str {
    match l {
        RiskLabel::ReadOnly => "read-only",
        RiskLabel::MutatesState => "mutates-state",
        RiskLabel::Destructive => "destructive",
        RiskLabel::CredentialBearing => "credential-bearing",
        RiskLabel::ExternalNetwork => "external-network",
        RiskLabel::UiProducing => "ui-producing",
    }
}

/// One line per discovered tool: id, labels, effective permission and what decided it; a
/// changing tool that runs without asking is marked. Tools come from the job's discovered
/// `capabilities`; labels from the contract when there is one.
pub(crate) fn tool_lines(
    job: &Job,
    map: &IndexMap<String, PermissionRule>,
    contract: Option<&Contract>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (server, caps) in &job.capabilities {
        for tool in &caps.tools {
            let id = format!("{server}_{tool}");
            let mut labels: Vec<RiskLabel> = contract
                .and_then(|c| c.tool(server, tool))
                .map(|t| t.labels.iter().map(|l| l.label).collect())
                .unwrap_or_default();
            labels.sort();
            labels.dedup();
            let risky = labels
                .iter()
                .any(|l| matches!(l, RiskLabel::Destructive | RiskLabel::MutatesState));
            let shown = match (contract.is_some(), labels.is_empty()) {
                (false, _) => "not linted".to_string(),
                (true, true) => "no label".to_string(),
                (true, false) => labels.iter().map(|l| label_word(*l)).collect::<Vec<_>>().join(", "),
            };
            let (effective, why, allowed) = match decide(map, &id) {
                Decided::ByKey { key, action } => (action_word(action), format!("by `{key}`"), action == Action::Allow),
                Decided::ByPatterns { key } => ("per call", format!("by the patterns of `{key}`"), false),
                Decided::Default => ("allow", "no key matches: OpenCode's default".to_string(), true),
            };
            let warn = if risky && allowed {
                "  ⚠ changes state without asking"
            } else {
                ""
            };
            out.push(format!("tool {id} [{shown}] → {effective} ({why}){warn}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: &[(&str, Action)]) -> IndexMap<String, PermissionRule> {
        entries
            .iter()
            .map(|(k, a)| (k.to_string(), PermissionRule::Action(*a)))
            .collect()
    }

    #[test]
    fn wildcards_match_whole_ids_like_opencode() {
        assert!(wildcard_matches("release_*", "release_publish"));
        assert!(wildcard_matches("*", ""));
        assert!(wildcard_matches("rel?ase_*sh", "release_publish"));
        assert!(wildcard_matches("*_publish", "release_publish"));
        assert!(
            !wildcard_matches("release", "release_publish"),
            "a key matches the whole id"
        );
        assert!(!wildcard_matches("release_?", "release_publish"));
        assert!(!wildcard_matches("*x*y", "release_publish"));
        assert!(wildcard_matches("**", "a"), "repeated stars");
    }

    #[test]
    fn the_last_matching_key_decides_and_no_match_is_allow() {
        let m = map(&[
            ("*", Action::Deny),
            ("release_*", Action::Ask),
            ("release_read_*", Action::Allow),
        ]);
        assert_eq!(
            decide(&m, "release_publish"),
            Decided::ByKey {
                key: "release_*".into(),
                action: Action::Ask
            }
        );
        assert_eq!(
            decide(&m, "release_read_notes"),
            Decided::ByKey {
                key: "release_read_*".into(),
                action: Action::Allow
            }
        );
        // Order matters: a broad key after a narrow one overrides it.
        let m = map(&[("release_read_*", Action::Allow), ("*", Action::Deny)]);
        assert!(matches!(
            decide(&m, "release_read_notes"),
            Decided::ByKey {
                action: Action::Deny,
                ..
            }
        ));
        assert_eq!(decide(&map(&[("bash", Action::Ask)]), "fs_write"), Decided::Default);
    }

    #[test]
    fn lines_flag_a_destructive_tool_that_runs_without_asking() {
        let mut job = Job::default();
        job.capabilities.insert(
            "fs".into(),
            crate::spec::job::Capabilities {
                tools: vec!["delete_file".into(), "read_file".into()],
                ..Default::default()
            },
        );
        let contract: Contract = serde_json::from_value(serde_json::json!({
            "version": 1, "generated_at": "", "findings": [],
            "summary": { "error": 0, "warning": 0, "note": 0, "info": 0 },
            "servers": [ { "name": "fs", "status": "ok", "tools": [
                { "name": "delete_file", "effect": "mutates-state", "labels": [
                    { "label": "destructive", "source": "heuristic", "evidence": "name word \"delete\"" },
                    { "label": "mutates-state", "source": "heuristic", "evidence": "name word \"delete\"" } ] },
                { "name": "read_file", "effect": "read-only", "labels": [
                    { "label": "read-only", "source": "heuristic", "evidence": "name word \"read\"" } ] } ] } ]
        }))
        .unwrap();
        let lines = tool_lines(&job, &map(&[("bash", Action::Ask)]), Some(&contract));
        assert_eq!(lines.len(), 2, "{lines:#?}");
        assert!(lines[0].starts_with("tool fs_delete_file [mutates-state, destructive] → allow (no key matches"));
        assert!(lines[0].ends_with("⚠ changes state without asking"), "{}", lines[0]);
        assert!(lines[1].starts_with("tool fs_read_file [read-only] → allow") && !lines[1].contains('⚠'));
        let asked = tool_lines(&job, &map(&[("fs_delete_*", Action::Ask)]), Some(&contract));
        assert!(
            asked[0].contains("→ ask (by `fs_delete_*`)") && !asked[0].contains('⚠'),
            "{}",
            asked[0]
        );
        let unlinted = tool_lines(&job, &IndexMap::new(), None);
        assert!(unlinted[0].contains("[not linted]"), "{}", unlinted[0]);
    }
}
