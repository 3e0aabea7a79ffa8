//! A future run as its own runtime task, owned by whoever holds it.
//!
//! The suite drives its cases as a bounded stream; polled inside the suite's own future, every
//! case's non-blocking work (events, redaction, the file baseline, the conversation's logic) ran
//! on whichever single thread polled the suite. As tasks, cases share all the runtime's worker
//! threads. Ownership is kept: dropping the handle aborts the task (so a dropped run still
//! drops its cases), and a panic inside the task resumes in the owner as before.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::task::JoinHandle;

/// The handle of a task spawned by [`spawn_owned`]; resolves to the task's output.
pub struct OwnedTask<T>(JoinHandle<T>);

/// Spawns `work` on the current runtime; the task ends when the returned handle is dropped.
pub fn spawn_owned<F>(work: F) -> OwnedTask<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    OwnedTask(tokio::spawn(work))
}

impl<T> Future for OwnedTask<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0).poll(cx).map(|joined| match joined {
            Ok(out) => out,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            // Only this handle aborts the task, and it is not dropped while being polled; a
            // runtime shutting down also cancels, and then there is nothing left to return to.
            Err(e) => panic!("a case task ended without finishing: {e}"),
        })
    }
}

impl<T> Drop for OwnedTask<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn output_is_returned_and_runs_on_a_worker_thread() {
        let here = std::thread::current().id();
        let there = spawn_owned(async { std::thread::current().id() }).await;
        assert_eq!(spawn_owned(async { 41 + 1 }).await, 42);
        // `#[tokio::test]` polls the test body on its own thread, not a worker's.
        assert_ne!(here, there);
    }

    /// Sets its flag when dropped: shows that the task's future was dropped, not left running.
    struct Dropped(Arc<AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_the_handle_drops_the_task() {
        let flag = Arc::new(AtomicBool::new(false));
        let guard = Dropped(flag.clone());
        let task = spawn_owned(async move {
            let _guard = guard;
            tokio::time::sleep(Duration::from_secs(3600)).await;
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!flag.load(Ordering::SeqCst));
        drop(task);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !flag.load(Ordering::SeqCst) {
            assert!(tokio::time::Instant::now() < deadline, "the task outlived its handle");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[should_panic(expected = "inside the task")]
    async fn a_panic_in_the_task_resumes_in_the_owner() {
        spawn_owned(async { panic!("inside the task") }).await
    }
}
