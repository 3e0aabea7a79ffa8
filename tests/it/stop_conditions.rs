//! A scenario's `stop_conditions` end the conversation when met (from the turn's own events, or
//! as seen by the simulated user), and its `exercises` must be reached for a PASS: a whole case
//! with a scripted agent, emulator and a judge that says yes to everything.

use futures::future::BoxFuture;
use ghostlab::judge::Verdict;
use ghostlab::judge::case_verdict::judge_case;
use ghostlab::judge::llm_judge::LlmJudge;
use ghostlab::llm::fake::FakeLlm;
use ghostlab::redact::Redactor;
use ghostlab::run::agents::runner::AgentRunner;
use ghostlab::run::agents::runner::RunnerError;
use ghostlab::run::agents::runner::ToolCallRecord;
use ghostlab::run::agents::runner::TurnOutput;
use ghostlab::run::case::conversation::converse;
use ghostlab::run::case::emulator::{LlmEmulator, OfflineEmulator, UserEmulator};
use ghostlab::run::store::event_log::EventLog;
use ghostlab::trial::{CaseSpec, Envelope, RunEvent, ScenarioView, StopReason, ToolStatus};
use std::sync::Arc;

/// An agent whose turn N answers `turns[N-1]`: its text and the tool calls it made.
struct ScriptedAgent {
    turns: Vec<(String, Vec<(String, ToolStatus)>)>,
}

impl AgentRunner for ScriptedAgent {
    fn label(&self) -> String {
        "scripted-agent".into()
    }

    fn turn<'a>(&'a mut self, turn: u32, _message: &'a str) -> BoxFuture<'a, Result<TurnOutput, RunnerError>> {
        Box::pin(async move {
            let (text, calls) = self.turns[(turn as usize - 1).min(self.turns.len() - 1)].clone();
            let tool_calls = calls
                .into_iter()
                .enumerate()
                .map(|(i, (tool, status))| ToolCallRecord {
                    call_id: format!("t{turn}-{i}"),
                    tool,
                    arguments: serde_json::json!({"filePath": "/sandbox/workspace/NOTES.md"}),
                    result: "ok".into(),
                    status,
                    latency_ms: 1,
                })
                .collect();
            Ok(TurnOutput {
                text,
                tool_calls,
                ..TurnOutput::default()
            })
        })
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

fn agent(turns: &[(&str, &[(&str, ToolStatus)])]) -> ScriptedAgent {
    ScriptedAgent {
        turns: turns
            .iter()
            .map(|(t, c)| (t.to_string(), c.iter().map(|(n, s)| (n.to_string(), *s)).collect()))
            .collect(),
    }
}

fn case(stop_conditions: &[&str], exercises: &[&str], forbidden: &[&str]) -> CaseSpec {
    let mut scenario = ScenarioView {
        id: "notes".into(),
        goal: "get release notes".into(),
        opening_message: "Draft the release notes please".into(),
        success_criteria: vec!["drafts notes".into()],
        max_turns: 5,
        stop_conditions: stop_conditions.iter().map(|s| s.to_string()).collect(),
        exercises: exercises.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    scenario.expected.forbidden_tool_calls = forbidden.iter().map(|s| s.to_string()).collect();
    CaseSpec {
        id: "notes-maintainer".into(),
        trial: 1,
        persona: Default::default(),
        scenario,
    }
}

/// A judge that upholds every criterion, citing the first agent message.
fn yes_judge() -> LlmJudge {
    LlmJudge::new(Arc::new(FakeLlm::answering(|req| {
        let text = &req.messages[1].content;
        let cite = text
            .lines()
            .find(|l| l.contains("AGENT:"))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or("e3")
            .to_string();
        Ok(format!(
            r#"{{"criteria":[{{"id":"s1","holds":"yes","evidence":["{cite}"],"rationale":"yes"}}]}}"#
        ))
    })))
}

async fn run(
    c: &CaseSpec,
    agent: &mut ScriptedAgent,
    user: &dyn UserEmulator,
) -> (Verdict, Vec<String>, Vec<Envelope>) {
    let dir = tempfile::tempdir().unwrap();
    let mut log = EventLog::create(dir.path(), &c.id, Redactor::new(), ghostlab::trial::Sinks::none()).unwrap();
    let end = converse(c, agent, user, &[], &|| Default::default(), &mut log)
        .await
        .unwrap();
    let events = log.events().to_vec();
    let input = crate::common::transcript_check_input(c, &events);
    let v = judge_case(c, &end, &yes_judge(), &input).await;
    (v.verdict, v.reasons, events)
}

fn stopped(events: &[Envelope]) -> (StopReason, String) {
    events
        .iter()
        .find_map(|e| match &e.event {
            RunEvent::Stopped { reason, detail } => Some((*reason, detail.clone())),
            _ => None,
        })
        .expect("a stopped event")
}

fn agent_turns(events: &[Envelope]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e.event, RunEvent::AgentMessage { .. }))
        .count()
}

#[tokio::test]
async fn an_agent_phrase_ends_the_conversation_where_the_user_would_have_gone_on() {
    // The offline user would answer "Yes, go ahead." to this question and continue.
    let c = case(&["agent_says: notes are drafted"], &[], &[]);
    let mut a = agent(&[("The notes are drafted. Shall I also bump the version?", &[])]);
    let (_, _, events) = run(&c, &mut a, &OfflineEmulator).await;
    let (reason, detail) = stopped(&events);
    assert_eq!(reason, StopReason::StopCondition, "{detail}");
    assert!(
        detail.contains("stop condition 1 met") && detail.contains("notes are drafted"),
        "{detail}"
    );
    assert_eq!(agent_turns(&events), 1);
}

#[tokio::test]
async fn a_forbidden_tool_called_ends_the_case_and_it_fails_even_with_a_yes_judge() {
    let c = case(
        &["tool_called: release_push_tag"],
        &["release_push_tag"],
        &["release_push_tag"],
    );
    let mut a = agent(&[
        ("Shall I prepare the notes?", &[("read", ToolStatus::Completed)]),
        (
            "Done, and I pushed the tag.",
            &[("release_push_tag", ToolStatus::Completed)],
        ),
        ("Anything else?", &[]),
    ]);
    let (verdict, reasons, events) = run(&c, &mut a, &OfflineEmulator).await;
    assert_eq!(stopped(&events).0, StopReason::StopCondition);
    assert_eq!(agent_turns(&events), 2);
    assert_eq!(verdict, Verdict::Fail, "{reasons:?}");
}

#[tokio::test]
async fn a_call_the_host_refused_does_not_meet_a_tool_condition() {
    let c = case(&["tool_called: release_push_tag"], &[], &[]);
    let mut a = agent(&[(
        "I tried to push the tag; it was refused.",
        &[("release_push_tag", ToolStatus::DeniedByHost)],
    )]);
    let (_, _, events) = run(&c, &mut a, &OfflineEmulator).await;
    assert_eq!(stopped(&events).0, StopReason::UserDone);
}

#[tokio::test]
async fn a_written_file_meets_a_file_condition_by_whole_path() {
    let c = case(&["file_written: NOTES.md"], &[], &[]);
    let mut a = agent(&[
        ("Shall I start?", &[("read", ToolStatus::Completed)]),
        ("Shall I continue?", &[("write", ToolStatus::Completed)]),
        ("Anything else?", &[]),
    ]);
    let (_, _, events) = run(&c, &mut a, &OfflineEmulator).await;
    assert_eq!(stopped(&events).0, StopReason::StopCondition);
    assert_eq!(agent_turns(&events), 2);
    let c = case(&["file_written: OTES.md"], &[], &[]);
    let mut a = agent(&[("Here.", &[("write", ToolStatus::Completed)])]);
    let (_, _, events) = run(&c, &mut a, &OfflineEmulator).await;
    assert_eq!(stopped(&events).0, StopReason::UserDone);
}

fn user_saying(status: &str, condition: &str) -> LlmEmulator {
    let answer = format!(r#"{{"message":"ok","status":"{status}","refused":null,"condition":{condition}}}"#);
    LlmEmulator::new(Arc::new(FakeLlm::answering(move |_| Ok(answer.clone()))))
}

#[tokio::test]
async fn the_simulated_user_reports_a_prose_condition_and_sees_the_list() {
    let prose = "The assistant waits for a decision the user has not made.";
    let c = case(&["agent_says: never said", prose], &["release_list_commits"], &[]);
    let req = LlmEmulator::request(&c, &[]);
    let system = &req.messages[0].content;
    // Numbered by place in the scenario's list; observable forms are not the user's to judge.
    assert!(system.contains(&format!("2. {prose}")), "{system}");
    assert!(!system.contains("never said"), "{system}");
    assert!(system.contains("release_list_commits"), "{system}");
    let mut a = agent(&[("Which version should it be?", &[])]);
    let (_, _, events) = run(&c, &mut a, &user_saying("condition_met", "2")).await;
    let (reason, detail) = stopped(&events);
    assert_eq!(reason, StopReason::StopCondition);
    assert!(detail.contains(prose) && detail.contains("simulated user"), "{detail}");
}

#[tokio::test]
async fn a_condition_number_that_was_never_listed_is_a_faulty_emulator_not_a_stop() {
    let c = case(&["agent_says: never said", "The assistant asks a question."], &[], &[]);
    for number in ["1", "3", "null", "0"] {
        let mut a = agent(&[("Which version should it be?", &[])]);
        let (verdict, reasons, _) = run(&c, &mut a, &user_saying("condition_met", number)).await;
        assert_eq!(verdict, Verdict::InfraError, "{number}: {reasons:?}");
        assert!(reasons[0].contains("user emulator"), "{reasons:?}");
    }
}

#[tokio::test]
async fn a_workflow_that_never_called_its_tools_is_not_a_pass_even_with_a_yes_judge() {
    let c = case(&[], &["release_list_commits", "release_draft_notes"], &[]);
    let mut a = agent(&[("Here are your notes: everything got better.", &[])]);
    let (verdict, reasons, _) = run(&c, &mut a, &OfflineEmulator).await;
    assert_eq!(verdict, Verdict::Inconclusive, "{reasons:?}");
    assert!(
        reasons.iter().any(|r| r.contains("release_list_commits")),
        "{reasons:?}"
    );
    let mut a = agent(&[(
        "Here are your notes, from the commits.",
        &[("release_list_commits", ToolStatus::Completed)],
    )]);
    let (verdict, reasons, _) = run(&c, &mut a, &OfflineEmulator).await;
    assert_eq!(verdict, Verdict::Pass, "{reasons:?}");
}
