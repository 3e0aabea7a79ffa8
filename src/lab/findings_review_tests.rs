//! The decision flow on the results screen, as events and effects.

use super::*;
use crate::mcp::contract::decide::DecideError;
use crate::mcp::contract::decisions::DecisionsError;
use std::path::PathBuf;

fn no_contract() -> Shared<FindingsError> {
    FindingsError::from(DecideError::NoContract {
        path: PathBuf::from("/jobs/bot/.ghostlab/contract.json"),
        job: PathBuf::from("/jobs/bot/job.yaml"),
    })
    .into()
}

fn unreadable_decisions() -> Shared<FindingsError> {
    FindingsError::from(DecisionsError::Invalid {
        path: PathBuf::from("/jobs/bot/job.decisions.json"),
        reason: "expected value at line 1 column 3".into(),
    })
    .into()
}

fn rows() -> Vec<FindingChoice> {
    ["GL020:release/publish@1a2b3c", "GL017:notes/add@3f9a1c"]
        .iter()
        .map(|id| FindingChoice {
            id: id.to_string(),
            severity: "warning".into(),
            message: "m".into(),
            standing: "open".into(),
            counts: true,
        })
        .collect()
}

fn loaded() -> FindingsReview {
    let mut f = FindingsReview::default();
    assert!(f.handle(FindingsEvent::Loaded(Ok(rows()))).is_none());
    f
}

fn type_text(f: &mut FindingsReview, text: &str) {
    for c in text.chars() {
        f.handle(FindingsEvent::Type(c));
    }
}

#[test]
fn waiving_the_selected_finding_asks_for_a_reason_then_records_it() {
    let mut f = loaded();
    f.handle(FindingsEvent::Down);
    f.handle(FindingsEvent::Decide(Verdict::Waived));
    assert!(f.typing());
    type_text(&mut f, " ours, read-onlx");
    f.handle(FindingsEvent::Backspace);
    type_text(&mut f, "y ");
    let fx = f.handle(FindingsEvent::Submit);
    assert_eq!(
        fx,
        Some(DecisionRequest {
            finding: "GL017:notes/add@3f9a1c".into(),
            verdict: Verdict::Waived,
            reason: "ours, read-only".into(),
        })
    );
    assert!(!f.typing() && f.pending);
    // While it is written, another decision cannot start.
    f.handle(FindingsEvent::Decide(Verdict::Accepted));
    assert!(!f.typing());
    let mut after = rows();
    after[1].standing = "waived by ana (ours, read-only)".into();
    after[1].counts = false;
    f.handle(FindingsEvent::Decided(Ok(after.clone())));
    assert!(!f.pending);
    assert_eq!(f.rows.as_deref(), Some(&after[..]));
    assert_eq!(
        f.notice,
        Some(Ok("waived GL017:notes/add@3f9a1c: ours, read-only".into()))
    );
}

#[test]
fn a_blank_reason_is_refused_and_the_prompt_stays() {
    let mut f = loaded();
    f.handle(FindingsEvent::Decide(Verdict::Accepted));
    type_text(&mut f, "   ");
    assert!(f.handle(FindingsEvent::Submit).is_none());
    assert!(f.typing(), "the reason can still be typed");
    assert_eq!(f.notice, Some(Err(FindingsProblem::NoReason)));
    assert_eq!(
        f.notice
            .as_ref()
            .and_then(|n| n.clone().err())
            .map(|p| p.to_string())
            .as_deref(),
        Some("say why: the reason is stored with the decision and shown in the report")
    );
}

#[test]
fn esc_drops_the_decision_and_nothing_is_written() {
    let mut f = loaded();
    f.handle(FindingsEvent::Decide(Verdict::Accepted));
    type_text(&mut f, "known");
    f.handle(FindingsEvent::Cancel);
    assert!(!f.typing());
    assert!(f.handle(FindingsEvent::Submit).is_none());
}

#[test]
fn no_findings_or_an_unreadable_contract_opens_no_prompt() {
    let mut f = FindingsReview::default();
    f.handle(FindingsEvent::Decide(Verdict::Waived));
    assert!(!f.typing(), "nothing loaded yet");
    f.handle(FindingsEvent::Loaded(Err(no_contract())));
    f.handle(FindingsEvent::Decide(Verdict::Waived));
    assert!(!f.typing());
    let said = f.notice.clone().and_then(Result::err).map(|p| p.to_string());
    assert_eq!(
        said.as_deref(),
        Some(
            "/jobs/bot/.ghostlab/contract.json: no contract yet; run `ghostlab discover --job /jobs/bot/job.yaml` first"
        ),
        "the screen names the missing file and the command that writes it"
    );
    // A refused decision says why and leaves the list as it was.
    let mut f = loaded();
    f.handle(FindingsEvent::Decide(Verdict::Waived));
    type_text(&mut f, "x");
    f.handle(FindingsEvent::Submit);
    f.handle(FindingsEvent::Decided(Err(unreadable_decisions())));
    assert_eq!(f.rows.as_deref(), Some(&rows()[..]));
    assert_eq!(f.notice, Some(Err(FindingsProblem::Failed(unreadable_decisions()))));
    let Some(Err(FindingsProblem::Failed(e))) = &f.notice else {
        panic!("{:?}", f.notice)
    };
    assert!(
        matches!(e.get(), FindingsError::Decisions(DecisionsError::Invalid { .. })),
        "the decisions file's own error is kept: {e:?}"
    );
    assert!(e.to_string().starts_with("/jobs/bot/job.decisions.json: "), "{e}");
    assert!(!f.pending);
}
