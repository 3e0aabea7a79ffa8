//! The per-trial "observed by the harness" rows: the facts verdict.json records independent of
//! any model (workspace diff, git refs, writes outside the workspace, network attempts, tool
//! calls, output, secrets), one short line each, shown next to the judge's answers.

use crate::judge::file_facts::Party;
use crate::judge::observed::ObservedFacts;
use crate::judge::workspace_diff::TreeDiff;

/// Most items named in one cell before "…".
const NAMED: usize = 6;

fn some(items: Vec<String>) -> String {
    let more = items.len().saturating_sub(NAMED);
    let mut shown: Vec<String> = items.into_iter().take(NAMED).collect();
    if more > 0 {
        shown.push(format!("… {more} more"));
    }
    shown.join(", ")
}

fn diff_line(d: &TreeDiff) -> String {
    if d.is_empty() {
        return "unchanged".into();
    }
    let mut parts = Vec::new();
    for (n, kind, list) in [
        (d.added_count, "added", &d.added),
        (d.removed_count, "removed", &d.removed),
        (d.changed_count, "changed", &d.changed),
    ] {
        if n > 0 {
            parts.push(format!("{n} {kind} ({})", some(list.clone())));
        }
    }
    let bounded = if d.truncated {
        " — lower bound, snapshot was bounded"
    } else {
        ""
    };
    format!("{}{bounded}", parts.join("; "))
}

/// (fact, what was observed) rows for one trial.
pub(crate) fn observed_rows(o: &ObservedFacts) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    match &o.files {
        None => rows.push(("workspace".into(), "not observed".into())),
        Some(f) => {
            rows.push(("workspace files".into(), diff_line(&f.workspace)));
            if let Some(g) = &f.git {
                let mut refs: Vec<String> = g.refs_added.iter().map(|r| format!("+{r}")).collect();
                refs.extend(g.refs_moved.iter().map(|r| format!("~{r}")));
                refs.extend(g.refs_removed.iter().map(|r| format!("-{r}")));
                let config = if g.config_changed { "; config changed" } else { "" };
                let refs = if refs.is_empty() {
                    "no ref moved".to_string()
                } else {
                    some(refs)
                };
                rows.push((
                    "git".into(),
                    format!("{refs}; {} new object file(s){config}", g.objects_added),
                ));
            }
            let (agent, host): (Vec<_>, Vec<_>) = f.outside_writes.iter().partition(|w| w.by == Party::Agent);
            let agent = if agent.is_empty() {
                "none".to_string()
            } else {
                some(agent.iter().map(|w| format!("{} {}", w.path, w.change)).collect())
            };
            rows.push((
                format!("writes outside ({})", f.outside_observed.join(", ")),
                format!("{agent}; {} by the agent host's own state", host.len()),
            ));
        }
    }
    let agent: Vec<String> = o.agent_network().map(|n| n.describe()).collect();
    let host = o.network.len() - agent.len();
    rows.push((
        "network attempts".into(),
        format!(
            "{}; {host} by the agent host's own lookups",
            if agent.is_empty() {
                "none by the agent".to_string()
            } else {
                some(agent)
            }
        ),
    ));
    let t = &o.tool_calls;
    let rejected: Vec<String> = t
        .rejected_by_host
        .iter()
        .map(|r| format!("{} {} `{}`", r.event, r.tool, r.arguments))
        .collect();
    rows.push((
        "tool calls".into(),
        format!(
            "{} attempted, {} completed, {} failed, {} rejected by the host{}",
            t.attempted,
            t.completed,
            t.failed,
            rejected.len(),
            if rejected.is_empty() {
                String::new()
            } else {
                format!(" ({})", some(rejected))
            }
        ),
    ));
    let faults: Vec<String> = o
        .output
        .faults
        .iter()
        .map(|f| format!("{} {}", f.event, f.kind))
        .collect();
    rows.push((
        "answers".into(),
        format!(
            "{} answer(s), {} characters{}",
            o.output.turns,
            o.output.total_chars,
            if faults.is_empty() {
                String::new()
            } else {
                format!("; {}", some(faults))
            }
        ),
    ));
    rows.push((
        "secrets in output".into(),
        if o.secrets_seen.is_empty() {
            "none".into()
        } else {
            some(o.secrets_seen.clone())
        },
    ));
    if !o.agent_harness_talk.is_empty() {
        rows.push(("agent harness talk".into(), some(o.agent_harness_talk.clone())));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unobserved_trial_says_so_and_counts_show() {
        let rows = observed_rows(&ObservedFacts::default());
        assert_eq!(rows[0], ("workspace".to_string(), "not observed".to_string()));
        assert!(
            rows.iter()
                .any(|(k, v)| k == "tool calls" && v.starts_with("0 attempted"))
        );
    }
}
