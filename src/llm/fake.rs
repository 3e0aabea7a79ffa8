//! `FakeLlm`: a test double that answers from a queue and records what it was asked.
//!
//! For unit tests of code that takes an `Arc<dyn Llm>` (emulator, judge, proposers). It never
//! makes an answer up: when the queue is empty it fails with `NotInCassette`.

use std::collections::VecDeque;
use std::sync::Mutex;

use futures::future::BoxFuture;

use super::{ChatRequest, ChatResponse, Llm, LlmError, Usage};

/// Answers (or errors) handed out in order; requests kept for assertions.
#[derive(Debug, Default)]
pub struct FakeLlm {
    answers: Mutex<VecDeque<Result<String, LlmError>>>,
    requests: Mutex<Vec<ChatRequest>>,
}

impl FakeLlm {
    /// A fake that will answer `answers` in order.
    pub fn new<I, S>(answers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        FakeLlm {
            answers: Mutex::new(answers.into_iter().map(|a| Ok(a.into())).collect()),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// Queues one more outcome (an answer or an error).
    pub fn push(&self, outcome: Result<String, LlmError>) {
        if let Ok(mut q) = self.answers.lock() {
            q.push_back(outcome);
        }
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Llm for FakeLlm {
    fn label(&self) -> String {
        "fake".into()
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            if let Ok(mut r) = self.requests.lock() {
                r.push(request.clone());
            }
            let next = self.answers.lock().ok().and_then(|mut q| q.pop_front());
            let content = match next {
                Some(outcome) => outcome?,
                None => {
                    return Err(LlmError::NotInCassette {
                        summary: format!(
                            "FakeLlm has no answer left for: {}",
                            super::cassette::summarize(request, "fake")
                        ),
                    });
                }
            };
            Ok(ChatResponse {
                content,
                model: request.model.clone().unwrap_or_else(|| "fake".into()),
                usage: Usage::default(),
                latency_ms: 0,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{ChatMessage, Role};

    #[tokio::test]
    async fn answers_in_order_then_refuses() {
        let fake = FakeLlm::new(["one"]);
        fake.push(Err(LlmError::Timeout { seconds: 1 }));
        let req = ChatRequest {
            messages: vec![ChatMessage::new(Role::User, "q")],
            ..Default::default()
        };
        assert_eq!(fake.chat(&req).await.unwrap().content, "one");
        assert_eq!(fake.chat(&req).await, Err(LlmError::Timeout { seconds: 1 }));
        assert!(matches!(fake.chat(&req).await, Err(LlmError::NotInCassette { .. })));
        assert_eq!(fake.requests().len(), 3);
    }
}
