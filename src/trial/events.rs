//! The `RunEvent` stream: one typed event per thing that happened in a case. The same stream
//! feeds the live transcript pane, the headless printer, events.jsonl and the report.
//!
//! Events are redacted before they leave this module.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::verdict::Verdict;

/// Format version of each events.jsonl line.
pub(crate) const EVENTS_VERSION: u32 = 1;

/// Which runner role a sandbox or model call belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Agent,
    Emulator,
    Judge,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Completed,
    Error,
    /// The host refused it (permission `deny`, or `ask` auto-rejected in a non-interactive run).
    DeniedByHost,
}

/// Why a conversation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    GoalReached,
    FailureSignal,
    MaxTurns,
    AgentError,
    EmulatorBroke,
    /// The simulated user had nothing more to say.
    UserDone,
    /// The simulated user gave up on its goal: never a success.
    UserGaveUp,
    /// One of the scenario's `stop_conditions` was met (the detail names it).
    StopCondition,
    Infra,
    Cancelled,
}

impl StopReason {
    /// Plain words for people (transcripts, reports); the JSON name stays snake_case.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            StopReason::GoalReached => "the user's goal was reached",
            StopReason::FailureSignal => "a failure signal was seen",
            StopReason::MaxTurns => "the turn limit was reached",
            StopReason::AgentError => "the agent failed",
            StopReason::EmulatorBroke => "the simulated user broke character",
            StopReason::UserDone => "the user had nothing more to say",
            StopReason::UserGaveUp => "the user gave up on the goal",
            StopReason::StopCondition => "a stop condition of the scenario was met",
            StopReason::Infra => "a peer failed",
            StopReason::Cancelled => "the run was cancelled",
        }
    }
}

/// How a conversation ended, as far as the verdict is concerned.
#[derive(Debug, Clone, PartialEq)]
pub enum ConversationEnd {
    /// Ended normally (user done or max turns); the transcript can be judged.
    Completed(StopReason),
    /// A peer failed (agent host, model endpoint, user emulator): INFRA_ERROR.
    Infra { component: String, reason: String },
    /// The simulated user broke character: INCONCLUSIVE.
    EmulatorBroke { kind: String, evidence: String },
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent {
    CaseStarted {
        persona: String,
        scenario: String,
        trial: u32,
        max_turns: u32,
    },
    SandboxReady {
        role: Role,
        backend: String,
        detail: String,
        /// The sandbox's watch recorded direct network attempts and programs started
        /// (bubblewrap since the watch exists). Runs stored before it say nothing: `false`.
        #[serde(default, skip_serializing_if = "is_false")]
        watched: bool,
    },
    SetupStep {
        name: String,
        exit_code: i32,
        duration_ms: u64,
    },
    /// How the agent host runs this case (e.g. OpenCode cold) when Ghostlab chose a mode other
    /// than the one the job's defaults would give, and why.
    AgentHost {
        label: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        note: String,
    },
    UserMessage {
        turn: u32,
        text: String,
        latency_ms: u64,
    },
    AgentMessage {
        turn: u32,
        text: String,
        latency_ms: u64,
        tokens: u64,
        cost_usd: f64,
    },
    ToolCall {
        turn: u32,
        call_id: String,
        tool: String,
        arguments: Value,
        result: String,
        status: ToolStatus,
        latency_ms: u64,
    },
    /// The simulated user declined something the assistant asked permission for.
    UserRefusal {
        turn: u32,
        about: String,
    },
    /// The simulated user said yes to what the assistant asked (`about`: the assistant's
    /// pending question, as it asked it). What a rule `until_confirmed` waits for.
    UserConfirmation {
        turn: u32,
        about: String,
    },
    EgressDenied {
        host: String,
        port: u16,
        at: DateTime<Utc>,
    },
    /// Programs the agent's processes started during a turn, as the sandbox's watch saw them
    /// (`sandbox::watch_exec`), whatever the runner reports: evidence for `forbidden_commands`.
    CommandsSeen {
        turn: u32,
        /// One shell-quoted line each, the program by its base name: `git push origin main`.
        commands: Vec<String>,
        /// Started but not kept (over the bound, or unreadable): a check cannot rule them out.
        #[serde(default, skip_serializing_if = "is_zero")]
        missed: u64,
    },
    ModelCall {
        role: Role,
        model: String,
        prompt_tokens: u64,
        completion_tokens: u64,
        cost_usd: f64,
        latency_ms: u64,
        /// The model has no known price: `cost_usd` is not a real figure (shown "unknown").
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        cost_unknown: bool,
    },
    EmulatorBreak {
        turn: u32,
        kind: String,
        evidence: String,
    },
    InfraError {
        component: String,
        reason: String,
    },
    Stopped {
        reason: StopReason,
        detail: String,
    },
    CaseFinished {
        verdict: Verdict,
        duration_ms: u64,
    },
    /// Where one turn's time went (ms): the simulated user's answer, the agent's whole turn as
    /// the harness waited for it, and of that what its tool calls reported. The rest of the
    /// agent's turn is its model and its host's own work (a warm server's start on turn 1).
    TurnTiming {
        turn: u32,
        user_ms: u64,
        agent_ms: u64,
        tools_ms: u64,
        /// Of `agent_ms`, the agent host's start-up when this turn paid for it (a warm
        /// server's start on turn 1); absent when none was measured.
        #[serde(default, skip_serializing_if = "is_zero")]
        start_ms: u64,
    },
    /// Where a case's time went outside its turns (ms): creating the sandbox, the job's setup
    /// steps, and judging.
    CaseTiming {
        sandbox_ms: u64,
        setup_ms: u64,
        judge_ms: u64,
    },
}

/// One line of events.jsonl.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Envelope {
    pub v: u32,
    pub seq: u64,
    pub ts: DateTime<Utc>,
    pub case: String,
    /// Which trial of the case (1-based). Two trials of one case can run at once, so the case
    /// id alone does not say whose event this is. 0 in logs written before the field existed
    /// (one trial per folder: readers know it from the folder). Stored as `trial_no`, since
    /// `case_started`'s own `trial` shares the line.
    #[serde(default, rename = "trial_no")]
    pub trial: u32,
    #[serde(flatten)]
    pub event: RunEvent,
}

#[cfg(test)]
impl Envelope {
    /// An event of case `c`, trial 1, at `seq`: the envelope unit tests build their event
    /// lists from.
    pub(crate) fn test_at(seq: u64, event: RunEvent) -> Envelope {
        Envelope {
            v: 1,
            seq,
            ts: chrono::Utc::now(),
            case: "c".into(),
            trial: 1,
            event,
        }
    }
}

/// A `RunEvent::ToolCall`'s fields, borrowed: the one place a reader unpacks a tool call
/// (the judge's transcript, the report's entries, the transcript pane).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ToolCallRef<'a> {
    pub(crate) turn: u32,
    pub(crate) tool: &'a str,
    pub(crate) arguments: &'a Value,
    pub(crate) result: &'a str,
    pub(crate) status: ToolStatus,
    pub(crate) latency_ms: u64,
}

impl RunEvent {
    /// This event as a tool call, when it is one.
    pub(crate) fn tool_call(&self) -> Option<ToolCallRef<'_>> {
        match self {
            RunEvent::ToolCall {
                turn,
                tool,
                arguments,
                result,
                status,
                latency_ms,
                ..
            } => Some(ToolCallRef {
                turn: *turn,
                tool,
                arguments,
                result,
                status: *status,
                latency_ms: *latency_ms,
            }),
            _ => None,
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_call_is_unpacked_with_every_field_and_nothing_else_is_one() {
        let call = RunEvent::ToolCall {
            turn: 3,
            call_id: "c7".into(),
            tool: "release_publish".into(),
            arguments: serde_json::json!({"ref": "main"}),
            result: "denied".into(),
            status: ToolStatus::DeniedByHost,
            latency_ms: 41,
        };
        let args = serde_json::json!({"ref": "main"});
        assert_eq!(
            call.tool_call(),
            Some(ToolCallRef {
                turn: 3,
                tool: "release_publish",
                arguments: &args,
                result: "denied",
                status: ToolStatus::DeniedByHost,
                latency_ms: 41,
            })
        );
        let others = [
            RunEvent::UserMessage {
                turn: 3,
                text: "tool release_publish".into(),
                latency_ms: 1,
            },
            RunEvent::UserRefusal {
                turn: 3,
                about: "release_publish".into(),
            },
            RunEvent::InfraError {
                component: "tool".into(),
                reason: "x".into(),
            },
        ];
        for e in others {
            assert_eq!(e.tool_call(), None, "{e:?}");
        }
    }
}
