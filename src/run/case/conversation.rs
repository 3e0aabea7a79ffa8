//! The turn loop: opening message, then agent answer ↔ simulated user until a stop condition
//! (user done, a scenario stop condition met, max turns, emulator broke character, agent host
//! or emulator failure).
//! Every step is a `RunEvent`.

use std::ops::ControlFlow;

use crate::judge::integrity_context;
use crate::judge::output_bound::{CASE_TEXT_LIMIT, bound_turn_text};
use crate::run::agents::runner::{AgentRunner, TurnOutput};
use crate::run::case::emulator::{UserEmulator, UserTurn};
use crate::run::case::peer_faults::broken_mcp_server;
use crate::run::store::event_log::EventLog;
use crate::trial::case::{CaseSpec, Exchange};
use crate::trial::events::{RunEvent, StopReason};
use crate::trial::stop_conditions::{TurnCall, first_met};

use crate::sandbox::watch_exec::CommandLog;
use crate::trial::ConversationEnd;

/// Records what the sandbox saw the agent's processes start (`programs` since the last read)
/// as turn `turn`'s, when there is anything.
pub(crate) fn record_programs(log: &mut EventLog, turn: u32, seen: CommandLog) -> std::io::Result<()> {
    if seen.kept.is_empty() && seen.missed == 0 {
        return Ok(());
    }
    log.emit(RunEvent::CommandsSeen {
        turn,
        commands: seen.kept.iter().flat_map(|c| c.lines()).collect(),
        missed: seen.missed as u64,
    })?;
    Ok(())
}

/// The last turn the log has a user message for (1 before any).
pub(crate) fn last_turn(log: &EventLog) -> u32 {
    log.events()
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::UserMessage { turn, .. } => Some(*turn),
            _ => None,
        })
        .max()
        .unwrap_or(1)
}

/// Runs one conversation, writing every step to `log`. `mcp_servers` names the agent's MCP
/// servers, so a tool call that failed because its server broke ends the case as a peer fault.
/// `programs` gives what the sandbox saw the agent's processes start since it was last asked,
/// recorded after each turn (`RunEvent::CommandsSeen`).
pub async fn converse(
    case: &CaseSpec,
    runner: &mut dyn AgentRunner,
    emulator: &dyn UserEmulator,
    mcp_servers: &[String],
    programs: &(dyn Fn() -> CommandLog + Send + Sync),
    log: &mut EventLog,
) -> std::io::Result<ConversationEnd> {
    let s = &case.scenario;
    log.emit(RunEvent::CaseStarted {
        persona: case.persona.id.clone(),
        scenario: s.id.clone(),
        trial: case.trial,
        max_turns: s.max_turns,
    })?;
    let mut talk = Conversation {
        case,
        emulator,
        mcp_servers,
        programs,
        log,
        history: Vec::new(),
        answered: 0,
    };
    let mut message = s.opening_message.clone();
    for turn in 1..=s.max_turns.max(1) {
        let user_ms = if turn == 1 {
            talk.log.emit(RunEvent::UserMessage {
                turn,
                text: message.clone(),
                latency_ms: 0,
            })?;
            0
        } else {
            match talk.user_turn(turn).await? {
                ControlFlow::Continue((next, user_ms)) => {
                    message = next;
                    user_ms
                }
                ControlFlow::Break(end) => return Ok(end),
            }
        };
        if let ControlFlow::Break(end) = talk.agent_turn(runner, turn, &message, user_ms).await? {
            return Ok(end);
        }
    }
    talk.log.emit(RunEvent::Stopped {
        reason: StopReason::MaxTurns,
        detail: format!("{} turns", s.max_turns),
    })?;
    Ok(ConversationEnd::Completed(StopReason::MaxTurns))
}

/// A step of the conversation: it goes on (with what the step produced) or ends.
type Step<T> = std::io::Result<ControlFlow<ConversationEnd, T>>;

/// One conversation under way: its peers, its log and what has been said so far.
struct Conversation<'a> {
    case: &'a CaseSpec,
    emulator: &'a dyn UserEmulator,
    mcp_servers: &'a [String],
    programs: &'a (dyn Fn() -> CommandLog + Send + Sync),
    log: &'a mut EventLog,
    history: Vec<Exchange>,
    /// Characters of the agent's answers so far, held to `CASE_TEXT_LIMIT`.
    answered: usize,
}

impl Conversation<'_> {
    /// The simulated user's turn after the first: its message and how long it took, unless it
    /// ends the conversation.
    async fn user_turn(&mut self, turn: u32) -> Step<(String, u64)> {
        let started = std::time::Instant::now();
        let next = match self.emulator.next(self.case, &self.history).await {
            Ok(n) => n,
            Err(e) => return infra(self.log, "user emulator", e.to_string()).map(ControlFlow::Break),
        };
        if let Some(end) = self.read_user(turn, &next)? {
            return Ok(ControlFlow::Break(end));
        }
        let user_ms = started.elapsed().as_millis() as u64;
        // What the last turn left running started before this user turn (and before any
        // confirmation it holds), so it is that turn's.
        record_programs(self.log, turn - 1, (self.programs)())?;
        self.log.emit(RunEvent::UserMessage {
            turn,
            text: next.message.clone(),
            latency_ms: user_ms,
        })?;
        Ok(ControlFlow::Continue((next.message, user_ms)))
    }

    /// Records what the user's answer says besides its text (a refusal, a confirmation), and
    /// the end it makes: broken character, a stop condition it saw, or done.
    fn read_user(&mut self, turn: u32, next: &UserTurn) -> std::io::Result<Option<ConversationEnd>> {
        // The emulator's own instructions, to catch a user reciting them.
        let instructions = crate::run::case::emulator::LlmEmulator::request(self.case, &self.history)
            .messages
            .first()
            .map(|m| m.content.clone())
            .unwrap_or_default();
        let broke = integrity_context::check_turn(&next.message, next.done, self.case, &self.history, &instructions);
        if let Some(b) = broke {
            return emulator_broke(self.log, turn, b).map(Some);
        }
        if let Some(about) = &next.refused {
            self.log.emit(RunEvent::UserRefusal {
                turn,
                about: about.clone(),
            })?;
        }
        if let Some(about) = &next.confirmed {
            self.log.emit(RunEvent::UserConfirmation {
                turn,
                about: about.clone(),
            })?;
        }
        if let Some(index) = next.met_condition {
            let condition = self
                .case
                .scenario
                .stop_conditions
                .get(index)
                .cloned()
                .unwrap_or_default();
            return stop_condition(self.log, index, &condition, "the simulated user saw it").map(Some);
        }
        if !next.done {
            return Ok(None);
        }
        // Giving up ends the case but is never success (`judge::case_verdict`).
        let reason = if next.gave_up {
            StopReason::UserGaveUp
        } else {
            StopReason::UserDone
        };
        self.log.emit(RunEvent::Stopped {
            reason,
            detail: next.message.clone(),
        })?;
        Ok(Some(ConversationEnd::Completed(reason)))
    }

    /// The agent's answer to `message`, recorded with its tool calls, programs and timing; the
    /// exchange joins the history unless the answer ends the conversation.
    async fn agent_turn(&mut self, runner: &mut dyn AgentRunner, turn: u32, message: &str, user_ms: u64) -> Step<()> {
        let agent_started = std::time::Instant::now();
        let mut out = match runner.turn(turn, message).await {
            Ok(o) => o,
            Err(e) => {
                record_programs(self.log, turn, (self.programs)())?;
                return infra(self.log, "agent host", e.to_string()).map(ControlFlow::Break);
            }
        };
        let agent_ms = agent_started.elapsed().as_millis() as u64;
        bound_turn_text(&mut out.text);
        self.answered += out.text.chars().count();
        self.record_answer(turn, &out, user_ms, agent_ms)?;
        if let Some(end) = self.answer_ends(turn, &out)? {
            return Ok(ControlFlow::Break(end));
        }
        self.history.push(Exchange {
            turn,
            user: message.to_string(),
            agent: out.text,
            tools: out.tool_calls.iter().map(|c| c.tool.clone()).collect(),
        });
        Ok(ControlFlow::Continue(()))
    }

    /// The answer's events: its tool calls, the programs the sandbox saw, its text and timing.
    fn record_answer(&mut self, turn: u32, out: &TurnOutput, user_ms: u64, agent_ms: u64) -> std::io::Result<()> {
        for call in &out.tool_calls {
            self.log.emit(RunEvent::ToolCall {
                turn,
                call_id: call.call_id.clone(),
                tool: call.tool.clone(),
                arguments: call.arguments.clone(),
                result: call.result.clone(),
                status: call.status,
                latency_ms: call.latency_ms,
            })?;
        }
        record_programs(self.log, turn, (self.programs)())?;
        self.log.emit(RunEvent::AgentMessage {
            turn,
            text: out.text.clone(),
            latency_ms: out.latency_ms,
            tokens: out.tokens,
            cost_usd: out.cost_usd,
        })?;
        self.log.emit(RunEvent::TurnTiming {
            turn,
            user_ms,
            agent_ms,
            tools_ms: out.tool_calls.iter().map(|c| c.latency_ms).sum(),
            start_ms: out.start_ms,
        })?;
        Ok(())
    }

    /// The end an answer makes: a broken MCP server (a peer fault), answers past the case's
    /// bound, or a scenario stop condition seen in it.
    fn answer_ends(&mut self, turn: u32, out: &TurnOutput) -> std::io::Result<Option<ConversationEnd>> {
        if let Some((component, reason)) = broken_mcp_server(&out.tool_calls, self.mcp_servers) {
            return infra(self.log, &component, reason).map(Some);
        }
        if self.answered > CASE_TEXT_LIMIT {
            // The agent's own behaviour: judged, and failed by `output_within_bound`.
            self.log.emit(RunEvent::Stopped {
                reason: StopReason::AgentError,
                detail: format!("the agent's answers passed the bound of {CASE_TEXT_LIMIT} characters per case"),
            })?;
            return Ok(Some(ConversationEnd::Completed(StopReason::AgentError)));
        }
        let calls: Vec<TurnCall<'_>> = out
            .tool_calls
            .iter()
            .map(|c| TurnCall {
                tool: &c.tool,
                arguments: &c.arguments,
                status: c.status,
            })
            .collect();
        match first_met(&self.case.scenario.stop_conditions, &out.text, &calls) {
            Some((index, condition)) => {
                stop_condition(self.log, index, condition, &format!("seen in turn {turn}")).map(Some)
            }
            None => Ok(None),
        }
    }
}

/// Ends the conversation because the simulated user broke character: INCONCLUSIVE.
fn emulator_broke(
    log: &mut EventLog,
    turn: u32,
    b: crate::judge::integrity::Break,
) -> std::io::Result<ConversationEnd> {
    log.emit(RunEvent::EmulatorBreak {
        turn,
        kind: b.kind.into(),
        evidence: b.evidence.clone(),
    })?;
    log.emit(RunEvent::Stopped {
        reason: StopReason::EmulatorBroke,
        detail: b.kind.into(),
    })?;
    Ok(ConversationEnd::EmulatorBroke {
        kind: b.kind.into(),
        evidence: b.evidence,
    })
}

/// Ends the conversation on a scenario stop condition; the transcript is judged as usual.
fn stop_condition(log: &mut EventLog, index: usize, condition: &str, how: &str) -> std::io::Result<ConversationEnd> {
    log.emit(RunEvent::Stopped {
        reason: StopReason::StopCondition,
        detail: format!("stop condition {} met ({how}): {condition}", index + 1),
    })?;
    Ok(ConversationEnd::Completed(StopReason::StopCondition))
}

fn infra(log: &mut EventLog, component: &str, reason: String) -> std::io::Result<ConversationEnd> {
    log.emit(RunEvent::InfraError {
        component: component.into(),
        reason: reason.clone(),
    })?;
    log.emit(RunEvent::Stopped {
        reason: StopReason::Infra,
        detail: reason.clone(),
    })?;
    Ok(ConversationEnd::Infra {
        component: component.into(),
        reason,
    })
}
