//! Tests of the PDF digest: what each grouping keeps, in which order, and what it says it left out.

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
        reasons,
        criteria,
        ..crate::report::trial_model::blank_trial()
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
