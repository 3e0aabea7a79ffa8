//! Who refused the agent's model request: the provider, or the sandbox's network policy.
//!
//! The egress proxy answers a denied `CONNECT` with 403, which the agent host reports like a
//! provider's own 403 (`providers::refusal`). This runner wrapper looks at the case's egress
//! denials when a turn fails with such a refusal, so the INFRA_ERROR (and the one `InfraError`
//! event the conversation writes) says "blocked by the sandbox network policy" only when the
//! proxy denied the provider's endpoint, and "refused the credential" only when it did not.

use futures::future::BoxFuture;

use crate::run::agents::runner::{AgentRunner, RunnerError, TurnOutput};

/// The `(host, port)` pairs the case's egress proxy has denied so far.
pub(crate) type DeniedEndpoints<'e> = &'e (dyn Fn() -> Vec<(String, u16)> + Send + Sync);

/// An agent runner whose refused model requests are attributed using the egress denials.
pub(crate) struct AttributedRefusals<'e> {
    inner: Box<dyn AgentRunner>,
    denied: DeniedEndpoints<'e>,
}

impl<'e> AttributedRefusals<'e> {
    pub(crate) fn new(inner: Box<dyn AgentRunner>, denied: DeniedEndpoints<'e>) -> Self {
        AttributedRefusals { inner, denied }
    }
}

impl AgentRunner for AttributedRefusals<'_> {
    fn label(&self) -> String {
        self.inner.label()
    }

    fn turn<'a>(&'a mut self, turn: u32, message: &'a str) -> BoxFuture<'a, Result<TurnOutput, RunnerError>> {
        Box::pin(async move {
            match self.inner.turn(turn, message).await {
                Err(RunnerError::ProviderRefused(mut refusal)) => {
                    refusal.attribute(&(self.denied)());
                    Err(RunnerError::ProviderRefused(refusal))
                }
                other => other,
            }
        })
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::agents::opencode_events::parse_opencode_events;

    /// Replays one recorded OpenCode turn.
    struct Recorded(&'static str);

    impl AgentRunner for Recorded {
        fn label(&self) -> String {
            "recorded".into()
        }
        fn turn<'a>(&'a mut self, _: u32, _: &'a str) -> BoxFuture<'a, Result<TurnOutput, RunnerError>> {
            let path = format!("{}/tests/fixtures/opencode/{}", env!("CARGO_MANIFEST_DIR"), self.0);
            let stdout = std::fs::read_to_string(path).unwrap();
            Box::pin(async move { parse_opencode_events(&stdout).into_result() })
        }
        fn close(&mut self) -> BoxFuture<'_, ()> {
            Box::pin(async {})
        }
    }

    async fn reason(fixture: &'static str, denied: Vec<(String, u16)>) -> String {
        let denied = move || denied.clone();
        let mut runner = AttributedRefusals::new(Box::new(Recorded(fixture)), &denied);
        runner.turn(1, "hi").await.unwrap_err().to_string()
    }

    const DENIED_403: &str = "recorded_error_egress_denied_403.jsonl";

    #[tokio::test]
    async fn the_proxys_403_with_a_denial_in_the_log_is_the_network_policy() {
        let r = reason(DENIED_403, vec![("api.openai.com".into(), 443)]).await;
        assert!(
            r.contains("model provider `openai` (api.openai.com) was blocked by the sandbox network policy"),
            "{r}"
        );
        assert!(!r.contains("refused the credential"), "{r}");
    }

    #[tokio::test]
    async fn a_403_without_a_denial_of_that_host_is_the_providers_credential_refusal() {
        let r = reason(DENIED_403, vec![("registry.npmjs.org".into(), 443)]).await;
        assert!(
            r.contains("model provider `openai` (api.openai.com) answered HTTP 403")
                && r.contains("the provider refused the credential"),
            "{r}"
        );
        assert!(!r.contains("network policy"), "{r}");
    }

    #[tokio::test]
    async fn other_failures_pass_through_unchanged() {
        let r = reason("recorded_error_http400.jsonl", vec![("api.openai.com".into(), 443)]).await;
        assert!(r.contains("HTTP 400") && !r.contains("network policy"), "{r}");
    }
}
