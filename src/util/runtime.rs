//! The one place a tokio runtime is built (timers and IO enabled). Each command owns its own;
//! the library never builds one behind its caller's back.

use std::future::Future;
use std::io;
use tokio::runtime::{Builder, Runtime};

/// A runtime on the calling thread: for a command that waits on one thing at a time.
pub(crate) fn current_thread() -> io::Result<Runtime> {
    build(Builder::new_current_thread())
}

/// A runtime with worker threads: for work spread over tasks the workers share (a suite's
/// cases, servers answering while the command waits).
pub fn multi_thread() -> io::Result<Runtime> {
    build(Builder::new_multi_thread())
}

/// Runs `future` to completion on a fresh current-thread runtime.
pub(crate) fn block_on<F: Future>(future: F) -> io::Result<F::Output> {
    Ok(current_thread()?.block_on(future))
}

/// Runs `future` to completion on a fresh multi-thread runtime.
pub(crate) fn block_on_workers<F: Future>(future: F) -> io::Result<F::Output> {
    Ok(multi_thread()?.block_on(future))
}

fn build(mut builder: Builder) -> io::Result<Runtime> {
    builder
        .enable_all()
        .build()
        .map_err(|e| io::Error::new(e.kind(), format!("cannot start the async runtime: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn both_runtimes_have_timers_and_io() {
        // A runtime without `enable_all` panics on the first sleep or socket.
        let slept = block_on(async {
            tokio::time::sleep(Duration::from_millis(1)).await;
            tokio::net::TcpListener::bind("127.0.0.1:0").await.is_ok()
        });
        assert!(slept.unwrap());
        let on_workers = block_on_workers(async {
            tokio::time::sleep(Duration::from_millis(1)).await;
            tokio::spawn(async { 7 }).await.unwrap()
        });
        assert_eq!(on_workers.unwrap(), 7);
    }

    #[test]
    fn the_multi_thread_runtime_runs_tasks_on_other_threads() {
        let rt = multi_thread().unwrap();
        let caller = std::thread::current().id();
        let worker = rt.block_on(async { tokio::spawn(async { std::thread::current().id() }).await.unwrap() });
        assert_ne!(worker, caller);
    }
}
