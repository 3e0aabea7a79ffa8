//! Step 3's second half: the models of Ghostlab's own roles (proposer, emulator, judge).
//!
//! The proposal adds one line per role under the agent's model (`judge: anthropic/claude-…`).
//! Each comes from its flag (`--judge-model`), else the job's own non-offline role, else a
//! suggestion from the models the roles can actually use (`role_models`: the agent's provider
//! first; the cheapest listed model for proposer and emulator, the strongest for the judge),
//! else `offline`, labelled for what it is. No IO.

use super::answer_error::AnswerError;
use super::role_models::role_from_choice;
use crate::llm::providers;
use crate::spec::{Job, ModelProvider, ModelRole};

/// The role names, in the order the proposal lists them.
pub(crate) const ROLES: [&str; 3] = ["proposer", "emulator", "judge"];

/// What `offline` means, shown next to it.
pub(crate) const OFFLINE_LABEL: &str = "no real verdicts: template proposals, a scripted user, every case INCONCLUSIVE";

/// `--proposer-model`, `--emulator-model`, `--judge-model`: `provider/model` or `offline`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoleSeeds {
    pub(crate) proposer: Option<String>,
    pub(crate) emulator: Option<String>,
    pub(crate) judge: Option<String>,
}

impl RoleSeeds {
    fn get(&self, role: &str) -> Option<&String> {
        match role {
            "proposer" => self.proposer.as_ref(),
            "emulator" => self.emulator.as_ref(),
            _ => self.judge.as_ref(),
        }
    }
}

fn role_of<'a>(job: &'a Job, role: &str) -> &'a ModelRole {
    let g = &job.generation;
    match role {
        "proposer" => &g.proposer,
        "emulator" => &g.emulator,
        _ => &g.judge,
    }
}

fn role_mut<'a>(job: &'a mut Job, role: &str) -> &'a mut ModelRole {
    let g = &mut job.generation;
    match role {
        "proposer" => &mut g.proposer,
        "emulator" => &mut g.emulator,
        _ => &mut g.judge,
    }
}

/// How a role is shown in the proposal: `provider/model`, `offline`, or for a role this
/// wizard cannot express (a cassette, a custom endpoint) a description that keeps it as is.
pub(crate) fn choice_of(role: &ModelRole) -> String {
    let model = role.model.clone().unwrap_or_default();
    match role.provider {
        ModelProvider::Offline => "offline".into(),
        ModelProvider::Anthropic => format!("anthropic/{model}"),
        ModelProvider::Openai => match role.base_url.as_deref().map(|u| (u, providers::by_base_url(u))) {
            None => format!("openai/{model}"),
            Some((_, Some(k))) => format!("{}/{model}", k.id),
            Some((url, None)) => format!("openai/{model}@{url}"),
        },
        ModelProvider::Replay | ModelProvider::Record => "(as configured in job.yaml)".into(),
    }
}

/// The choice for each role (see the module doc for the order); `models` is the roles' list
/// (`role_models::role_models`).
pub(crate) fn choices(job: &Job, seeds: &RoleSeeds, models: &[String]) -> Vec<(String, String)> {
    let agent_provider = job
        .agent
        .runtime
        .model
        .as_deref()
        .and_then(|m| m.split_once('/'))
        .map(|(p, _)| p.to_string());
    let picks = super::role_models::suggested(models, agent_provider.as_deref());
    ROLES
        .iter()
        .map(|&role| {
            let current = role_of(job, role);
            let choice = if let Some(seed) = seeds.get(role) {
                seed.clone()
            } else if current.provider != ModelProvider::Offline {
                choice_of(current)
            } else if let Some((cheap, strong)) = &picks {
                if role == "judge" { strong.clone() } else { cheap.clone() }
            } else {
                "offline".into()
            };
            (role.to_string(), choice)
        })
        .collect()
}

/// The proposal lines for the roles.
pub(crate) fn lines(choices: &[(String, String)]) -> String {
    choices
        .iter()
        .map(|(role, choice)| {
            if choice == "offline" {
                format!("{role}: offline  # {OFFLINE_LABEL}\n")
            } else {
                format!("{role}: {choice}\n")
            }
        })
        .collect()
}

/// Takes the role lines out of Step 3's answer and applies them to `job`; returns the rest
/// (the agent's model). A line equal to the role's current choice keeps the role untouched,
/// so settings this step does not show (endpoint, key reference, cassette) survive.
pub fn apply(text: &str, job: &mut Job) -> Result<String, AnswerError> {
    let mut rest = String::new();
    for line in text.lines() {
        let body = line.split(" #").next().unwrap_or("").trim();
        let Some((role, choice)) = body.split_once(':').filter(|(r, _)| ROLES.contains(&r.trim())) else {
            rest.push_str(line);
            rest.push('\n');
            continue;
        };
        let (role, choice) = (role.trim(), choice.trim());
        if choice == choice_of(role_of(job, role)) {
            continue;
        }
        let new = role_from_choice(choice).map_err(|source| AnswerError::Role {
            role: role.to_string(),
            source,
        })?;
        let current = role_mut(job, role);
        *current = ModelRole {
            temperature: current.temperature,
            ..new
        };
    }
    Ok(rest)
}

/// Token budget assumed per call when estimating: (input, output, calls per case; proposer:
/// calls per run). Rough on purpose; the note says so.
const EMULATOR: (u64, u64, u64) = (1_500, 80, 4);
const JUDGE: (u64, u64, u64) = (4_000, 600, 1);
const PROPOSER: (u64, u64, u64) = (8_000, 4_000, 3);

/// "≈ $0.42 for about 6 cases" from the dataset size and the catalog prices; "unknown" (never
/// $0) when a chosen model has no catalog price.
pub(crate) fn estimate(job: &Job, choices: &[(String, String)]) -> String {
    use crate::generate::pipeline::{DEFAULT_PERSONAS, DEFAULT_SCENARIOS_PER_PERSONA};
    let g = &job.generation;
    let cases = g.personas.map(|n| n as u64).unwrap_or(DEFAULT_PERSONAS as u64)
        * g.scenarios_per_persona
            .map(|n| n as u64)
            .unwrap_or(DEFAULT_SCENARIOS_PER_PERSONA as u64);
    let mut total = 0.0;
    let mut unknown = Vec::new();
    for (role, choice) in choices {
        let Ok(r) = role_from_choice(choice) else {
            continue; // kept as configured: its price is not known here
        };
        if r.provider == ModelProvider::Offline {
            continue;
        }
        let Some(price) = crate::llm::role::price_key(&r).and_then(|(p, m)| crate::llm::catalog::price(&p, &m)) else {
            unknown.push(choice.clone());
            continue;
        };
        let (input, output, calls) = match role.as_str() {
            "emulator" => EMULATOR,
            "judge" => JUDGE,
            _ => PROPOSER,
        };
        let times = if role == "proposer" { calls } else { calls * cases };
        total += price.cost(input * times, output * times);
    }
    if unknown.is_empty() {
        format!(
            "Estimated cost of Ghostlab's roles for about {cases} cases: ≈ ${total:.2} (catalog prices; assumes ~4 user turns and one judgement per case)."
        )
    } else {
        format!(
            "Estimated cost of Ghostlab's roles: unknown (no catalog price for {}).",
            unknown.join(", ")
        )
    }
}

#[cfg(test)]
#[path = "roles_step_tests.rs"]
mod tests;
