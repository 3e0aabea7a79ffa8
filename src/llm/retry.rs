//! Retry budget and backoff for model calls: exponential growth, a cap, and jitter.
//!
//! Only transient failures (429, 5xx, timeouts, connection resets, cut streams) are retried;
//! this module never decides *what* is transient, it only says how long to wait.

use std::time::Duration;

/// How many attempts a call gets and how long to wait between them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Total attempts including the first (at least 1).
    pub(crate) max_attempts: u32,
    /// Delay before the second attempt; doubles after each further failure.
    pub(crate) base_delay: Duration,
    /// Upper bound for any single delay, including a server's `Retry-After`.
    pub(crate) max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
        }
    }
}

impl RetryPolicy {
    /// A tiny budget for tests: `attempts` tries, millisecond delays.
    pub fn quick(attempts: u32) -> Self {
        RetryPolicy {
            max_attempts: attempts.max(1),
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(40),
        }
    }

    /// Delay after failed attempt number `attempt` (1-based). Jitter picks a value between half
    /// and all of the exponential step so that many clients do not retry in lockstep.
    pub(crate) fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(server_says) = retry_after {
            return server_says.min(self.max_delay);
        }
        let exp = attempt.saturating_sub(1).min(20);
        let step = self.base_delay.saturating_mul(1u32 << exp).min(self.max_delay);
        let half = step / 2;
        let jitter_ms = rand::random_range(0..=half.as_millis().max(1) as u64);
        (half + Duration::from_millis(jitter_ms)).min(self.max_delay)
    }
}

/// Runs `attempt` under `policy`, each try bounded by `timeout`: every HTTP provider shares these
/// rules. Out of budget gives `Timeout` when the last try timed out, else `Unavailable`.
pub(crate) async fn with_retries<T, F, Fut>(
    policy: RetryPolicy,
    timeout: Duration,
    label: &str,
    mut attempt: F,
) -> Result<T, super::LlmError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, super::http_attempt::AttemptError>>,
{
    use super::http_attempt::AttemptError;
    let mut last_reason = String::new();
    let mut last_was_timeout = false;
    for n in 1..=policy.max_attempts.max(1) {
        let retry_after = match tokio::time::timeout(timeout, attempt()).await {
            Ok(Ok(answer)) => return Ok(answer),
            Ok(Err(AttemptError::Fatal(e))) => return Err(e),
            Ok(Err(AttemptError::Retryable { reason, retry_after })) => {
                last_was_timeout = false;
                last_reason = reason;
                retry_after
            }
            Err(_) => {
                last_was_timeout = true;
                last_reason = format!("no complete answer within {} ms", timeout.as_millis());
                None
            }
        };
        tracing::warn!(provider = %label, attempt = n, reason = %last_reason, "model call failed");
        if n < policy.max_attempts {
            tokio::time::sleep(policy.delay(n, retry_after)).await;
        }
    }
    if last_was_timeout {
        Err(super::LlmError::Timeout {
            seconds: timeout.as_secs_f64().ceil() as u64,
        })
    } else {
        Err(super::LlmError::Unavailable {
            attempts: policy.max_attempts.max(1),
            reason: last_reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_and_stay_capped() {
        let p = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
        };
        for _ in 0..50 {
            let d1 = p.delay(1, None);
            assert!(
                d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100),
                "{d1:?}"
            );
            let d3 = p.delay(3, None);
            assert!(
                d3 >= Duration::from_millis(200) && d3 <= Duration::from_millis(400),
                "{d3:?}"
            );
            assert!(p.delay(9, None) <= Duration::from_millis(1000));
        }
        assert_eq!(p.delay(1, Some(Duration::from_secs(60))), Duration::from_millis(1000));
    }
}
