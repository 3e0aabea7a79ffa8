//! The PDF's digest of the report's longest parts. Printed in full, the bundled example took
//! 50–55 pages, most of them rows that repeat (every passed check of every trial, every tool's
//! risk labels, one dataset row per approved case). The PDF groups or summarises those rows;
//! report.md and report.html keep every row, and each digest names where the rest is.

use super::model::*;
use super::tables::Table;

/// Where a digest sends the reader for what it leaves out.
pub(crate) const FULL_REPORT: &str = "report.html";

fn table(headers: &[&str], rows: Vec<Vec<String>>) -> Table {
    Table {
        headers: headers.iter().map(|h| h.to_string()).collect(),
        rows,
    }
}

/// The names of the passed checks, and the checks that did not pass (shown in full).
pub(crate) fn checks_digest(checks: &[CheckRow]) -> (Vec<String>, Vec<CheckRow>) {
    let (passed, other): (Vec<&CheckRow>, Vec<&CheckRow>) = checks.iter().partition(|c| c.outcome == "passed");
    (
        passed.into_iter().map(|c| c.name.clone()).collect(),
        other.into_iter().cloned().collect(),
    )
}

/// The verdict's reasons the criteria table does not already show: `s1: R` and
/// `s1 not judged: R` repeat criterion s1's rationale R word for word.
pub(crate) fn reasons_beyond_criteria(t: &TrialReport) -> Vec<String> {
    let repeats = |reason: &str| {
        t.criteria.iter().any(|c| {
            reason == format!("{}: {}", c.id, c.rationale) || reason == format!("{} not judged: {}", c.id, c.rationale)
        })
    };
    t.reasons.iter().filter(|r| !repeats(r)).cloned().collect()
}

/// A criteria table (`tables::criteria`: id first, rationale fifth) where a rationale that
/// repeats an earlier row's reads `same as <id>`.
pub(crate) fn rationale_once(mut t: Table) -> Table {
    for i in 1..t.rows.len() {
        let (before, rest) = t.rows.split_at_mut(i);
        let row = &mut rest[0];
        if let Some(first) = before.iter().find(|r| !r[4].is_empty() && r[4] == row[4]) {
            row[4] = format!("same as {}", first[0]);
        }
    }
    t
}

/// What the harness observed, as one `fact: value · fact: value` paragraph.
pub(crate) fn observed_line(rows: &[(String, String)]) -> String {
    rows.iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Tools grouped by their risk labels, groups in first-seen order.
pub(crate) fn risk_label_groups(labels: &[(String, String)]) -> Table {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (tool, label) in labels {
        match groups.iter_mut().find(|(l, _)| l == label) {
            Some((_, tools)) => tools.push(tool.clone()),
            None => groups.push((label.clone(), vec![tool.clone()])),
        }
    }
    let rows = groups
        .into_iter()
        .map(|(label, tools)| vec![label, format!("{} ({})", tools.join(", "), tools.len())])
        .collect();
    table(&["Risk labels", "Tools"], rows)
}

/// Dataset cases grouped by status and note: one row per group instead of one per case. Cases
/// the run has (`ran`) are counted, not listed: their transcripts are in section 4.
pub(crate) fn dataset_groups(d: &DatasetSection, ran: &[&str]) -> Table {
    let mut groups: Vec<((String, String), Vec<String>)> = Vec::new();
    for [id, _, _, status, note] in &d.cases {
        let key = (status.clone(), note.clone());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, ids)) => ids.push(id.clone()),
            None => groups.push((key, vec![id.clone()])),
        }
    }
    let rows = groups
        .into_iter()
        .map(|((status, note), ids)| {
            let (in_run, not_run): (Vec<String>, Vec<String>) =
                ids.iter().cloned().partition(|id| ran.contains(&id.as_str()));
            let mut cases = Vec::new();
            if !in_run.is_empty() {
                cases.push(format!("{} in this run (section 4)", in_run.len()));
            }
            if !not_run.is_empty() {
                cases.push(format!("not in this run: {}", not_run.join(", ")));
            }
            vec![format!("{status} ({})", ids.len()), note, cases.join("; ")]
        })
        .collect();
    table(&["Status", "Note", "Cases"], rows)
}

/// Refused egress attempts grouped by destination: how many, in how many trials, first and
/// last time; the cases are listed unless every trial of the run (`trials`) made the attempt.
pub(crate) fn denied_groups(denied: &[DeniedEgress], trials: usize) -> Table {
    let mut groups: Vec<(String, Vec<&DeniedEgress>)> = Vec::new();
    for d in denied {
        let dest = format!("{}:{}", d.host, d.port);
        match groups.iter_mut().find(|(k, _)| *k == dest) {
            Some((_, list)) => list.push(d),
            None => groups.push((dest, vec![d])),
        }
    }
    let rows = groups
        .into_iter()
        .map(|(dest, list)| {
            let mut in_trials: Vec<String> = Vec::new();
            for d in &list {
                let t = format!("{} · trial {}", d.case, d.trial);
                if !in_trials.contains(&t) {
                    in_trials.push(t);
                }
            }
            let at: Vec<&str> = list.iter().map(|d| d.at.as_str()).collect();
            let (first, last) = (
                at.iter().min().copied().unwrap_or(""),
                at.iter().max().copied().unwrap_or(""),
            );
            let whom = if in_trials.len() == trials {
                format!("every trial ({trials})")
            } else {
                in_trials.join(", ")
            };
            vec![dest, list.len().to_string(), whom, format!("{first} – {last}")]
        })
        .collect();
    table(&["Destination", "Attempts", "In", "First – last"], rows)
}

/// Findings without their location (a JSON pointer into contract.json for contract
/// findings), one row per severity and message with every tool that has it.
pub(crate) fn findings_brief(f: &[Finding]) -> Table {
    let mut groups: Vec<((String, String), Vec<String>)> = Vec::new();
    for x in f {
        let key = (x.severity.clone(), x.message.clone());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, tools)) if !tools.contains(&x.tool) => tools.push(x.tool.clone()),
            Some(_) => {}
            None => groups.push((key, vec![x.tool.clone()])),
        }
    }
    let rows = groups
        .into_iter()
        .map(|((severity, message), tools)| vec![severity, message, tools.join(", ")])
        .collect();
    table(&["Severity", "Finding", "Tools"], rows)
}

/// The description column only `with_description` (a scenario's is its goal, printed with
/// each transcript).
pub(crate) fn items_brief(items: &[Item], keep: &[&str], with_description: bool) -> Table {
    let rows = items
        .iter()
        .map(|it| {
            let details: Vec<String> = it
                .details
                .iter()
                .filter(|(k, _)| keep.contains(&k.as_str()))
                .map(|(k, v)| format!("{k}: {v}"))
                .collect();
            let mut row = vec![format!("{}\n{}", it.title, it.id)];
            if with_description {
                row.push(it.description.clone());
            }
            row.extend([it.why.clone(), details.join("\n")]);
            row
        })
        .collect();
    if with_description {
        table(&["Name / id", "Description", "Why generated", "Details"], rows)
    } else {
        table(&["Name / id", "Why generated", "Details"], rows)
    }
}

/// A JSON text on one line (`{"a": 1}`); any other text unchanged.
pub(crate) fn one_line_json(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => serde_json::to_string(&v).unwrap_or_else(|_| text.to_string()),
        Err(_) => text.to_string(),
    }
}

/// The first `max` lines of `text`, and a line saying how many more the full report has. A
/// text the report model already cut keeps its mark (`TRUNCATION_MARK`) at the end.
pub(crate) fn head_lines(text: &str, max: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= max {
        return text.to_string();
    }
    let mut out = format!(
        "{}\n… {} more lines in {FULL_REPORT}",
        lines[..max].join("\n"),
        lines.len() - max
    );
    if text.trim_end().ends_with(TRUNCATION_MARK) {
        out.push('\n');
        out.push_str(TRUNCATION_MARK);
    }
    out
}

/// Settings with a value, and the names of those without one (`—` or empty).
pub(crate) fn set_and_unset(rows: &[(String, String)]) -> (Vec<(String, String)>, Vec<String>) {
    let (set, unset): (Vec<_>, Vec<_>) = rows
        .iter()
        .cloned()
        .partition(|(_, v)| !v.trim().is_empty() && v.trim() != "—");
    (set, unset.into_iter().map(|(k, _)| k).collect())
}

#[cfg(test)]
#[path = "digest_tests.rs"]
mod tests;
