//! Item-level review of steps 9 (personas) and 10 (scenarios): add, edit, drop and regenerate
//! one item of the proposed set, and curate scenarios (approve / reject / needs-edit) through
//! the dataset's own states (`generate::Dataset`). Pure, like the rest of the state machine:
//! every change becomes a cached proposal and, for curation, a `SaveCuration` effect.

use serde_json::Value;

use super::apply::to_answer_yaml;
pub(crate) use super::review_errors::{RegenerateError, SetProblems};
use super::state::{Effect, Lab, Phase, Proposal, deciding};
use super::step::StepId;
pub use super::types::{ItemEdit, ReviewEvent};
use crate::generate::check::{check_personas, check_scenarios};
use crate::generate::schema::parse_artifact;
use crate::generate::{AgentProfile, ArtifactKind, CaseStatus, Dataset, PersonaSet, ScenarioSet};

/// The list a set step's YAML holds its items under.
pub(crate) fn list_key(step: StepId) -> Option<&'static str> {
    match step {
        StepId::Personas => Some("personas"),
        StepId::Scenarios => Some("scenarios"),
        _ => None,
    }
}

/// The items of a set proposal; `None` when the text is not a set of this step.
pub fn items(step: StepId, text: &str) -> Option<Vec<Value>> {
    let key = list_key(step)?;
    let value: Value = crate::spec::yaml_guard::parse_guarded(text).ok()?;
    value.get(key)?.as_array().cloned()
}

/// An item's `id` (empty when it has none).
pub fn item_id(item: &Value) -> String {
    item.get("id").and_then(Value::as_str).unwrap_or_default().to_string()
}

/// The curation a scenario set starts with: each case as `known` has it, else pending.
pub(crate) fn curation_for(text: &str, known: Option<&Dataset>) -> Option<Dataset> {
    let set: ScenarioSet = crate::spec::yaml_guard::parse_guarded(text).ok()?;
    let mut dataset = Dataset::from_scenarios(&set);
    if let Some(known) = known {
        for case in &mut dataset.cases {
            if let Some(old) = known.cases.iter().find(|c| c.id == case.id) {
                case.status = old.status;
                case.note = old.note.clone();
            }
        }
    }
    Some(dataset)
}

fn template(step: StepId, n: usize) -> String {
    let id = format!(
        "new-{}-{n}",
        if step == StepId::Personas {
            "persona"
        } else {
            "scenario"
        }
    );
    if step == StepId::Personas {
        return format!(
            "id: {id}\nname: New persona\nsummary: ''\ntraits: []\ncontext: ''\nwhy: added by hand in ghostlab lab\n"
        );
    }
    format!(
        "id: {id}\ntitle: New scenario\npersona: ''\ngoal: ''\nopening_message: ''\nsuccess_criteria: []\n\
         failure_signals: []\nstop_conditions: []\nmax_turns: 6\nexercises: []\nkind: workflow\n\
         why:\n  basis: workflow\n  id: ''\n  reason: added by hand\nexpected_outcome:\n  must_include: []\n  \
         must_not_include: []\n  expected_tool_calls: []\n"
    )
}

impl Lab {
    /// One review action on the current set step.
    pub(super) fn on_review(&mut self, event: ReviewEvent) -> Vec<Effect> {
        let Phase::Deciding { proposal, .. } = &self.phase else {
            return Vec::new();
        };
        let step = self.step;
        let Some(list) = items(step, &proposal.text) else {
            return Vec::new();
        };
        let proposal = proposal.clone();
        let position = |id: &str| list.iter().position(|v| item_id(v) == id);
        if !matches!(event, ReviewEvent::Drop(_)) {
            self.review.confirm_drop = None;
        }
        match event {
            ReviewEvent::Add => {
                self.review.editing = Some(ItemEdit::Add);
                self.phase = Phase::Editing {
                    draft: template(step, list.len() + 1),
                    proposal,
                    notice: None,
                };
                Vec::new()
            }
            ReviewEvent::EditItem(id) => {
                let Some(i) = position(&id) else { return Vec::new() };
                self.review.editing = Some(ItemEdit::Edit(id));
                self.phase = Phase::Editing {
                    draft: to_answer_yaml(&list[i]),
                    proposal,
                    notice: None,
                };
                Vec::new()
            }
            ReviewEvent::Drop(id) => {
                let Some(i) = position(&id) else { return Vec::new() };
                if step == StepId::Personas {
                    return self.drop_persona(&id, proposal, list, i);
                }
                let mut list = list;
                list.remove(i);
                self.replace_items(proposal, list, Some(&id))
            }
            ReviewEvent::RegenerateItem(id) => {
                if position(&id).is_none() {
                    return Vec::new();
                }
                self.review.regenerating = Some((id, proposal));
                let mut fx = vec![Effect::CancelWork];
                fx.extend(self.propose(None));
                fx
            }
            ReviewEvent::Curate { id, status } => {
                let Some(dataset) = &mut self.review.curation else {
                    return Vec::new();
                };
                if !dataset.set_status(std::slice::from_ref(&id), status, None).is_empty() {
                    return Vec::new();
                }
                self.curation_effects(&proposal.text)
            }
            ReviewEvent::CurateMany { ids, status } => {
                let Some(dataset) = &mut self.review.curation else {
                    return Vec::new();
                };
                // Ids the dataset does not know are skipped; the known ones change.
                if dataset.set_status(&ids, status, None).len() == ids.len() {
                    return Vec::new();
                }
                self.curation_effects(&proposal.text)
            }
        }
    }

    /// The editor of one item was saved: put the item into the set, or say what is wrong.
    pub(super) fn on_item_submitted(&mut self, edit: ItemEdit, text: String) -> Vec<Effect> {
        let Phase::Editing { proposal, .. } = &self.phase else {
            return Vec::new();
        };
        let proposal = proposal.clone();
        let mut list = items(self.step, &proposal.text).unwrap_or_default();
        let refuse = |lab: &mut Lab, notice: String| {
            lab.review.editing = Some(edit.clone());
            lab.phase = Phase::Editing {
                proposal: proposal.clone(),
                draft: text.clone(),
                notice: Some(notice),
            };
            Vec::new()
        };
        let item: Value = match crate::spec::yaml_guard::parse_guarded(&text) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => return refuse(self, "one item is a YAML mapping (id: …, name: …)".into()),
            Err(e) => return refuse(self, format!("not valid YAML: {e}")),
        };
        let changed = match &edit {
            ItemEdit::Add => {
                list.push(item);
                None
            }
            ItemEdit::Edit(id) => match list.iter().position(|v| &item_id(v) == id) {
                Some(i) => {
                    list[i] = item;
                    Some(id.clone())
                }
                None => return refuse(self, format!("`{id}` is no longer in the set")),
            },
        };
        if let Err(problems) = self.check_set(&proposal, &list) {
            return refuse(self, problems.to_string());
        }
        self.replace_items(proposal, list, changed.as_deref())
    }

    /// The proposer answered a regenerate-one request: keep only that item of its answer.
    pub(super) fn on_item_regenerated(&mut self, fresh: Result<Proposal, RegenerateError>) -> Vec<Effect> {
        let Some((id, base)) = self.review.regenerating.take() else {
            return Vec::new();
        };
        let mut list = items(self.step, &base.text).unwrap_or_default();
        let position = list.iter().position(|v| item_id(v) == id);
        let new_item = fresh.and_then(|p| {
            let new = items(self.step, &p.text).ok_or(RegenerateError::NotASet)?;
            new.iter()
                .find(|v| item_id(v) == id)
                .or_else(|| position.and_then(|i| new.get(i)))
                .cloned()
                .ok_or_else(|| RegenerateError::NoSuchItem { id: id.clone() })
        });
        match (new_item, position) {
            (Ok(item), Some(i)) => {
                list[i] = item;
                if let Err(problem) = self.check_set(&base, &list) {
                    self.phase = deciding(base, Some(format!("regenerated `{id}` is not valid: {problem}")));
                    return Vec::new();
                }
                self.replace_items(base, list, Some(&id))
            }
            (Err(e), _) => {
                self.phase = deciding(base, Some(format!("could not regenerate `{id}`: {e}")));
                Vec::new()
            }
            (Ok(_), None) => {
                self.phase = deciding(base, None);
                Vec::new()
            }
        }
    }

    /// Whether accepting step 10 must wait: nothing would run.
    pub(super) fn review_blocks_accept(&self) -> Option<String> {
        let dataset = self
            .review
            .curation
            .as_ref()
            .filter(|_| self.step == StepId::Scenarios)?;
        let runnable = dataset
            .cases
            .iter()
            .any(|c| matches!(c.status, CaseStatus::Pending | CaseStatus::Approved));
        (!runnable).then(|| "no scenario would run: approve (y) at least one, or reset one to pending".into())
    }

    /// Accepting step 10 approves every scenario still pending; rejected and needs-edit ones stay
    /// out of the run.
    pub(super) fn approve_pending(&mut self, text: &str) -> Vec<Effect> {
        let Some(dataset) = &mut self.review.curation else {
            return Vec::new();
        };
        for case in &mut dataset.cases {
            if case.status == CaseStatus::Pending {
                case.status = CaseStatus::Approved;
                case.note = Some("accepted in ghostlab lab".into());
            }
        }
        self.curation_effects(text)
    }

    /// Keeps the curation in step with the scenarios shown at step 10; a new or changed set is
    /// written at once, so dataset.json always describes what the person sees.
    pub(super) fn sync_curation(&mut self) -> Vec<Effect> {
        let Phase::Deciding { proposal, .. } = &self.phase else {
            return Vec::new();
        };
        if self.step != StepId::Scenarios {
            return Vec::new();
        }
        let text = proposal.text.clone();
        let fresh = curation_for(&text, self.review.curation.as_ref());
        if fresh.is_none() || fresh == self.review.curation {
            return Vec::new();
        }
        self.review.curation = fresh;
        self.curation_effects(&text)
    }

    fn check_set(&self, proposal: &Proposal, list: &[Value]) -> Result<(), SetProblems> {
        let set = self.set_value(proposal, list.to_vec());
        let problems = match self.step {
            StepId::Personas => parse_artifact::<PersonaSet>(ArtifactKind::Persona, set).map(|s| check_personas(&s)),
            _ => parse_artifact::<ScenarioSet>(ArtifactKind::Scenario, set).map(|s| self.scenario_problems(&s)),
        }
        .unwrap_or_else(|p| p);
        match problems.is_empty() {
            true => Ok(()),
            false => Err(SetProblems(problems)),
        }
    }

    /// Problems that make a scenario set unusable; an uncovered risk is the person's choice.
    fn scenario_problems(&self, set: &ScenarioSet) -> Vec<String> {
        let profile = self.artifacts.get(&StepId::Profile).cloned();
        let personas = self.artifacts.get(&StepId::Personas).cloned();
        let (Some(Ok(profile)), Some(Ok(personas))) = (
            profile.map(serde_json::from_value::<AgentProfile>),
            personas.map(serde_json::from_value::<PersonaSet>),
        ) else {
            return Vec::new();
        };
        check_scenarios(&profile, &personas, set)
            .into_iter()
            .filter(|p| !p.starts_with("risk "))
            .collect()
    }

    fn set_value(&self, proposal: &Proposal, list: Vec<Value>) -> Value {
        let mut value: Value = crate::spec::yaml_guard::parse_guarded(&proposal.text).unwrap_or(Value::Null);
        if !value.is_object() {
            value = serde_json::json!({"version": 1});
        }
        value[list_key(self.step).unwrap_or("items")] = Value::Array(list);
        value
    }

    /// Shows the changed set, caches it, and for scenarios brings the curation along (a changed
    /// scenario goes back to pending; a dropped one leaves the dataset).
    pub(super) fn replace_items(&mut self, proposal: Proposal, list: Vec<Value>, changed: Option<&str>) -> Vec<Effect> {
        let mut updated = proposal;
        updated.text = to_answer_yaml(&self.set_value(&updated, list));
        self.review.editing = None;
        self.cache.insert(self.step, updated.clone());
        self.phase = deciding(updated.clone(), None);
        let mut fx = vec![Effect::CacheProposal {
            step: self.step,
            proposal: updated.clone(),
        }];
        if self.step == StepId::Scenarios {
            let known = self.review.curation.take().map(|mut d| {
                d.cases.retain(|c| Some(c.id.as_str()) != changed);
                d
            });
            self.review.curation = curation_for(&updated.text, known.as_ref());
            fx.extend(self.curation_effects(&updated.text));
        }
        fx
    }

    pub(super) fn curation_effects(&self, text: &str) -> Vec<Effect> {
        let (Some(dataset), Ok(scenarios)) = (
            &self.review.curation,
            crate::spec::yaml_guard::parse_guarded::<ScenarioSet>(text),
        ) else {
            return Vec::new();
        };
        // Only a set that passes its schema is written; accepting the step reports the problem.
        if crate::generate::schema::checked_value(ArtifactKind::Scenario, &scenarios).is_err() {
            return Vec::new();
        }
        vec![Effect::SaveCuration {
            scenarios: Box::new(scenarios),
            dataset: Box::new(dataset.clone()),
        }]
    }
}
