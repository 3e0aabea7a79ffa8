//! Puts a price on every call: tokens × the catalog price of the role's model, unless the
//! provider reported a cost itself. Without a known price the cost stays `None` ("unknown"),
//! never zero.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::catalog::Price;
use super::{ChatRequest, ChatResponse, Llm, LlmError};

/// A model whose answers carry their cost.
pub(crate) struct PricedLlm {
    inner: Arc<dyn Llm>,
    price: Option<Price>,
}

impl PricedLlm {
    pub(crate) fn new(inner: Arc<dyn Llm>, price: Option<Price>) -> Self {
        PricedLlm { inner, price }
    }
}

impl Llm for PricedLlm {
    fn label(&self) -> String {
        self.inner.label()
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            let mut response = self.inner.chat(request).await?;
            if response.usage.cost_usd.is_none()
                && let Some(p) = self.price
            {
                response.usage.cost_usd = Some(p.cost(response.usage.prompt_tokens, response.usage.completion_tokens));
            }
            super::meter::record(super::meter::MeteredCall {
                model: self.inner.label(),
                prompt_tokens: response.usage.prompt_tokens,
                completion_tokens: response.usage.completion_tokens,
                cost_usd: response.usage.cost_usd,
                latency_ms: response.latency_ms,
            });
            Ok(response)
        })
    }
}
