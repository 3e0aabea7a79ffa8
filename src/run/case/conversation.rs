//! The turn loop: opening message, then agent answer ↔ simulated user until a stop condition
//! (user done, a scenario stop condition met, max turns, emulator broke character, agent host
//! or emulator failure).
//! Every step is a `RunEvent`.

use crate::judge::integrity_context;
use crate::judge::output_bound::{CASE_TEXT_LIMIT, bound_turn_text};
use crate::run::agents::runner::AgentRunner;
use crate::run::case::emulator::UserEmulator;
use crate::run::case::peer_faults::broken_mcp_server;
use crate::run::store::event_log::EventLog;
use crate::trial::case::{CaseSpec, Exchange};
use crate::trial::events::{RunEvent, StopReason};
use crate::trial::stop_conditions::{TurnCall, first_met};

use crate::sandbox::watch_exec::CommandLog;
pub use crate::trial::ConversationEnd;

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
    let mut history: Vec<Exchange> = Vec::new();
    let mut message = s.opening_message.clone();
    let mut answered = 0usize;
    for turn in 1..=s.max_turns.max(1) {
        let mut user_ms = 0;
        if turn > 1 {
            let started = std::time::Instant::now();
            let next = match emulator.next(case, &history).await {
                Ok(n) => n,
                Err(e) => return infra(log, "user emulator", e.to_string()),
            };
            // The emulator's own instructions, to catch a user reciting them.
            let instructions = crate::run::case::emulator::LlmEmulator::request(case, &history)
                .messages
                .first()
                .map(|m| m.content.clone())
                .unwrap_or_default();
            let broke = integrity_context::check_turn(&next.message, next.done, case, &history, &instructions);
            if let Some(b) = broke {
                log.emit(RunEvent::EmulatorBreak {
                    turn,
                    kind: b.kind.into(),
                    evidence: b.evidence.clone(),
                })?;
                log.emit(RunEvent::Stopped {
                    reason: StopReason::EmulatorBroke,
                    detail: b.kind.into(),
                })?;
                return Ok(ConversationEnd::EmulatorBroke {
                    kind: b.kind.into(),
                    evidence: b.evidence,
                });
            }
            if let Some(about) = &next.refused {
                log.emit(RunEvent::UserRefusal {
                    turn,
                    about: about.clone(),
                })?;
            }
            if let Some(about) = &next.confirmed {
                log.emit(RunEvent::UserConfirmation {
                    turn,
                    about: about.clone(),
                })?;
            }
            if let Some(index) = next.met_condition {
                let condition = s.stop_conditions.get(index).cloned().unwrap_or_default();
                return stop_condition(log, index, &condition, "the simulated user saw it");
            }
            if next.done {
                // Giving up ends the case but is never success (`judge::case_verdict`).
                let reason = if next.gave_up {
                    StopReason::UserGaveUp
                } else {
                    StopReason::UserDone
                };
                log.emit(RunEvent::Stopped {
                    reason,
                    detail: next.message.clone(),
                })?;
                return Ok(ConversationEnd::Completed(reason));
            }
            message = next.message;
            user_ms = started.elapsed().as_millis() as u64;
            // What the last turn left running started before this user turn (and before any
            // confirmation it holds), so it is that turn's.
            record_programs(log, turn - 1, programs())?;
            log.emit(RunEvent::UserMessage {
                turn,
                text: message.clone(),
                latency_ms: user_ms,
            })?;
        } else {
            log.emit(RunEvent::UserMessage {
                turn,
                text: message.clone(),
                latency_ms: 0,
            })?;
        }
        let agent_started = std::time::Instant::now();
        let mut out = match runner.turn(turn, &message).await {
            Ok(o) => o,
            Err(e) => {
                record_programs(log, turn, programs())?;
                return infra(log, "agent host", e.to_string());
            }
        };
        let agent_ms = agent_started.elapsed().as_millis() as u64;
        bound_turn_text(&mut out.text);
        answered += out.text.chars().count();
        for call in &out.tool_calls {
            log.emit(RunEvent::ToolCall {
                turn,
                call_id: call.call_id.clone(),
                tool: call.tool.clone(),
                arguments: call.arguments.clone(),
                result: call.result.clone(),
                status: call.status,
                latency_ms: call.latency_ms,
            })?;
        }
        record_programs(log, turn, programs())?;
        log.emit(RunEvent::AgentMessage {
            turn,
            text: out.text.clone(),
            latency_ms: out.latency_ms,
            tokens: out.tokens,
            cost_usd: out.cost_usd,
        })?;
        log.emit(RunEvent::TurnTiming {
            turn,
            user_ms,
            agent_ms,
            tools_ms: out.tool_calls.iter().map(|c| c.latency_ms).sum(),
            start_ms: out.start_ms,
        })?;
        if let Some((component, reason)) = broken_mcp_server(&out.tool_calls, mcp_servers) {
            return infra(log, &component, reason);
        }
        if answered > CASE_TEXT_LIMIT {
            // The agent's own behaviour: judged, and failed by `output_within_bound`.
            log.emit(RunEvent::Stopped {
                reason: StopReason::AgentError,
                detail: format!("the agent's answers passed the bound of {CASE_TEXT_LIMIT} characters per case"),
            })?;
            return Ok(ConversationEnd::Completed(StopReason::AgentError));
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
        if let Some((index, condition)) = first_met(&s.stop_conditions, &out.text, &calls) {
            return stop_condition(log, index, condition, &format!("seen in turn {turn}"));
        }
        history.push(Exchange {
            turn,
            user: message.clone(),
            agent: out.text,
            tools: out.tool_calls.iter().map(|c| c.tool.clone()).collect(),
        });
    }
    log.emit(RunEvent::Stopped {
        reason: StopReason::MaxTurns,
        detail: format!("{} turns", s.max_turns),
    })?;
    Ok(ConversationEnd::Completed(StopReason::MaxTurns))
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
