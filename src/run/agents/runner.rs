//! The agent-runner contract: one conversation turn in, the agent's answer and tool calls out.
//!
//! A runner never decides a verdict. It reports what happened; an agent-host failure is a
//! `RunnerError` (INFRA_ERROR upstream), distinct from an agent that answered badly.

use futures::future::BoxFuture;
use serde_json::Value;

use crate::trial::events::ToolStatus;

/// One tool call the agent made during a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRecord {
    pub call_id: String,
    pub tool: String,
    pub arguments: Value,
    pub result: String,
    pub status: ToolStatus,
    pub latency_ms: u64,
}

/// What one turn produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TurnOutput {
    /// The agent's final text for this turn.
    pub text: String,
    pub tool_calls: Vec<ToolCallRecord>,
    pub tokens: u64,
    pub cost_usd: f64,
    pub latency_ms: u64,
    /// Of this turn's time, what the agent host's start-up took when this turn paid for it
    /// (0 when none, or not told apart from the turn as in a cold start).
    pub start_ms: u64,
    /// Raw stderr lines worth keeping for debugging (already bounded).
    pub diagnostics: Vec<String>,
}

/// Why a turn could not be completed. Always an infrastructure problem, never a verdict.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunnerError {
    #[error("the agent host could not start: {0}")]
    Start(String),
    #[error("the agent host exited with code {code}: {detail}")]
    Crashed { code: i32, detail: String },
    #[error("the agent's model endpoint failed: {0}")]
    ModelEndpoint(String),
    /// A model request refused with 401/403, by the provider or by the sandbox's egress policy.
    #[error("the agent's model endpoint failed: {0}")]
    ProviderRefused(crate::providers::refusal::ProviderRefusal),
    #[error("the turn did not finish within {seconds} s")]
    Timeout { seconds: u64 },
    #[error("the agent host's output could not be read: {0}")]
    Protocol(String),
}

/// Drives one agent session turn by turn.
pub trait AgentRunner: Send {
    /// A label for logs and reports (`opencode (cold)`, `mock`).
    fn label(&self) -> String;

    /// Sends one user message and waits for the agent's whole answer.
    fn turn<'a>(&'a mut self, turn: u32, message: &'a str) -> BoxFuture<'a, Result<TurnOutput, RunnerError>>;

    /// Ends the session (stops servers it started).
    fn close(&mut self) -> BoxFuture<'_, ()>;
}
