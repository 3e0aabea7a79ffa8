//! Counts the calls Ghostlab's own roles make inside a scope (one conversation, one
//! judgement), so the run can record them as `model_call` events with tokens and cost.
//!
//! The scope is task-local: concurrent cases each see only their own calls. A call made outside
//! any scope is simply not counted here (its response still carries its usage).

use std::future::Future;
use std::sync::{Arc, Mutex};

/// One call of a priced role.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MeteredCall {
    pub(crate) model: String,
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
    /// `None`: the model has no known price (shown as "unknown", never $0).
    pub(crate) cost_usd: Option<f64>,
    pub(crate) latency_ms: u64,
}

tokio::task_local! {
    static CALLS: Arc<Mutex<Vec<MeteredCall>>>;
}

/// Runs `work` and returns what it produced plus every priced call it made.
pub(crate) async fn metered<F: Future>(work: F) -> (F::Output, Vec<MeteredCall>) {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let out = CALLS.scope(calls.clone(), work).await;
    let calls = calls.lock().map(|c| c.clone()).unwrap_or_default();
    (out, calls)
}

/// Adds a call to the current scope, if there is one.
pub(crate) fn record(call: MeteredCall) {
    let _ = CALLS.try_with(|calls| {
        if let Ok(mut c) = calls.lock() {
            c.push(call);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(model: &str) -> MeteredCall {
        MeteredCall {
            model: model.into(),
            prompt_tokens: 1,
            completion_tokens: 1,
            cost_usd: None,
            latency_ms: 0,
        }
    }

    #[tokio::test]
    async fn scopes_are_separate_and_outside_calls_are_ignored() {
        record(call("outside"));
        let (_, a) = metered(async { record(call("a")) }).await;
        let (_, b) = metered(async {
            record(call("b1"));
            record(call("b2"));
        })
        .await;
        assert_eq!(a.iter().map(|c| c.model.as_str()).collect::<Vec<_>>(), ["a"]);
        assert_eq!(b.len(), 2);
    }
}
