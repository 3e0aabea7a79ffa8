//! Dropping a persona at step 9 takes its scenarios along: from the scenario proposal waiting
//! at step 10, from the accepted scenario set, and from the dataset's curation, so no scenario
//! is left for a persona that no longer exists. When some of them were already approved, the
//! first `d` only says so and a second `d` on the same persona confirms.

use serde_json::Value;

use super::apply::to_answer_yaml;
use super::review::item_id;
use super::state::{Effect, Lab, Phase, Proposal, deciding};
use super::step::StepId;
use crate::generate::CaseStatus;

impl Lab {
    /// `d` on persona `id` (at index `i` of `list`, the shown set).
    pub(super) fn drop_persona(&mut self, id: &str, proposal: Proposal, mut list: Vec<Value>, i: usize) -> Vec<Effect> {
        let theirs = self.scenarios_of(id);
        let approved = self.review.curation.as_ref().map_or(0, |d| {
            d.cases
                .iter()
                .filter(|c| c.status == CaseStatus::Approved && theirs.contains(&c.id))
                .count()
        });
        let confirmed = self.review.confirm_drop.take().as_deref() == Some(id);
        if approved > 0 && !confirmed {
            self.review.confirm_drop = Some(id.to_string());
            self.phase = deciding(
                proposal,
                Some(format!(
                    "`{id}` has {} scenario(s), {approved} approved: d again drops the persona and all of them",
                    theirs.len()
                )),
            );
            return Vec::new();
        }
        list.remove(i);
        let mut fx = self.replace_items(proposal, list, Some(id));
        if !theirs.is_empty() {
            fx.extend(self.drop_scenarios(&theirs));
            if let Phase::Deciding { notice, .. } = &mut self.phase {
                *notice = Some(format!("dropped `{id}` and its {} scenario(s)", theirs.len()));
            }
        }
        fx
    }

    /// Ids of the scenarios for persona `id`, in the accepted set and in step 10's proposal.
    fn scenarios_of(&self, id: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let accepted = self.artifacts.get(&StepId::Scenarios).cloned();
        let proposed = self
            .cache
            .get(&StepId::Scenarios)
            .and_then(|p| crate::spec::yaml_guard::parse_guarded::<Value>(&p.text).ok());
        for set in [accepted, proposed].into_iter().flatten() {
            for s in scenario_list(&set) {
                let sid = item_id(s);
                if s.get("persona").and_then(Value::as_str) == Some(id) && !out.contains(&sid) {
                    out.push(sid);
                }
            }
        }
        out
    }

    /// Removes scenarios `ids` everywhere the lab keeps them, and writes what changed.
    fn drop_scenarios(&mut self, ids: &[String]) -> Vec<Effect> {
        let keep = |s: &Value| !ids.contains(&item_id(s));
        let mut fx = Vec::new();
        if let Some(mut proposal) = self.cache.get(&StepId::Scenarios).cloned()
            && let Ok(mut set) = crate::spec::yaml_guard::parse_guarded::<Value>(&proposal.text)
        {
            retain_scenarios(&mut set, keep);
            proposal.text = to_answer_yaml(&set);
            self.cache.insert(StepId::Scenarios, proposal.clone());
            fx.push(Effect::CacheProposal {
                step: StepId::Scenarios,
                proposal,
            });
        }
        if let Some(set) = self.artifacts.get_mut(&StepId::Scenarios) {
            retain_scenarios(set, keep);
            fx.push(Effect::SaveArtifact {
                step: StepId::Scenarios,
                value: set.clone(),
            });
        }
        if let Some(dataset) = &mut self.review.curation {
            dataset.cases.retain(|c| !ids.contains(&c.id));
            // The set the dataset describes: the accepted one, else the one under review.
            let text = match (
                self.artifacts.get(&StepId::Scenarios),
                self.cache.get(&StepId::Scenarios),
            ) {
                (Some(set), _) => to_answer_yaml(set),
                (None, Some(p)) => p.text.clone(),
                (None, None) => return fx,
            };
            fx.extend(self.curation_effects(&text));
        }
        fx
    }
}

/// The items of a scenario set (`{scenarios: [...]}` or a bare list).
fn scenario_list(set: &Value) -> &[Value] {
    set.get("scenarios")
        .unwrap_or(set)
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn retain_scenarios(set: &mut Value, keep: impl Fn(&Value) -> bool) {
    let list = match set.get_mut("scenarios") {
        Some(l) => l,
        None => set,
    };
    if let Some(items) = list.as_array_mut() {
        items.retain(keep);
    }
}
