//! Offline scenarios: one seed per workflow, risk and scope limit of the profile, assigned to
//! the personas that fit them. Every risk and every workflow gets a scenario even when that
//! exceeds the per-persona budget; scope limits and variations fill what is left.
//!
//! All wording is built from the profile's own text; nothing is looked up elsewhere.

use std::collections::HashSet;

use super::personas::{ADVERSARY, FOCUSED, HURRIED, NEWCOMER, OFF_TOPIC, role_and_project};
use super::writing::{Voice, risk_kind, risk_scenario, scope_scenario, workflow_scenario};
use crate::generate::dataset::*;
use crate::generate::profile::{AgentProfile, Risk, ScopeLimit, Workflow};

#[derive(Clone, Copy)]
enum Seed<'a> {
    Workflow(&'a Workflow),
    Risk(&'a Risk, ScenarioKind),
    Scope(&'a ScopeLimit),
}

impl Seed<'_> {
    fn id(&self) -> &str {
        match self {
            Seed::Workflow(w) => &w.id,
            Seed::Risk(r, _) => &r.id,
            Seed::Scope(s) => &s.id,
        }
    }
}

/// Scenarios for `personas`, about `per_persona` each.
pub(crate) fn propose(profile: &AgentProfile, personas: &PersonaSet, per_persona: usize) -> ScenarioSet {
    let per_persona = per_persona.max(1);
    let workflows: Vec<Seed> = profile.workflows.iter().map(Seed::Workflow).collect();
    let risks: Vec<Seed> = profile
        .risk_surface
        .iter()
        .map(|r| Seed::Risk(r, risk_kind(profile, r)))
        .collect();
    let scopes: Vec<Seed> = profile.out_of_scope.iter().map(Seed::Scope).collect();
    let n = personas.personas.len();
    let mut plan: Vec<Vec<Seed>> = vec![Vec::new(); n];
    let mut used: HashSet<(usize, String)> = HashSet::new();
    if n == 0 {
        return ScenarioSet {
            version: DATASET_VERSION,
            scenarios: Vec::new(),
        };
    }
    // Required seeds: the best-fitting persona that still has room, else the least loaded fit.
    for seed in workflows.iter().chain(risks.iter()) {
        let best = (0..n)
            .max_by_key(|&i| {
                let fit = affinity(&personas.personas[i].id, seed);
                (
                    plan[i].len() < per_persona,
                    fit,
                    std::cmp::Reverse(plan[i].len()),
                    std::cmp::Reverse(i),
                )
            })
            .unwrap_or(0);
        used.insert((best, seed.id().to_string()));
        plan[best].push(*seed);
    }
    // Optional seeds and variations, round-robin, only where the persona fits the seed.
    let optional: Vec<Seed> = scopes
        .iter()
        .chain(workflows.iter())
        .chain(risks.iter())
        .copied()
        .collect();
    loop {
        let mut added = false;
        for (i, persona) in personas.personas.iter().enumerate() {
            if plan[i].len() >= per_persona {
                continue;
            }
            let next = optional
                .iter()
                .filter(|s| affinity(&persona.id, s) > 0 && !used.contains(&(i, s.id().to_string())))
                .max_by_key(|s| (affinity(&persona.id, s), std::cmp::Reverse(seed_rank(&optional, s))));
            if let Some(seed) = next {
                used.insert((i, seed.id().to_string()));
                plan[i].push(*seed);
                added = true;
            }
        }
        if !added {
            break;
        }
    }
    let (role, project) = role_and_project(&profile.audience);
    let mut scenarios = Vec::new();
    for (i, persona) in personas.personas.iter().enumerate() {
        for seed in &plan[i] {
            let voice = Voice::of(&persona.id);
            let id = format!("{}--{}", persona.id, seed.id());
            let s = match seed {
                // Its sanctions (the files it names) are added by the pipeline, for any proposer.
                Seed::Workflow(w) => workflow_scenario(profile, w, voice, project.as_deref()),
                Seed::Risk(r, kind) => risk_scenario(profile, r, *kind, voice, &role),
                Seed::Scope(s) => scope_scenario(profile, s),
            };
            scenarios.push(Scenario {
                id,
                persona: persona.id.clone(),
                ..s
            });
        }
    }
    ScenarioSet {
        version: DATASET_VERSION,
        scenarios,
    }
}

fn seed_rank(all: &[Seed], s: &Seed) -> usize {
    all.iter().position(|x| x.id() == s.id()).unwrap_or(usize::MAX)
}

/// How well a persona fits a seed (0: never pair them outside required coverage).
fn affinity(persona: &str, seed: &Seed) -> u8 {
    let security = matches!(seed, Seed::Risk(_, ScenarioKind::Security));
    if persona.starts_with(HURRIED) {
        match seed {
            Seed::Workflow(_) => 3,
            Seed::Risk(..) if security => 1,
            Seed::Risk(..) => 2,
            Seed::Scope(_) => 0,
        }
    } else if persona.starts_with(ADVERSARY) {
        match seed {
            Seed::Risk(..) => 3,
            Seed::Scope(_) => 1,
            Seed::Workflow(_) => 0,
        }
    } else if persona.starts_with(NEWCOMER) {
        match seed {
            Seed::Workflow(_) | Seed::Scope(_) => 2,
            Seed::Risk(..) => 1,
        }
    } else if let Some(rest) = persona.strip_prefix(FOCUSED) {
        match seed {
            Seed::Workflow(w) if w.id.trim_start_matches("wf-") == rest => 4,
            Seed::Risk(..) => 1,
            _ => 0,
        }
    } else if let Some(rest) = persona.strip_prefix(OFF_TOPIC) {
        match seed {
            Seed::Scope(s) if s.id.trim_start_matches("scope-") == rest => 4,
            _ => 0,
        }
    } else {
        1
    }
}
