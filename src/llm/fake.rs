//! `FakeLlm`: the one test double for a model. It answers from a queue, or through a function
//! of the request, and records what it was asked.
//!
//! For tests of code that takes an `Arc<dyn Llm>` (emulator, judge, proposers, the suite). It
//! never makes an answer up: when the queue is empty it fails with `NotInCassette`, or with the
//! error it was told to give.

use std::collections::VecDeque;
use std::sync::Mutex;

use futures::future::BoxFuture;

use super::{ChatRequest, ChatResponse, Llm, LlmError, Usage};

type Responder = Box<dyn Fn(&ChatRequest) -> Result<String, LlmError> + Send + Sync>;

/// Answers (or errors) handed out in order, or computed per request.
pub struct FakeLlm {
    label: String,
    answers: Mutex<VecDeque<Result<String, LlmError>>>,
    responder: Option<Responder>,
    when_exhausted: Option<LlmError>,
    latency_ms: u64,
}

impl Default for FakeLlm {
    fn default() -> Self {
        FakeLlm {
            label: "fake".into(),
            answers: Mutex::default(),
            responder: None,
            when_exhausted: None,
            latency_ms: 0,
        }
    }
}

impl std::fmt::Debug for FakeLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeLlm")
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

impl FakeLlm {
    /// A fake that will answer `answers` in order.
    pub fn new<I, S>(answers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::scripted(answers.into_iter().map(|a| Ok(a.into())))
    }

    /// A fake that hands out these answers and errors in order.
    pub fn scripted(outcomes: impl IntoIterator<Item = Result<String, LlmError>>) -> Self {
        FakeLlm {
            answers: Mutex::new(outcomes.into_iter().collect()),
            ..Default::default()
        }
    }

    /// A fake whose answer is a function of the request (a judge that upholds whatever it is
    /// asked, say).
    pub fn answering(f: impl Fn(&ChatRequest) -> Result<String, LlmError> + Send + Sync + 'static) -> Self {
        FakeLlm {
            responder: Some(Box::new(f)),
            ..Default::default()
        }
    }

    /// The label recorded where the model is named (verdict files, reports).
    pub fn labelled(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// The latency every answer reports.
    pub fn with_latency_ms(mut self, ms: u64) -> Self {
        self.latency_ms = ms;
        self
    }

    /// The error once the queue is empty (instead of `NotInCassette`).
    pub fn when_exhausted(mut self, error: LlmError) -> Self {
        self.when_exhausted = Some(error);
        self
    }

    fn next(&self, request: &ChatRequest) -> Result<String, LlmError> {
        if let Some(f) = &self.responder {
            return f(request);
        }
        match self.answers.lock().ok().and_then(|mut q| q.pop_front()) {
            Some(outcome) => outcome,
            None => Err(self.when_exhausted.clone().unwrap_or_else(|| LlmError::NotInCassette {
                summary: format!(
                    "FakeLlm has no answer left for: {}",
                    super::cassette::summarize(request, "fake")
                ),
            })),
        }
    }
}

impl Llm for FakeLlm {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            let content = self.next(request)?;
            Ok(ChatResponse {
                content,
                model: request.model.clone().unwrap_or_else(|| "fake".into()),
                usage: Usage::default(),
                latency_ms: self.latency_ms,
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
        let fake = FakeLlm::scripted([Ok("one".to_string()), Err(LlmError::Timeout { seconds: 1 })]);
        let req = ChatRequest {
            messages: vec![ChatMessage::new(Role::User, "q")],
            ..Default::default()
        };
        assert_eq!(fake.chat(&req).await.unwrap().content, "one");
        assert_eq!(fake.chat(&req).await, Err(LlmError::Timeout { seconds: 1 }));
        assert!(matches!(fake.chat(&req).await, Err(LlmError::NotInCassette { .. })));
    }
}
