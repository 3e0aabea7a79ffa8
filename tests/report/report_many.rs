//! A report over many trials: the trials are read on several threads yet keep the run
//! folder's order and their own token counts, the run's totals equal the sum over the trials,
//! and a re-rendered report leaves every unchanged trial critique as it is.

use crate::report_support;

use ghostlab::report::{ReportOutputs, build_report, write_all};
use report_support::build_many_trials;
use std::os::unix::fs::MetadataExt;

/// More trials than one reader thread takes, so the shared readers and writers run.
const TRIALS: u32 = 150;

#[test]
fn many_trials_keep_their_order_and_their_token_totals() {
    let fx = build_many_trials(TRIALS);
    let report = build_report(&fx.job, &fx.run_dir).unwrap();
    let ids: Vec<&str> = report.trials.iter().map(|t| t.case_id.as_str()).collect();
    let expected: Vec<String> = (0..TRIALS).map(|i| format!("many-{i:03}")).collect();
    assert_eq!(ids, expected.iter().map(String::as_str).collect::<Vec<_>>());
    for (i, t) in report.trials.iter().enumerate() {
        assert_eq!(t.anchor, format!("t{}", i + 1), "anchor of {}", t.case_id);
        assert_eq!(t.tokens, i as u64 + 1, "tokens of {}", t.case_id);
        assert!(t.problems.is_empty(), "{}: {:?}", t.case_id, t.problems);
    }
    let sum: u64 = (1..=u64::from(TRIALS)).sum();
    assert_eq!(
        report.summary.tokens.roles[0].tokens, sum,
        "agent tokens summed over every trial"
    );
    assert_eq!(report.summary.tokens.usage.agent.tokens, sum);
}

#[test]
fn a_rerendered_report_rewrites_only_changed_trial_critiques() {
    let fx = build_many_trials(TRIALS);
    let outputs = ReportOutputs {
        markdown: Some(fx.run_dir.join("report.md")),
        ..Default::default()
    };
    let first = write_all(&fx.job, &fx.run_dir, &outputs).unwrap();
    let critique = |i: u32| fx.run_dir.join(format!("cases/many-{i:03}/trial-1/critique.md"));
    for i in 0..TRIALS {
        assert!(first.contains(&critique(i)), "first render writes trial {i}'s critique");
    }
    let inode = |i: u32| std::fs::metadata(critique(i)).unwrap().ino();
    let before: Vec<u64> = (0..TRIALS).map(inode).collect();
    let good = std::fs::read_to_string(critique(7)).unwrap();
    std::fs::write(critique(7), "stale text\n").unwrap();

    let second = write_all(&fx.job, &fx.run_dir, &outputs).unwrap();
    let rewritten: Vec<_> = second.iter().filter(|p| p.ends_with("trial-1/critique.md")).collect();
    assert_eq!(rewritten, [&critique(7)], "only the changed critique is written again");
    assert_eq!(
        std::fs::read_to_string(critique(7)).unwrap(),
        good,
        "and it is restored"
    );
    for i in (0..TRIALS).filter(|&i| i != 7) {
        assert_eq!(
            inode(i),
            before[i as usize],
            "trial {i}'s critique was replaced though unchanged"
        );
    }
    assert!(
        second.contains(&fx.run_dir.join("report.md")),
        "the report itself is always written"
    );
    assert!(second.contains(&fx.run_dir.join("critique.md")));
}
