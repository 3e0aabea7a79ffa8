//! LlmProposer against a scripted fake model: valid answers, a schema violation followed by a
//! valid answer, two invalid answers, and the description staying authoritative.

use super::*;
use crate::generate::dataset::Persona;
use crate::generate::profile::{Evidence, EvidenceKind, EvidenceRef, Risk, Severity};
use crate::llm::{ChatResponse, LlmError, Usage};
use std::sync::Mutex;

/// A fake model that replays scripted answers in order and records every request.
struct FakeLlmScript {
    answers: Mutex<Vec<String>>,
    requests: Mutex<Vec<ChatRequest>>,
}

impl FakeLlmScript {
    fn new(answers: &[String]) -> Arc<Self> {
        Arc::new(FakeLlmScript {
            answers: Mutex::new(answers.iter().rev().cloned().collect()),
            requests: Mutex::new(Vec::new()),
        })
    }

    fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl Llm for FakeLlmScript {
    fn label(&self) -> String {
        "fake-script".into()
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            self.requests.lock().unwrap().push(request.clone());
            let next = self.answers.lock().unwrap().pop();
            match next {
                Some(content) => Ok(ChatResponse {
                    content,
                    model: "fake".into(),
                    usage: Usage::default(),
                    latency_ms: 0,
                }),
                None => Err(LlmError::Unavailable {
                    attempts: 1,
                    reason: "fake script exhausted".into(),
                }),
            }
        })
    }
}

fn profile() -> AgentProfile {
    let ev = EvidenceRef {
        kind: EvidenceKind::Instructions,
        source: "AGENTS.md".into(),
        section: Some("Rules".into()),
        quote: "Never print tokens.".into(),
    };
    AgentProfile {
        version: 1,
        purpose: "Cuts releases.".into(),
        audience: "maintainers".into(),
        workflows: vec![],
        risk_surface: vec![Risk {
            id: "risk-print-tokens".into(),
            risk: "The agent may print tokens.".into(),
            why: "AGENTS.md says so".into(),
            capability: "read".into(),
            severity: Severity::High,
            evidence: vec![ev],
        }],
        out_of_scope: vec![],
        evidence: Evidence::default(),
    }
}

fn personas_json(n: usize) -> String {
    let personas: Vec<Persona> = (0..n)
        .map(|i| Persona {
            id: format!("p{i}"),
            name: format!("Person {i}"),
            summary: "s".into(),
            traits: vec!["t".into()],
            context: "c".into(),
            why: "risk-print-tokens".into(),
        })
        .collect();
    serde_json::to_string(&PersonaSet { version: 1, personas }).unwrap()
}

fn run<T>(f: impl std::future::Future<Output = T>) -> T {
    crate::util::runtime::block_on(f).unwrap()
}

#[test]
fn valid_answer_is_used_and_request_carries_the_schema() {
    let fake = FakeLlmScript::new(&[format!("```json\n{}\n```", personas_json(2))]);
    let proposer = LlmProposer::new(fake.clone());
    let set = run(proposer.propose_personas(&profile(), 2)).unwrap();
    assert_eq!(set.personas.len(), 2);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let spec = requests[0].json_schema.as_ref().expect("structured output requested");
    assert_eq!(&spec.schema, artifact_schema(ArtifactKind::Persona));
    assert!(
        requests[0].messages[1].content.contains("risk-print-tokens"),
        "profile is in the prompt"
    );
}

#[test]
fn invalid_answer_is_retried_with_the_validation_error() {
    let bad = r#"{"version": 1, "personas": [{"id": "p0", "name": "x"}]}"#.to_string();
    let fake = FakeLlmScript::new(&[bad, personas_json(1)]);
    let proposer = LlmProposer::new(fake.clone());
    let set = run(proposer.propose_personas(&profile(), 1)).unwrap();
    assert_eq!(set.personas[0].id, "p0");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let retry = &requests[1].messages;
    assert_eq!(retry.len(), 4, "system, task, bad answer, correction");
    assert_eq!(retry[2].role, Role::Assistant);
    let correction = &retry[3].content;
    assert!(
        correction.contains("/personas/0") && correction.contains("summary"),
        "{correction}"
    );
}

#[test]
fn two_invalid_answers_fail_with_a_clear_message() {
    let fake = FakeLlmScript::new(&["not json at all".to_string(), personas_json(3)]);
    let proposer = LlmProposer::new(fake.clone());
    let err = run(proposer.propose_personas(&profile(), 2)).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, GenerateError::InvalidAnswer { attempts: 2, .. }), "{msg}");
    assert!(
        msg.contains("persona") && msg.contains("expected exactly 2 personas, got 3"),
        "{msg}"
    );
    assert_eq!(fake.requests().len(), 2, "no third attempt");
}

#[test]
fn scenarios_that_leave_a_risk_uncovered_are_rejected() {
    let personas: PersonaSet = serde_json::from_str(&personas_json(1)).unwrap();
    let uncovered = r#"{"version": 1, "scenarios": []}"#.to_string();
    let fake = FakeLlmScript::new(&[uncovered.clone(), uncovered]);
    let proposer = LlmProposer::new(fake);
    let err = run(proposer.propose_scenarios(&profile(), &personas, 1)).unwrap_err();
    assert!(
        err.to_string()
            .contains("risk risk-print-tokens has no adversarial or security scenario"),
        "{err}"
    );
}

#[test]
fn model_errors_pass_through_as_infrastructure_errors() {
    let fake = FakeLlmScript::new(&[]);
    let proposer = LlmProposer::new(fake);
    let err = run(proposer.propose_personas(&profile(), 1)).unwrap_err();
    assert!(matches!(err, GenerateError::Llm(LlmError::Unavailable { .. })), "{err}");
}

#[test]
fn the_users_description_wins_over_the_models_purpose() {
    let example = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/release-bot/job.yaml");
    let loaded = crate::spec::load_job(&example).unwrap();
    let empty_state = tempfile::tempdir().unwrap();
    let ctx = ProfileContext::gather(&loaded, empty_state.path()).unwrap();
    let mut answer = crate::generate::offline::infer_profile(&ctx);
    answer.purpose = "A general-purpose coding assistant.".into();
    answer.evidence.from_description = false;
    answer.evidence.mcp_tools.clear();
    let fake = FakeLlmScript::new(&[serde_json::to_string(&answer).unwrap()]);
    let proposer = LlmProposer::new(fake.clone());
    let profile = run(proposer.propose_profile(&ctx)).unwrap();
    assert_eq!(Some(&profile.purpose), ctx.description.as_ref());
    assert!(profile.evidence.from_description);
    assert_eq!(
        profile.evidence.mcp_tools.len(),
        2,
        "facts about inputs come from the context"
    );
    let prompt = &fake.requests()[0].messages[1].content;
    assert!(prompt.contains("authoritative") && prompt.contains("Workflow: prepare a release"));
}
