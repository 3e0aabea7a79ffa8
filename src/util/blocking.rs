//! File-system work of the run engine, off the async runtime's few worker threads.
//!
//! Creating, renaming and removing files can wait on the file system (its journal, or on a
//! journal-less ext4 a scan past recently deleted inodes); on a worker thread that wait stalls
//! every case scheduled there. Outside a runtime the work simply runs here.

/// Runs `work` on the runtime's blocking pool (or in place outside a runtime).
pub(crate) async fn off_runtime<T, F>(work: F) -> std::io::Result<T>
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
pub(crate) fn run_parallel(
    jobs: Vec<Box<dyn FnOnce() -> std::io::Result<()> + Send + 'static>>,
) -> std::io::Result<()> {
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

/// `f` over every item, in order, with the items split into contiguous shares among a few
/// scoped threads (at most `available_parallelism`, 8, and one per `per_thread` items): for
/// file-heavy work over thousands of run artifacts that would otherwise be one thread's loop.
/// `f` gets each item's index in `items`. A panic in `f` is carried to the caller.
pub(crate) fn map_in_shares<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_SHARE_THREADS)
        .min(items.len().div_ceil(per_thread.max(1)))
        .max(1);
    if threads == 1 {
        return items.iter().enumerate().map(|(i, t)| f(i, t)).collect();
    }
    let share = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(share)
            .enumerate()
            .map(|(k, chunk)| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .enumerate()
                        .map(|(i, t)| f(k * share + i, t))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// Threads of one `map_in_shares` call at most.
const MAX_SHARE_THREADS: usize = 8;

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

    #[test]
    fn shares_keep_the_items_order_and_indexes() {
        for n in [0, 1, 5, 64, 1001] {
            let items: Vec<usize> = (0..n).map(|i| i * 3).collect();
            let out = map_in_shares(&items, 4, |i, v| (i, *v + 1));
            assert_eq!(out, (0..n).map(|i| (i, i * 3 + 1)).collect::<Vec<_>>(), "n = {n}");
        }
    }

    #[test]
    fn shares_run_on_several_threads_when_there_is_enough_work() {
        let items = vec![(); 400];
        let ids = std::sync::Mutex::new(std::collections::HashSet::new());
        map_in_shares(&items, 10, |_, ()| {
            ids.lock().unwrap().insert(std::thread::current().id());
        });
        let expected = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
        assert_eq!(ids.lock().unwrap().len(), expected);
    }
}
