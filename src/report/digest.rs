//! The PDF's digest of the report's longest parts. Printed in full, the bundled example took
//! 50–55 pages, most of them rows that repeat (every passed check of every trial, every tool's
//! risk labels, one dataset row per approved case). The PDF groups or summarises those rows;
//! report.md and report.html keep every row, and each digest names where the rest is.

use super::model::*;
use super::tables::Table;

/// Where a digest sends the reader for what it leaves out.
pub const FULL_REPORT: &str = "report.html";

fn table(headers: &[&str], rows: Vec<Vec<String>>) -> Table {
    Table {
        headers: headers.iter().map(|h| h.to_string()).collect(),
        rows,
    }
}

/// The names of the passed checks, and the checks that did not pass (shown in full).
pub fn checks_digest(checks: &[CheckRow]) -> (Vec<String>, Vec<CheckRow>) {
    let (passed, other): (Vec<&CheckRow>, Vec<&CheckRow>) = checks.iter().partition(|c| c.outcome == "passed");
    (
        passed.into_iter().map(|c| c.name.clone()).collect(),
        other.into_iter().cloned().collect(),
    )
}

/// The verdict's reasons the criteria table does not already show: `s1: R` and
/// `s1 not judged: R` repeat criterion s1's rationale R word for word.
pub fn reasons_beyond_criteria(t: &TrialReport) -> Vec<String> {
    let repeats = |reason: &str| {
        t.criteria.iter().any(|c| {
            reason == format!("{}: {}", c.id, c.rationale) || reason == format!("{} not judged: {}", c.id, c.rationale)
        })
    };
    t.reasons.iter().filter(|r| !repeats(r)).cloned().collect()
}

/// A criteria table (`tables::criteria`: id first, rationale fifth) where a rationale that
/// repeats an earlier row's reads `same as <id>`.
pub fn rationale_once(mut t: Table) -> Table {
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
pub fn observed_line(rows: &[(String, String)]) -> String {
    rows.iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Tools grouped by their risk labels, groups in first-seen order.
pub fn risk_label_groups(labels: &[(String, String)]) -> Table {
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
pub fn dataset_groups(d: &DatasetSection, ran: &[&str]) -> Table {
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
pub fn denied_groups(denied: &[DeniedEgress], trials: usize) -> Table {
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
pub fn findings_brief(f: &[Finding]) -> Table {
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
pub fn items_brief(items: &[Item], keep: &[&str], with_description: bool) -> Table {
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
pub fn one_line_json(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => serde_json::to_string(&v).unwrap_or_else(|_| text.to_string()),
        Err(_) => text.to_string(),
    }
}

/// The first `max` lines of `text`, and a line saying how many more the full report has. A
/// text the report model already cut keeps its mark (`TRUNCATION_MARK`) at the end.
pub fn head_lines(text: &str, max: usize) -> String {
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
pub fn set_and_unset(rows: &[(String, String)]) -> (Vec<(String, String)>, Vec<String>) {
    let (set, unset): (Vec<_>, Vec<_>) = rows
        .iter()
        .cloned()
        .partition(|(_, v)| !v.trim().is_empty() && v.trim() != "—");
    (set, unset.into_iter().map(|(k, _)| k).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, outcome: &str) -> CheckRow {
        CheckRow {
            name: name.into(),
            outcome: outcome.into(),
            detail: "d".into(),
        }
    }

    #[test]
    fn only_checks_that_did_not_pass_keep_their_row() {
        let (passed, other) = checks_digest(&[
            check("a", "passed"),
            check("b", "failed"),
            check("c", "passed"),
            check("d", "errored"),
        ]);
        assert_eq!(passed, ["a", "c"]);
        let names: Vec<&str> = other.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["b", "d"], "a failed or errored check is never summarised away");
    }

    #[test]
    fn groups_keep_every_member_and_their_first_seen_order() {
        let labels = [
            ("t1".to_string(), "read-only".to_string()),
            ("t2".into(), "mutates-state, destructive".into()),
            ("t3".into(), "read-only".into()),
        ];
        assert_eq!(
            risk_label_groups(&labels).rows,
            [
                vec!["read-only".to_string(), "t1, t3 (2)".into()],
                vec!["mutates-state, destructive".into(), "t2 (1)".into()],
            ]
        );
        let d = DatasetSection {
            file: "dataset.json".into(),
            present: true,
            cases: vec![
                ["c1".into(), "p".into(), "s".into(), "approved".into(), "n".into()],
                ["c2".into(), "p".into(), "s".into(), "rejected".into(), "off".into()],
                ["c3".into(), "p".into(), "s".into(), "approved".into(), "n".into()],
            ],
        };
        assert_eq!(
            dataset_groups(&d, &["c1"]).rows,
            [
                vec![
                    "approved (2)".to_string(),
                    "n".into(),
                    "1 in this run (section 4); not in this run: c3".into()
                ],
                vec!["rejected (1)".into(), "off".into(), "not in this run: c2".into()],
            ]
        );
    }

    fn criterion(id: &str, answer: &str, rationale: &str) -> CriterionRow {
        CriterionRow {
            id: id.into(),
            kind: "Success".into(),
            text: "t".into(),
            answer: answer.into(),
            rationale: rationale.into(),
            evidence: vec![],
        }
    }

    #[test]
    fn a_reason_or_rationale_said_once_is_not_printed_again() {
        let criteria = vec![
            criterion("s1", "unanswered", "no judge"),
            criterion("s2", "violated", "pushed a tag"),
            criterion("f1", "unanswered", "no judge"),
            criterion("f2", "upheld", "other"),
        ];
        let table = rationale_once(crate::report::tables::criteria(
            &trial(criteria.clone(), vec![]),
            |e| e.to_string(),
            "—",
        ));
        let rationales: Vec<&str> = table.rows.iter().map(|r| r[4].as_str()).collect();
        assert_eq!(rationales, ["no judge", "pushed a tag", "same as s1", "other"]);
        let t = trial(
            criteria,
            vec![
                "s1 not judged: no judge".into(),
                "s2: pushed a tag".into(),
                "s2: a different text".into(),
                "check refs_unchanged: moved".into(),
                "f2 not judged: no judge".into(),
            ],
        );
        // Only word-for-word repeats of the same criterion's rationale go.
        assert_eq!(
            reasons_beyond_criteria(&t),
            [
                "s2: a different text",
                "check refs_unchanged: moved",
                "f2 not judged: no judge"
            ]
        );
    }

    fn trial(criteria: Vec<CriterionRow>, reasons: Vec<String>) -> TrialReport {
        TrialReport {
            case_id: "c".into(),
            trial: 1,
            anchor: "t1".into(),
            persona: String::new(),
            scenario_id: String::new(),
            scenario: String::new(),
            goal: String::new(),
            verdict: None,
            reasons,
            judge: String::new(),
            duration_ms: 0,
            entries: vec![],
            criteria,
            checks: vec![],
            observed: vec![],
            tokens: 0,
            cost_usd: 0.0,
            usage: Default::default(),
            problems: vec![],
            timing: None,
        }
    }

    #[test]
    fn findings_with_one_message_share_a_row_and_keep_every_tool() {
        let f = |sev: &str, tool: &str, msg: &str| Finding {
            severity: sev.into(),
            tool: tool.into(),
            message: msg.into(),
            location: "/servers/0".into(),
        };
        let t = findings_brief(&[
            f("warning", "a", "GL003 no description"),
            f("warning", "b", "GL003 no description"),
            f("note", "a", "GL003 no description"),
            f("warning", "a", "GL003 no description"),
            f("warning", "c", "GL007 no maxItems"),
        ]);
        assert_eq!(
            t.rows,
            [
                ["warning", "GL003 no description", "a, b"],
                ["note", "GL003 no description", "a"],
                ["warning", "GL007 no maxItems", "c"],
            ]
        );
    }

    #[test]
    fn denied_attempts_group_by_destination_and_name_their_trials_unless_all() {
        let d = |case: &str, host: &str, at: &str| DeniedEgress {
            case: case.into(),
            trial: 1,
            host: host.into(),
            port: 443,
            at: at.into(),
        };
        let denied = [
            d("a", "registry.npmjs.org", "10:02"),
            d("b", "registry.npmjs.org", "10:01"),
            d("a", "api.github.com", "10:03"),
        ];
        assert_eq!(
            denied_groups(&denied, 2).rows,
            [
                vec![
                    "registry.npmjs.org:443".to_string(),
                    "2".into(),
                    "every trial (2)".into(),
                    "10:01 – 10:02".into()
                ],
                vec![
                    "api.github.com:443".into(),
                    "1".into(),
                    "a · trial 1".into(),
                    "10:03 – 10:03".into()
                ],
            ]
        );
        assert_eq!(denied_groups(&denied, 3).rows[0][2], "a · trial 1, b · trial 1");
    }

    #[test]
    fn long_texts_say_how_much_was_left_out() {
        assert_eq!(head_lines("a\nb", 2), "a\nb");
        assert_eq!(head_lines("a\nb\nc\nd", 2), "a\nb\n… 2 more lines in report.html");
        let cut = format!("a\nb\nc\n{TRUNCATION_MARK}");
        assert_eq!(
            head_lines(&cut, 2),
            format!("a\nb\n… 2 more lines in report.html\n{TRUNCATION_MARK}"),
            "the model's own cut stays said"
        );
        assert_eq!(one_line_json("{\n  \"a\": 1\n}"), "{\"a\":1}");
        assert_eq!(one_line_json("not json\n"), "not json\n");
        let rows = [
            ("A".to_string(), "x".to_string()),
            ("B".into(), "—".into()),
            ("C".into(), " ".into()),
        ];
        assert_eq!(
            set_and_unset(&rows),
            (vec![rows[0].clone()], vec!["B".into(), "C".into()])
        );
        assert_eq!(
            observed_line(&[("git".into(), "no ref moved".into()), ("answers".into(), "1".into())]),
            "git: no ref moved · answers: 1"
        );
    }
}
