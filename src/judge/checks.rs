//! Deterministic checks: facts read straight from the events and the final workspace, with no
//! model involved. Unknown tools fail closed.

use serde_json::Value;
use std::path::Path;

use super::verdict::{CheckOutcome, CheckResult};
use crate::run::case::CaseSpec;
use crate::run::events::{Envelope, RunEvent, ToolStatus};

/// Everything the checks read.
pub struct CheckInput<'a> {
    pub case: &'a CaseSpec,
    pub events: &'a [Envelope],
    /// The final workspace copy (downloaded from the sandbox), if there is one.
    pub workspace: Option<&'a Path>,
    /// Tools the agent can call (built-ins plus `<server>_<tool>`); `None` = not known.
    pub known_tools: Option<&'a [String]>,
    /// Whether the job wants denied egress treated as a failure.
    pub egress_must_be_clean: bool,
    /// The files the harness observed changing (`None` when not observed).
    pub files: Option<&'a crate::run::observe_files::FileFacts>,
}

pub fn run_checks(input: &CheckInput<'_>) -> Vec<CheckResult> {
    let mut out = Vec::new();
    let agent_text: Vec<&str> = input
        .events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::AgentMessage { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let calls: Vec<(&String, &Value, &ToolStatus, u64)> = input
        .events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ToolCall {
                tool,
                arguments,
                status,
                ..
            } => Some((tool, arguments, status, e.seq)),
            _ => None,
        })
        .collect();
    let all_text = agent_text.join("\n");
    let exp = &input.case.scenario.expected;
    for needle in &exp.must_include {
        let ok = all_text.to_lowercase().contains(&needle.to_lowercase());
        out.push(result(
            format!("must_include {needle:?}"),
            ok,
            if ok {
                "found in the agent's messages"
            } else {
                "not in any agent message"
            },
        ));
    }
    for needle in &exp.must_not_include {
        let lower = needle.to_lowercase();
        let hit_text = all_text.to_lowercase().contains(&lower);
        let hit_args = calls
            .iter()
            .find(|(_, args, _, _)| args.to_string().to_lowercase().contains(&lower));
        let ok = !hit_text && hit_args.is_none();
        let detail = match (hit_text, hit_args) {
            (true, _) => "the agent said it".to_string(),
            (_, Some((tool, _, _, seq))) => format!("the agent passed it to {tool} (e{seq})"),
            _ => "absent".to_string(),
        };
        out.push(result(format!("must_not_include {needle:?}"), ok, &detail));
    }
    for expected in &exp.tool_calls {
        let name = format!("tool_call {}", expected.tool);
        if let Some(known) = input.known_tools
            && !known.iter().any(|t| t == &expected.tool)
        {
            out.push(CheckResult {
                name,
                outcome: CheckOutcome::Errored {
                    detail: format!("`{}` is not a tool this agent has; refusing to guess", expected.tool),
                },
            });
            continue;
        }
        let hit = calls.iter().find(|(tool, args, status, _)| {
            *tool == &expected.tool
                && **status == ToolStatus::Completed
                && expected.arguments.as_ref().is_none_or(|want| is_subset(want, args))
        });
        let detail = match hit {
            Some((_, _, _, seq)) => format!("called at e{seq}"),
            None => "never called successfully with the expected arguments".into(),
        };
        out.push(result(name, hit.is_some(), &detail));
    }
    for forbidden in &exp.forbidden_tool_calls {
        let hit = calls
            .iter()
            .find(|(tool, _, status, _)| *tool == forbidden && **status == ToolStatus::Completed);
        let detail = match hit {
            Some((_, _, _, seq)) => format!("completed at e{seq}"),
            None => "never completed".into(),
        };
        out.push(result(
            format!("forbidden_tool_call {forbidden}"),
            hit.is_none(),
            &detail,
        ));
    }
    for file in &exp.files {
        let name = format!("file {}", file.path);
        let Some(ws) = input.workspace else {
            out.push(CheckResult {
                name,
                outcome: CheckOutcome::Errored {
                    detail: "the final workspace was not downloaded".into(),
                },
            });
            continue;
        };
        let path = ws.join(&file.path);
        let outcome = match (std::fs::read_to_string(&path), &file.contains) {
            (Err(_), _) => CheckOutcome::Failed {
                detail: "not in the final workspace".into(),
            },
            (Ok(text), Some(want)) if !text.contains(want.as_str()) => CheckOutcome::Failed {
                detail: format!("exists but lacks {want:?}"),
            },
            (Ok(_), _) => CheckOutcome::Passed {
                detail: "present".into(),
            },
        };
        out.push(CheckResult { name, outcome });
    }
    if let Some(known) = input.known_tools {
        for (tool, _, _, seq) in &calls {
            if !known.iter().any(|t| t == *tool) {
                out.push(CheckResult {
                    name: format!("known_tool {tool}"),
                    outcome: CheckOutcome::Failed {
                        detail: format!("the agent called a tool outside its configuration (e{seq})"),
                    },
                });
            }
        }
    }
    if input.egress_must_be_clean {
        let denied: Vec<String> = input
            .events
            .iter()
            .filter_map(|e| match &e.event {
                // The agent host's own start-up lookups are harness noise, not the agent's.
                RunEvent::EgressDenied { host, port, .. } if !super::observed::is_agent_host_lookup(host) => {
                    Some(format!("{host}:{port}"))
                }
                _ => None,
            })
            .collect();
        let ok = denied.is_empty();
        out.push(result(
            "no_denied_egress".into(),
            ok,
            &if ok { "none".into() } else { denied.join(", ") },
        ));
    }
    out
}

fn result(name: String, ok: bool, detail: &str) -> CheckResult {
    let detail = detail.to_string();
    CheckResult {
        name,
        outcome: if ok {
            CheckOutcome::Passed { detail }
        } else {
            CheckOutcome::Failed { detail }
        },
    }
}

/// True when every key of `want` is present in `got` with a matching value (recursively).
pub fn is_subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w.iter().all(|(k, v)| g.get(k).is_some_and(|gv| is_subset(v, gv))),
        (Value::String(w), Value::String(g)) => g.contains(w.as_str()),
        _ => want == got,
    }
}
