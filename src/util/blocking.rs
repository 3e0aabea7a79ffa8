//! File-system work of the run engine, off the async runtime's few worker threads.
//!
//! Creating, renaming and removing files can wait on the file system (its journal, or on a
//! journal-less ext4 a scan past recently deleted inodes); on a worker thread that wait stalls
//! every case scheduled there. Outside a runtime the work simply runs here.

/// Runs `work` on the runtime's blocking pool (or in place outside a runtime).
pub async fn off_runtime<T, F>(work: F) -> std::io::Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> std::io::Result<T> + Send + 'static,
{
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle.spawn_blocking(work).await.map_err(std::io::Error::other)?,
        Err(_) => work(),
    }
}

/// Runs each of `jobs` at once, on the runtime's blocking pool when there is one (its threads
/// are reused, so a commit does not pay for starting threads) or on scoped threads otherwise;
/// waits for all and returns the first error (the first part's, then in finishing order).
/// Callable from a blocking thread; the first part runs on the calling thread.
pub fn run_parallel(jobs: Vec<Box<dyn FnOnce() -> std::io::Result<()> + Send + 'static>>) -> std::io::Result<()> {
    let Ok(handle) = tokio::runtime::Handle::try_current() else {
        return std::thread::scope(|s| {
            let handles: Vec<_> = jobs.into_iter().map(|job| s.spawn(job)).collect();
            handles.into_iter().try_for_each(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("a file-system thread panicked")))
            })
        });
    };
    let mut jobs = jobs.into_iter();
    let Some(here) = jobs.next() else { return Ok(()) };
    let (tx, rx) = std::sync::mpsc::channel();
    let n = jobs.len();
    for job in jobs {
        let tx = tx.clone();
        handle.spawn_blocking(move || {
            let _ = tx.send(job());
        });
    }
    drop(tx);
    // The first part runs on this thread: one pool thread fewer per call.
    let mut result = here();
    for _ in 0..n {
        let r = rx
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("a file-system task ended without an answer")));
        if result.is_ok() {
            result = r;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn jobs(count: &Arc<AtomicUsize>, fail: bool) -> Vec<Box<dyn FnOnce() -> std::io::Result<()> + Send + 'static>> {
        (0..5)
            .map(|i| {
                let count = count.clone();
                Box::new(move || {
                    count.fetch_add(1, Ordering::SeqCst);
                    if fail && i == 3 {
                        Err(std::io::Error::other("job 3 failed"))
                    } else {
                        Ok(())
                    }
                }) as Box<dyn FnOnce() -> std::io::Result<()> + Send>
            })
            .collect()
    }

    #[test]
    fn every_job_runs_and_an_error_is_returned_outside_a_runtime() {
        let count = Arc::new(AtomicUsize::new(0));
        run_parallel(jobs(&count, false)).unwrap();
        let err = run_parallel(jobs(&count, true)).unwrap_err();
        assert_eq!(err.to_string(), "job 3 failed");
        assert_eq!(count.load(Ordering::SeqCst), 10);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn on_the_blocking_pool_from_a_blocking_task() {
        let count = Arc::new(AtomicUsize::new(0));
        let c = count.clone();
        let err = off_runtime(move || {
            run_parallel(jobs(&c, false))?;
            run_parallel(jobs(&c, true))
        })
        .await
        .unwrap_err();
        assert_eq!(err.to_string(), "job 3 failed");
        assert_eq!(count.load(Ordering::SeqCst), 10);
    }
}
