//! A case runs as its own task (dropped with the run, its panic carried on), and the summary's
//! pure steps: trials grouped by case, the gates with their defaults.

use super::{VerdictFile, gate_results, spawn_case, summarize, trials_by_case};
use crate::trial::Verdict;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Sets its flag when dropped: the case's environment, say.
struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_case_is_aborted_and_its_state_dropped() {
    let (dropped, finished) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let (d, f) = (Dropped(dropped.clone()), finished.clone());
    let (started_tx, started) = tokio::sync::oneshot::channel();
    let case = spawn_case(async move {
        let _env = d;
        let _ = started_tx.send(());
        tokio::time::sleep(std::time::Duration::from_secs(30)).await;
        f.store(true, Ordering::SeqCst);
        Ok(())
    });
    let run = tokio::spawn(case);
    started.await.unwrap();
    run.abort();
    let waited = std::time::Instant::now();
    while !dropped.load(Ordering::SeqCst) {
        assert!(
            waited.elapsed().as_secs() < 10,
            "the aborted case still holds its state"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert!(!finished.load(Ordering::SeqCst));
}

fn explode() -> std::io::Result<()> {
    panic!("case exploded")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_a_case_reaches_the_suite() {
    let outcome = tokio::spawn(spawn_case(async { explode() })).await;
    let panic = outcome.unwrap_err().into_panic();
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"case exploded"));
}

fn verdict(case: &str, trial: u32, verdict: Verdict) -> VerdictFile {
    VerdictFile {
        version: crate::judge::case_verdict::VERDICT_VERSION,
        case: case.into(),
        trial,
        verdict,
        reasons: Vec::new(),
        criteria: Vec::new(),
        checks: Vec::new(),
        judge: "fake".into(),
        duration_ms: 0,
        observed: Default::default(),
    }
}

#[test]
fn trials_are_grouped_by_case_in_the_order_cases_first_appear() {
    let verdicts = [
        verdict("b", 1, Verdict::Pass),
        verdict("a", 1, Verdict::InfraError),
        verdict("b", 2, Verdict::Fail),
        verdict("a", 2, Verdict::Inconclusive),
    ];
    let cases = trials_by_case(&verdicts);
    let seen: Vec<(&str, &[Verdict])> = cases
        .iter()
        .map(|c| (c.case_id.as_str(), c.trials.as_slice()))
        .collect();
    assert_eq!(
        seen,
        [
            ("b", &[Verdict::Pass, Verdict::Fail][..]),
            ("a", &[Verdict::InfraError, Verdict::Inconclusive][..])
        ]
    );
    assert!(trials_by_case(&[]).is_empty());
}

/// INFRA_ERROR and INCONCLUSIVE never count as judged: a run of only those fails the last
/// gate, whatever the job's own gates say.
#[test]
fn the_defaults_are_labelled_and_something_must_be_judged() {
    let facts = crate::judge::GateFacts::default();
    let unjudged = trials_by_case(&[
        verdict("a", 1, Verdict::InfraError),
        verdict("b", 1, Verdict::Inconclusive),
    ]);
    let results = gate_results(&Default::default(), &summarize(&unjudged), &unjudged, &facts);
    assert!(
        results[..results.len() - 1]
            .iter()
            .all(|g| g.gate.ends_with(" (default)")),
        "{results:?}"
    );
    let last = results.last().unwrap();
    assert_eq!(last.gate, "some trial judged");
    assert!(!last.met, "{last:?}");

    let judged = trials_by_case(&[verdict("a", 1, Verdict::Fail)]);
    let results = gate_results(&Default::default(), &summarize(&judged), &judged, &facts);
    assert!(results.last().unwrap().met);
}
