//! The suite's group commit: decided trials queue here and are made durable in batches, so a
//! case's slot is free for the next case while its files reach the disk, and the trials that
//! arrive within a few milliseconds of each other share the same two journal waits
//! (`util::durable::commit_batch`).
//!
//! The guarantee is the one in docs/ARCHITECTURE.md ("Durability"): a trial's verdict.json is
//! renamed into place only after its files are durable, so a crash leaves it committed or not
//! done. What changes is when: a trial's verdict may be shown live before its commit lands,
//! and the suite writes summary.json only after every commit has answered.

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use std::sync::Arc;
use tokio::sync::{RwLock, mpsc, oneshot};

use crate::run::store::trial_commit::PendingTrial;

/// Held, shared, by every batch on its way to the disk. A run whose future is dropped (the
/// lab's cancel) cannot stop a batch already on a blocking thread, which may still rename a
/// verdict.json in; a new suite takes it exclusively first (`wait_for_earlier_commits`), so no
/// earlier batch lands while it reads or archives trial folders. A batch takes its share
/// before its blocking work is spawned and hands it to that work (an owned guard), so no
/// spawned-but-not-yet-started batch slips past the wait.
static COMMITTING: std::sync::LazyLock<Arc<RwLock<()>>> = std::sync::LazyLock::new(|| Arc::new(RwLock::new(())));

/// Waits until every batch of every earlier run in this process has landed.
pub(crate) async fn wait_for_earlier_commits() {
    drop(COMMITTING.write().await);
}

/// At most this many trials in one commit call: bounds the files one fsync wave covers.
const MAX_BATCH: usize = 64;
/// Batches committing at once.
const IN_FLIGHT: usize = 8;
/// How long a batch gathers trials before it goes (unless it is full, or the queue has closed:
/// the run's end does not wait for it). Every commit costs journal commits that also stall the
/// running cases' own file creation, so fewer, larger batches keep the cases fast; a case does
/// not wait for this (its slot is free once its trial is queued). A fast run fills a batch
/// (`MAX_BATCH`) before this; a slow one, whose trials take seconds, commits each trial at most
/// this much later than 10 ms did — nothing a user sees, and a crash in that window loses only
/// trials not yet committed, which a resume re-runs (docs/benchmarks.md: 10 → 100 ms).
const GATHER: std::time::Duration = std::time::Duration::from_millis(100);

type Reply = oneshot::Sender<std::io::Result<()>>;

/// Where cases hand in their decided trials.
#[derive(Clone)]
pub(crate) struct CommitQueue {
    tx: mpsc::Sender<(PendingTrial, Reply)>,
}

/// The answer to one handed-in trial: whether its commit landed.
pub(crate) struct Committed(oneshot::Receiver<std::io::Result<()>>);

/// The loop that commits what the queue receives; ends when every `CommitQueue` is dropped
/// and the queue is empty.
pub(crate) struct Committer {
    rx: mpsc::Receiver<(PendingTrial, Reply)>,
}

/// A queue that holds at most `waiting` trials besides the batches gathering and committing; a
/// case that finds it full waits (so a slow disk slows the cases instead of piling up trials).
pub(crate) fn commit_queue(waiting: usize) -> (CommitQueue, Committer) {
    let (tx, rx) = mpsc::channel(waiting.max(1));
    (CommitQueue { tx }, Committer { rx })
}

impl CommitQueue {
    /// Hands `trial` in; returns once it is queued, not once it is durable.
    pub(crate) async fn submit(&self, trial: PendingTrial) -> Committed {
        let (reply, answer) = oneshot::channel();
        // A send fails only when the committer is gone; the dropped reply then answers
        // `Committed::landed` with an error.
        let _ = self.tx.send((trial, reply)).await;
        Committed(answer)
    }
}

impl Committed {
    /// Waits for the trial's commit.
    pub(crate) async fn landed(self) -> std::io::Result<()> {
        self.0.await.unwrap_or_else(|_| {
            Err(std::io::Error::other(
                "the trial committer stopped before this trial's commit",
            ))
        })
    }
}

impl Committer {
    /// Commits batches until the queue is closed. A batch gathers trials for `GATHER` after
    /// its first one (or until it holds `MAX_BATCH`); up to `IN_FLIGHT` batches are on their
    /// way to the disk at once, so the journal can commit one while the next one's fsyncs
    /// queue behind it.
    pub(crate) async fn run(mut self) {
        let mut in_flight = FuturesUnordered::new();
        let mut batch = Vec::new();
        let mut goes_at = tokio::time::Instant::now();
        let mut open = true;
        while open || !batch.is_empty() || !in_flight.is_empty() {
            let room = in_flight.len() < IN_FLIGHT;
            let due = batch.len() >= MAX_BATCH || !open || tokio::time::Instant::now() >= goes_at;
            if room && !batch.is_empty() && due {
                in_flight.push(commit_and_answer(std::mem::take(&mut batch)));
                continue;
            }
            tokio::select! {
                got = self.rx.recv(), if open && batch.len() < MAX_BATCH => match got {
                    Some(trial) => {
                        if batch.is_empty() {
                            goes_at = tokio::time::Instant::now() + GATHER;
                        }
                        batch.push(trial);
                    }
                    None => open = false,
                },
                () = tokio::time::sleep_until(goes_at), if room && !batch.is_empty() => {}
                Some(()) = in_flight.next(), if !in_flight.is_empty() => {}
            }
        }
    }
}

/// Commits one batch on a blocking thread and answers each trial's hand-in.
async fn commit_and_answer(batch: Vec<(PendingTrial, Reply)>) {
    let (trials, replies): (Vec<PendingTrial>, Vec<Reply>) = batch.into_iter().unzip();
    let landing = COMMITTING.clone().read_owned().await;
    let results = crate::util::blocking::off_runtime(move || {
        let _landing = landing;
        Ok(commit_trials(trials))
    })
    .await
    .unwrap_or_else(|e| {
        (0..replies.len())
            .map(|_| Err(std::io::Error::new(e.kind(), e.to_string())))
            .collect()
    });
    for (reply, result) in replies.into_iter().zip(results) {
        let _ = reply.send(result);
    }
}

/// Closes each trial's log, then commits all of them together; one result per trial.
fn commit_trials(trials: Vec<PendingTrial>) -> Vec<std::io::Result<()>> {
    let mut results: Vec<Option<std::io::Result<()>>> = Vec::with_capacity(trials.len());
    let mut units = Vec::new();
    let mut at = Vec::new();
    for (i, trial) in trials.into_iter().enumerate() {
        match trial.into_unit() {
            Ok(unit) => {
                units.push(unit);
                at.push(i);
                results.push(None);
            }
            Err(e) => results.push(Some(Err(e))),
        }
    }
    for (i, r) in at.into_iter().zip(crate::util::durable::commit_batch(units)) {
        results[i] = Some(r);
    }
    crate::util::durable::every_answer(results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::Redactor;
    use crate::run::store::event_log::EventLog;
    use crate::run::store::run_dir::TrialDir;
    use crate::trial::{RunEvent, Sinks};

    fn pending(root: &std::path::Path, i: usize) -> PendingTrial {
        let trial = TrialDir::at(root.join(format!("cases/c{i}/trial-1")));
        let mut log = EventLog::create(&trial.path, &format!("c{i}"), Redactor::new(), Sinks::none()).unwrap();
        log.emit(RunEvent::CaseFinished {
            verdict: crate::judge::Verdict::Pass,
            duration_ms: 1,
        })
        .unwrap();
        PendingTrial {
            trial,
            log: log.close(),
            verdict: format!("{{\"case\":\"c{i}\"}}\n").into_bytes(),
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_handed_in_trial_is_committed_before_the_committer_ends() {
        // More trials than one batch holds; a queue that is often full (cases wait) and one
        // that never is (batches up to MAX_BATCH, several in flight).
        const TRIALS: usize = 3 * MAX_BATCH;
        for waiting in [2, TRIALS] {
            let dir = tempfile::tempdir().unwrap();
            let (queue, committer) = commit_queue(waiting);
            let root = dir.path().to_path_buf();
            let cases = async move {
                let mut answers = Vec::new();
                for i in 0..TRIALS {
                    answers.push(queue.submit(pending(&root, i)).await);
                }
                answers
            };
            let (answers, ()) = futures::join!(cases, committer.run());
            for a in answers {
                a.landed().await.unwrap();
            }
            for i in 0..TRIALS {
                let t = TrialDir::at(dir.path().join(format!("cases/c{i}/trial-1")));
                assert!(t.events().exists() && !t.events_partial().exists());
                assert_eq!(
                    std::fs::read_to_string(t.verdict()).unwrap(),
                    format!("{{\"case\":\"c{i}\"}}\n")
                );
            }
        }
    }

    /// A batch that never fills still goes once it has gathered for `GATHER`: a trial is not
    /// held until the queue closes.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_lone_trial_lands_while_the_queue_stays_open() {
        let dir = tempfile::tempdir().unwrap();
        let (queue, committer) = commit_queue(4);
        let trial = pending(dir.path(), 0);
        let verdict = trial.trial.verdict();
        let committing = tokio::spawn(committer.run());
        let answer = queue.submit(trial).await;
        tokio::time::timeout(std::time::Duration::from_secs(20), answer.landed())
            .await
            .expect("a lone trial must land without the queue closing")
            .unwrap();
        assert!(verdict.exists());
        drop(queue);
        committing.await.unwrap();
    }

    #[tokio::test]
    async fn a_trial_handed_in_after_the_committer_is_gone_gets_an_error_not_a_commit() {
        let dir = tempfile::tempdir().unwrap();
        let (queue, committer) = commit_queue(1);
        drop(committer);
        let answer = queue.submit(pending(dir.path(), 0)).await;
        assert!(answer.landed().await.is_err());
        assert!(!TrialDir::at(dir.path().join("cases/c0/trial-1")).verdict().exists());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_trial_whose_commit_fails_is_answered_with_the_error_and_left_uncommitted() {
        let dir = tempfile::tempdir().unwrap();
        let (queue, committer) = commit_queue(4);
        let trials: Vec<PendingTrial> = (0..3).map(|i| pending(dir.path(), i)).collect();
        // The middle trial's log is gone: closing it as events.jsonl fails.
        std::fs::remove_file(trials[1].trial.events_partial()).unwrap();
        let cases = async move {
            let mut answers = Vec::new();
            for t in trials {
                answers.push(queue.submit(t).await);
            }
            answers
        };
        let (answers, ()) = futures::join!(cases, committer.run());
        let mut landed = Vec::new();
        for a in answers {
            landed.push(a.landed().await.is_ok());
        }
        assert_eq!(landed, [true, false, true]);
        let verdict = |i: usize| TrialDir::at(dir.path().join(format!("cases/c{i}/trial-1"))).verdict();
        assert!(verdict(0).exists() && verdict(2).exists());
        assert!(
            !verdict(1).exists(),
            "a trial whose files are not all there must not be marked done"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn after_a_dropped_run_no_commit_lands_once_the_next_run_has_waited() {
        let dir = tempfile::tempdir().unwrap();
        let (queue, committer) = commit_queue(200);
        let root = dir.path().to_path_buf();
        let cases = async move {
            let mut answers = Vec::new();
            for i in 0..150 {
                answers.push(queue.submit(pending(&root, i)).await);
            }
            answers
        };
        let run = async { futures::join!(cases, committer.run()) };
        let cut = tokio::time::timeout(std::time::Duration::from_millis(3), run).await;
        assert!(cut.is_err(), "the run was to be dropped before it ended");
        wait_for_earlier_commits().await;
        let committed = || {
            (0..150)
                .filter(|i| {
                    let t = TrialDir::at(dir.path().join(format!("cases/c{i}/trial-1")));
                    let done = t.verdict().exists();
                    assert!(!done || t.events().exists(), "c{i}: marked done without its log");
                    done
                })
                .count()
        };
        let before = committed();
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert_eq!(committed(), before, "a batch of the dropped run landed after the wait");
    }
}
