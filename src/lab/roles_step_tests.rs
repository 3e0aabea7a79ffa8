use super::*;

fn job(model: &str) -> Job {
    let mut j = Job::default();
    j.agent.runtime.model = Some(model.into());
    j
}

#[test]
fn choices_follow_flags_then_the_job_then_the_authenticated_provider() {
    let list: Vec<String> = [
        "openai/gpt-4.1",
        "anthropic/claude-haiku-4-5",
        "anthropic/claude-sonnet-4-5",
    ]
    .map(String::from)
    .to_vec();
    let mut j = job("anthropic/claude-sonnet-4-5");
    j.generation.emulator = role_from_choice("openai/gpt-4.1-mini").unwrap();
    let seeds = RoleSeeds {
        proposer: Some("offline".into()),
        ..Default::default()
    };
    let c = choices(&j, &seeds, &list);
    assert_eq!(c[0], ("proposer".into(), "offline".into()), "the flag wins");
    assert_eq!(c[1].1, "openai/gpt-4.1-mini", "the job's own role is kept");
    assert_eq!(
        c[2].1, "anthropic/claude-sonnet-4-5",
        "the agent's provider, strongest listed model"
    );
    let c = choices(&job("anthropic/x"), &RoleSeeds::default(), &list);
    assert_eq!(c[0].1, "anthropic/claude-haiku-4-5");
    let c = choices(&job("anthropic/x"), &RoleSeeds::default(), &[]);
    assert!(c.iter().all(|(_, m)| m == "offline"));
    assert!(lines(&c).contains("judge: offline  # no real verdicts"));
}

#[test]
fn apply_writes_roles_and_keeps_what_it_cannot_show() {
    let mut j = job("openai/gpt-4.1");
    j.generation.proposer = ModelRole {
        provider: ModelProvider::Openai,
        model: Some("m".into()),
        base_url: Some("http://127.0.0.1:9/v1".into()),
        api_key: Some("${K}".into()),
        ..Default::default()
    };
    let before = j.generation.proposer.clone();
    let text = format!(
        "openai/gpt-4.1\nproposer: {}\nemulator: offline  # {OFFLINE_LABEL}\njudge: anthropic/claude-haiku-4-5\n",
        choice_of(&before)
    );
    let rest = apply(&text, &mut j).unwrap();
    assert_eq!(rest.trim(), "openai/gpt-4.1");
    assert_eq!(j.generation.proposer, before, "unchanged line keeps endpoint and key");
    assert_eq!(j.generation.emulator.provider, ModelProvider::Offline);
    assert_eq!(j.generation.judge.provider, ModelProvider::Anthropic);
    assert_eq!(j.generation.judge.model.as_deref(), Some("claude-haiku-4-5"));
    let err = apply("judge: nobody/x\n", &mut j).unwrap_err().to_string();
    assert!(err.starts_with("judge:") && err.contains("anthropic"), "{err}");
}

#[test]
fn known_providers_get_their_endpoint_and_estimates_never_say_zero_for_unknown() {
    let r = role_from_choice("openrouter/anthropic/claude-haiku-4.5").unwrap();
    assert_eq!(r.provider, ModelProvider::Openai);
    assert_eq!(r.base_url.as_deref(), Some("https://openrouter.ai/api/v1"));
    assert_eq!(r.model.as_deref(), Some("anthropic/claude-haiku-4.5"));
    assert!(role_from_choice("gpt-4").is_err());
    let j = job("anthropic/x");
    let priced = vec![("judge".to_string(), "anthropic/claude-haiku-4-5".to_string())];
    let e = estimate(&j, &priced);
    assert!(e.contains("≈ $") && e.contains("18 cases"), "{e}");
    let unpriced = vec![("judge".to_string(), "openrouter/some/model".to_string())];
    let e = estimate(&j, &unpriced);
    assert!(e.contains("unknown") && !e.contains('$'), "{e}");
}
