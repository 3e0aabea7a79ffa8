//! The estimated cost of running the scenarios under review: each runnable case at its
//! `max_turns`, priced by the catalog for the agent's model and each of Ghostlab's role models.
//! A model without a known price makes its part "unknown", never $0.

use crate::generate::{CaseStatus, Dataset, ScenarioSet};
use crate::spec::{Job, ModelProvider, ModelRole};

/// Tokens assumed per turn for a party (prompt, completion); the conversation grows, so these
/// are averages over a case, stated in the docs as assumptions.
const AGENT_PER_TURN: (u64, u64) = (8_000, 400);
const EMULATOR_PER_TURN: (u64, u64) = (1_500, 150);
const JUDGE_PER_CASE: (u64, u64) = (6_000, 600);

/// An estimate, split by whose calls it prices.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CostEstimate {
    /// Cases that would run (approved or pending).
    pub(crate) cases: usize,
    /// The sum of the parts with a known price; `None` when no part has one.
    pub(crate) known_usd: Option<f64>,
    /// Parts whose price is unknown (`agent`, `emulator`, `judge`).
    pub(crate) unknown: Vec<&'static str>,
}

impl CostEstimate {
    /// `≈$0.1234 for 5 cases`, `≈$0.12 + unknown (agent)`, or `unknown`.
    pub(crate) fn show(&self) -> String {
        match (self.known_usd, self.unknown.is_empty()) {
            (Some(c), true) => format!("≈${c:.4} for {} case(s) at max turns", self.cases),
            (Some(c), false) => format!("≈${c:.4} + unknown ({})", self.unknown.join(", ")),
            (None, _) => "unknown (no model with a known price)".into(),
        }
    }
}

/// The price of a Ghostlab role: free when it calls no model, else the catalog's.
fn role_cost(role: &ModelRole, tokens: (u64, u64)) -> Option<f64> {
    match role.provider {
        ModelProvider::Offline | ModelProvider::Replay => Some(0.0),
        _ => {
            let (provider, model) = crate::llm::role::price_key(role)?;
            Some(crate::llm::catalog::price(&provider, &model)?.cost(tokens.0, tokens.1))
        }
    }
}

/// Estimates the run of the runnable cases of `dataset`.
pub(crate) fn estimate(job: &Job, scenarios: &ScenarioSet, dataset: &Dataset) -> CostEstimate {
    let runnable: Vec<u64> = dataset
        .cases
        .iter()
        .filter(|c| matches!(c.status, CaseStatus::Pending | CaseStatus::Approved))
        .filter_map(|c| scenarios.scenarios.iter().find(|s| s.id == c.scenario))
        .map(|s| u64::from(s.max_turns))
        .collect();
    let turns: u64 = runnable.iter().sum();
    let cases = runnable.len() as u64;
    let agent = job.agent.runtime.model.as_deref().and_then(|m| {
        let (provider, model) = m.split_once('/')?;
        let p = crate::llm::catalog::price(provider, model)?;
        Some(p.cost(AGENT_PER_TURN.0 * turns, AGENT_PER_TURN.1 * turns))
    });
    let g = &job.generation;
    let emulator = role_cost(&g.emulator, (EMULATOR_PER_TURN.0 * turns, EMULATOR_PER_TURN.1 * turns));
    let judge = role_cost(&g.judge, (JUDGE_PER_CASE.0 * cases, JUDGE_PER_CASE.1 * cases));
    let mut unknown = Vec::new();
    let mut known: Option<f64> = None;
    for (name, part, calls_a_model) in [
        ("agent", agent, true),
        ("emulator", emulator, g.emulator.provider != ModelProvider::Offline),
        ("judge", judge, g.judge.provider != ModelProvider::Offline),
    ] {
        match part {
            // A free offline role alone is no price: it says nothing about what the run costs.
            Some(c) if calls_a_model || known.is_some() => known = Some(known.unwrap_or(0.0) + c),
            Some(_) => {}
            None => unknown.push(name),
        }
    }
    CostEstimate {
        cases: runnable.len(),
        known_usd: known,
        unknown,
    }
}
