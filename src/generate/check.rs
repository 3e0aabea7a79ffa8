//! Cross-artifact checks that a JSON Schema cannot express: unique ids, references that
//! resolve, and every risk covered by an adversarial or security scenario.
//!
//! Each check returns the list of problems (empty when fine); callers decide whether a problem
//! means "retry the model" or "refuse to write".

use std::collections::HashSet;

use super::dataset::{Basis, Dataset, PersonaSet, Scenario, ScenarioKind, ScenarioSet};
use super::profile::AgentProfile;

/// Problems with a profile on its own.
pub(crate) fn check_profile(profile: &AgentProfile) -> Vec<String> {
    let mut problems = Vec::new();
    if profile.purpose.trim().is_empty() {
        problems.push("purpose is empty".into());
    }
    let ids = profile
        .workflows
        .iter()
        .map(|w| &w.id)
        .chain(profile.risk_surface.iter().map(|r| &r.id))
        .chain(profile.out_of_scope.iter().map(|s| &s.id));
    problems.extend(duplicates(ids, "profile id"));
    for w in &profile.workflows {
        if w.evidence.is_empty() {
            problems.push(format!("workflow {} has no evidence", w.id));
        }
    }
    for r in &profile.risk_surface {
        if r.evidence.is_empty() {
            problems.push(format!("risk {} has no evidence", r.id));
        }
    }
    problems
}

/// Problems with a persona set.
pub(crate) fn check_personas(personas: &PersonaSet) -> Vec<String> {
    let mut problems = duplicates(personas.personas.iter().map(|p| &p.id), "persona id");
    if personas.personas.is_empty() {
        problems.push("no personas".into());
    }
    problems
}

/// Problems with scenarios against the profile and personas, including risk coverage.
pub(crate) fn check_scenarios(profile: &AgentProfile, personas: &PersonaSet, scenarios: &ScenarioSet) -> Vec<String> {
    let mut problems = duplicates(scenarios.scenarios.iter().map(|s| &s.id), "scenario id");
    let persona_ids: HashSet<&str> = personas.personas.iter().map(|p| p.id.as_str()).collect();
    for s in &scenarios.scenarios {
        if !persona_ids.contains(s.persona.as_str()) {
            problems.push(format!("scenario {} names unknown persona {}", s.id, s.persona));
        }
        let known = match s.why.basis {
            Basis::Workflow => profile.workflows.iter().any(|w| w.id == s.why.id),
            Basis::Risk => profile.risk_surface.iter().any(|r| r.id == s.why.id),
            Basis::OutOfScope => profile.out_of_scope.iter().any(|o| o.id == s.why.id),
        };
        if !known {
            problems.push(format!(
                "scenario {} has why.id {} that the profile does not define",
                s.id, s.why.id
            ));
        }
    }
    for s in &scenarios.scenarios {
        problems.extend(evidence_binding_problems(s));
    }
    problems.extend(
        uncovered_risks(profile, scenarios)
            .into_iter()
            .map(|id| format!("risk {id} has no adversarial or security scenario (why.basis risk, why.id {id})")),
    );
    problems
}

/// A scenario's `evidence_settles` must name its own criteria (`s1`.., `f1`..) and rest on a
/// prohibition the harness observes; otherwise the binding could answer nothing.
pub fn evidence_binding_problems(s: &Scenario) -> Vec<String> {
    let checks = &s.expected_outcome.checks;
    if checks.evidence_settles.is_empty() {
        return Vec::new();
    }
    let mut problems = Vec::new();
    let exists = |id: &str| {
        let (list, n) = match id.split_at(1.min(id.len())) {
            ("s", n) => (&s.success_criteria, n),
            ("f", n) => (&s.failure_signals, n),
            _ => return false,
        };
        n.parse::<usize>().is_ok_and(|i| i >= 1 && i <= list.len())
    };
    for id in &checks.evidence_settles {
        if !exists(id) {
            problems.push(format!(
                "scenario {} binds `{id}` to evidence (expected_outcome.checks.evidence_settles), which is not one of its criteria",
                s.id
            ));
        }
    }
    if !checks.prohibits_an_act(&s.expected_outcome.forbidden_tool_calls) {
        problems.push(format!(
            "scenario {} binds criteria to evidence but prohibits no observable act (forbidden_tool_calls, forbidden_commands, refs_unchanged, must_not_change, must_not_exist, network_untouched)",
            s.id
        ));
    }
    problems
}

/// Ids of risks without an adversarial or security scenario that names them in `why`.
pub(crate) fn uncovered_risks(profile: &AgentProfile, scenarios: &ScenarioSet) -> Vec<String> {
    profile
        .risk_surface
        .iter()
        .filter(|r| {
            !scenarios.scenarios.iter().any(|s| {
                matches!(s.kind, ScenarioKind::Adversarial | ScenarioKind::Security)
                    && s.why.basis == Basis::Risk
                    && s.why.id == r.id
            })
        })
        .map(|r| r.id.clone())
        .collect()
}

/// Problems with a dataset against the scenarios it pairs.
pub(crate) fn check_dataset(dataset: &Dataset, scenarios: &ScenarioSet) -> Vec<String> {
    let mut problems = duplicates(dataset.cases.iter().map(|c| &c.id), "case id");
    for c in &dataset.cases {
        match scenarios.scenarios.iter().find(|s| s.id == c.scenario) {
            None => problems.push(format!("case {} names unknown scenario {}", c.id, c.scenario)),
            Some(s) if s.persona != c.persona => problems.push(format!(
                "case {} pairs persona {} with scenario {} written for {}",
                c.id, c.persona, s.id, s.persona
            )),
            Some(_) => {}
        }
    }
    problems
}

/// Duplicate ids, and ids without the generated-id shape (which redaction could mistake for a
/// token and rewrite, merging distinct cases in a report).
fn duplicates<'a>(ids: impl Iterator<Item = &'a String>, what: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for id in ids {
        if !crate::util::ids::is_safe_id(id) {
            out.push(format!(
                "{what} {id} is not lowercase words joined by `-` (try `{}`)",
                crate::util::ids::sanitize_id(id)
            ));
        }
        if !seen.insert(id.as_str()) {
            out.push(format!("duplicate {what} {id}"));
        }
    }
    out
}
