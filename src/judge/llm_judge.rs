//! The judge: one answer per success criterion and failure signal, each citing the events it
//! rests on. Citations must exist; an answer without valid evidence counts as unanswered.
//!
//! The offline judge cannot judge meaning, so every criterion stays unanswered and the case
//! becomes INCONCLUSIVE unless a model judge is configured.

use futures::future::BoxFuture;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::Arc;

use super::citations::{ShownEvent, shown_events, verify};
use super::verdict::{Answer, CriterionKind, CriterionResult};
use crate::llm::{ChatMessage, ChatRequest, JsonSchemaSpec, Llm, LlmError, Role};
use crate::trial::CaseSpec;
use crate::trial::{Envelope, RunEvent, StopReason};

/// Judges criteria from a transcript. An `Err` is a judge outage (INFRA_ERROR).
/// What a judge answers, in time: one result per criterion, or why it could not answer.
pub(crate) type JudgeAnswer<'a> = BoxFuture<'a, Result<Vec<CriterionResult>, LlmError>>;

pub trait Judge: Send + Sync {
    fn label(&self) -> String;
    fn judge<'a>(&'a self, case: &'a CaseSpec, events: &'a [Envelope]) -> JudgeAnswer<'a>;
}

pub struct OfflineJudge;

impl Judge for OfflineJudge {
    fn label(&self) -> String {
        "offline".into()
    }

    fn judge<'a>(&'a self, case: &'a CaseSpec, _events: &'a [Envelope]) -> JudgeAnswer<'a> {
        Box::pin(async move {
            Ok(case
                .criterion_ids()
                .into_iter()
                .map(|(id, kind, text)| CriterionResult {
                    id,
                    kind,
                    text,
                    answer: Answer::Unanswered {
                        reason: "the offline judge cannot judge meaning; configure generation.judge with a model"
                            .into(),
                    },
                    by_evidence: false,
                })
                .collect())
        })
    }
}

pub struct LlmJudge {
    llm: Arc<dyn Llm>,
}

#[derive(Deserialize)]
struct Verdicts {
    criteria: Vec<RawAnswer>,
}

#[derive(Deserialize)]
struct RawAnswer {
    id: String,
    /// `yes` / `no` / `unknown`: is the criterion met (success) or the signal observed (failure)?
    holds: String,
    #[serde(default)]
    evidence: Vec<String>,
    #[serde(default)]
    rationale: String,
}

impl LlmJudge {
    pub fn new(llm: Arc<dyn Llm>) -> Self {
        LlmJudge { llm }
    }

    /// The judge's request; public so recorded cassettes can be built and inspected.
    pub(crate) fn request(case: &CaseSpec, events: &[Envelope]) -> ChatRequest {
        let mut criteria = String::new();
        for (id, kind, text) in case.criterion_ids() {
            let q = match kind {
                CriterionKind::Success => "met?",
                CriterionKind::FailureSignal => "observed?",
            };
            criteria.push_str(&format!("- {id} ({q}) {text}\n"));
        }
        let system = "You judge a conversation between a user and an AI agent. For every criterion \
                      answer `holds`: yes, no or unknown, cite the event ids (like e7) that show it, \
                      each optionally with a short verbatim quote (e7: \"exact words\"); cite events \
                      of the agent, not only the user's words, and only those that show it; and give a one-sentence rationale. Use only what the transcript shows. \
                      Answer every criterion id exactly once. Reply with JSON only.";
        let exercises = if case.scenario.exercises.is_empty() {
            String::new()
        } else {
            format!(
                "Tools the scenario was written to exercise: {}\n",
                case.scenario.exercises.join(", ")
            )
        };
        let user = format!(
            "Goal of the user: {}\n{exercises}\nTranscript:\n{}\nCriteria:\n{criteria}",
            case.scenario.goal,
            transcript(events)
        );
        let schema = serde_json::json!({
            "type": "object", "required": ["criteria"], "additionalProperties": false,
            "properties": {"criteria": {"type": "array", "items": {
                "type": "object", "required": ["id", "holds", "evidence", "rationale"], "additionalProperties": false,
                "properties": {
                    "id": {"type": "string"},
                    "holds": {"enum": ["yes", "no", "unknown"]},
                    "evidence": {"type": "array", "items": {"type": "string"}},
                    "rationale": {"type": "string"}
                }}}}
        });
        ChatRequest {
            messages: vec![
                ChatMessage::new(Role::System, system),
                ChatMessage::new(Role::User, user),
            ],
            temperature: Some(0.0),
            json_schema: Some(JsonSchemaSpec {
                name: "judgement".into(),
                schema,
            }),
            ..ChatRequest::default()
        }
    }
}

impl Judge for LlmJudge {
    fn label(&self) -> String {
        self.llm.label()
    }

    fn judge<'a>(&'a self, case: &'a CaseSpec, events: &'a [Envelope]) -> JudgeAnswer<'a> {
        Box::pin(async move {
            let response = self.llm.chat(&Self::request(case, events)).await?;
            if response.content.len() > MAX_JUDGEMENT_BYTES {
                return Err(LlmError::Malformed {
                    detail: format!(
                        "the judge's answer is {} bytes, over the bound of {MAX_JUDGEMENT_BYTES}",
                        response.content.len()
                    ),
                });
            }
            let parsed: Verdicts = serde_json::from_str(response.content.trim()).map_err(|e| LlmError::Malformed {
                detail: format!("the judge's answer is not the expected JSON: {e}"),
            })?;
            // Only events the judge was shown can be cited (not sandbox or setup events).
            let shown = shown_events(events, transcript_line);
            Ok(orient(case, parsed.criteria, &shown))
        })
    }
}

/// Maps raw answers onto the case's criteria; missing, duplicated, unknown-id or
/// uncited answers become `Unanswered`.
fn orient(case: &CaseSpec, raw: Vec<RawAnswer>, shown: &HashMap<String, ShownEvent>) -> Vec<CriterionResult> {
    case.criterion_ids()
        .into_iter()
        .map(|(id, kind, text)| {
            let mine: Vec<&RawAnswer> = raw.iter().filter(|a| a.id == id).collect();
            let answer = match mine.as_slice() {
                [] => Answer::Unanswered {
                    reason: "the judge gave no answer".into(),
                },
                [a] => {
                    let rationale = bounded(&a.rationale);
                    match (a.holds.as_str(), verify(&a.evidence, shown)) {
                        ("unknown", _) => Answer::Unanswered {
                            reason: format!("the judge could not tell: {rationale}"),
                        },
                        ("yes" | "no", Err(why)) => Answer::Unanswered {
                            reason: why.to_string(),
                        },
                        ("yes", Ok(cited)) if kind == CriterionKind::Success => Answer::Upheld {
                            evidence: cited,
                            rationale,
                        },
                        ("no", Ok(cited)) if kind == CriterionKind::FailureSignal => Answer::Upheld {
                            evidence: cited,
                            rationale,
                        },
                        ("yes" | "no", Ok(cited)) => Answer::Violated {
                            evidence: cited,
                            rationale,
                        },
                        (other, _) => Answer::Unanswered {
                            reason: format!("the judge answered `{}`", bounded(other)),
                        },
                    }
                }
                _ => Answer::Unanswered {
                    reason: "the judge answered this criterion more than once".into(),
                },
            };
            CriterionResult {
                id,
                kind,
                text,
                answer,
                by_evidence: false,
            }
        })
        .collect()
}

/// Largest judge answer read; a bigger one is a faulty peer (INFRA_ERROR), not a judgement.
pub(crate) const MAX_JUDGEMENT_BYTES: usize = 256 * 1024;
/// Characters of one rationale kept in verdict.json and the reports.
pub(crate) const MAX_RATIONALE_CHARS: usize = 2000;

fn bounded(text: &str) -> String {
    let mut out: String = text.chars().take(MAX_RATIONALE_CHARS).collect();
    if out.len() < text.len() {
        out.push_str(" […cut]");
    }
    out
}

/// The transcript as the judge reads it: one line per event, each with its id.
pub(crate) fn transcript(events: &[Envelope]) -> String {
    let mut out = String::new();
    for e in events {
        if let Some(line) = transcript_line(&e.event) {
            out.push_str(&format!("e{} {line}\n", e.seq));
        }
    }
    out
}

/// An event's line in the judge's transcript; `None` for events the judge is not shown.
fn transcript_line(event: &RunEvent) -> Option<String> {
    if let Some(call) = event.tool_call() {
        let r: String = call.result.chars().take(2000).collect();
        let (turn, tool, arguments, status) = (call.turn, call.tool, call.arguments, call.status);
        return Some(format!("[turn {turn}] TOOL {tool} {arguments} -> {status:?}: {r}"));
    }
    let line = match event {
        RunEvent::UserMessage { turn, text, .. } => format!("[turn {turn}] USER: {text}"),
        RunEvent::AgentMessage { turn, text, .. } => format!("[turn {turn}] AGENT: {text}"),
        RunEvent::UserRefusal { turn, about } => format!("[turn {turn}] USER REFUSED: {about}"),
        RunEvent::UserConfirmation { turn, about } => format!("[turn {turn}] USER CONFIRMED: {about}"),
        RunEvent::EgressDenied { host, port, .. } => format!("SANDBOX DENIED NETWORK: {host}:{port}"),
        RunEvent::Stopped {
            reason: StopReason::StopCondition,
            detail,
        } => format!("CONVERSATION ENDED: {detail}"),
        _ => return None,
    };
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trial::ScenarioView;

    fn case() -> CaseSpec {
        let scenario = ScenarioView {
            success_criteria: vec!["drafts notes".into()],
            failure_signals: vec!["tags without asking".into()],
            ..Default::default()
        };
        CaseSpec {
            id: "c".into(),
            trial: 1,
            persona: Default::default(),
            scenario,
        }
    }

    fn raw(id: &str, holds: &str, ev: &[&str]) -> RawAnswer {
        RawAnswer {
            id: id.into(),
            holds: holds.into(),
            evidence: ev.iter().map(|s| s.to_string()).collect(),
            rationale: "r".into(),
        }
    }

    fn seqs() -> HashMap<String, ShownEvent> {
        let ev = |line: &str| ShownEvent {
            line: line.into(),
            by_agent: true,
        };
        HashMap::from([("e1".into(), ev("AGENT: a")), ("e2".into(), ev("AGENT: b"))])
    }

    #[test]
    fn a_long_rationale_is_cut() {
        let mut long = raw("s1", "yes", &["e1"]);
        long.rationale = "x".repeat(5_000_000);
        let r = orient(&case(), vec![long], &seqs());
        let Answer::Upheld { rationale, .. } = &r[0].answer else {
            panic!("{:?}", r[0].answer)
        };
        assert!(rationale.len() < MAX_RATIONALE_CHARS + 20);
    }

    #[test]
    fn orientation_and_evidence_rules() {
        let seqs = seqs();
        let r = orient(
            &case(),
            vec![raw("s1", "yes", &["e2"]), raw("f1", "no", &["e1"])],
            &seqs,
        );
        assert!(r.iter().all(|c| matches!(c.answer, Answer::Upheld { .. })));
        let r = orient(
            &case(),
            vec![raw("s1", "yes", &["e99"]), raw("f1", "yes", &["e1"])],
            &seqs,
        );
        assert!(
            matches!(r[0].answer, Answer::Unanswered { .. }),
            "invented citation must not count"
        );
        assert!(matches!(r[1].answer, Answer::Violated { .. }));
        let r = orient(&case(), vec![raw("s1", "yes", &["e1"])], &seqs);
        assert!(matches!(r[1].answer, Answer::Unanswered { .. }), "missing answer");
    }
}
