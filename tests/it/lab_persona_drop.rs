//! Step 9: dropping a persona takes its scenarios along, from the accepted set, the proposal
//! waiting at step 10 and the dataset's curation; when some of them are approved, a first `d`
//! asks and a second one drops.

use serde_json::Value;

use crate::lab_review::{Fixture, fixture, lab_at, shown};
use ghostlab::generate::{CaseStatus, Dataset, ScenarioSet};
use ghostlab::lab::apply::to_answer_yaml;
use ghostlab::lab::review::{ReviewEvent, item_id};
use ghostlab::lab::{Effect, Event, Lab, Phase, Proposal, Saved, StepId};

/// A lab at step 9 whose scenarios were accepted before (the person came back to step 9),
/// with one scenario of persona `approved_of` approved and a step-10 proposal cached.
fn revisited(f: &Fixture, approved_of: &str) -> Lab {
    let mut dataset = Dataset::from_scenarios(&f.scenarios);
    let approved: Vec<String> = f
        .scenarios
        .scenarios
        .iter()
        .filter(|s| s.persona == approved_of)
        .map(|s| s.id.clone())
        .take(1)
        .collect();
    assert!(dataset.set_status(&approved, CaseStatus::Approved, None).is_empty());
    let mut saved = Saved {
        curation: Some(dataset),
        ..Saved::default()
    };
    saved
        .artifacts
        .insert(StepId::Scenarios, serde_json::to_value(&f.scenarios).expect("json"));
    saved
        .proposals
        .insert(StepId::Scenarios, Proposal::new(to_answer_yaml(&f.scenarios), vec![]));
    lab_at(f, StepId::Personas, saved)
}

fn personas_of(set: &ScenarioSet) -> Vec<String> {
    set.scenarios.iter().map(|s| s.persona.clone()).collect()
}

/// The scenario set and dataset the effects write, and whether step 10's proposal was re-cached.
fn written(fx: &[Effect]) -> (Option<ScenarioSet>, Option<Dataset>, bool) {
    let mut out = (None, None, false);
    for e in fx {
        match e {
            Effect::SaveArtifact {
                step: StepId::Scenarios,
                value,
            } => out.0 = Some(serde_json::from_value(value.clone()).expect("a scenario set")),
            Effect::SaveCuration { dataset, .. } => out.1 = Some((**dataset).clone()),
            Effect::CacheProposal {
                step: StepId::Scenarios,
                proposal,
            } => out.2 = yaml_serde::from_str::<Value>(&proposal.text).is_ok(),
            _ => {}
        }
    }
    out
}

fn notice(lab: &Lab) -> String {
    match &lab.phase {
        Phase::Deciding { notice, .. } => notice.clone().unwrap_or_default(),
        other => panic!("not deciding: {other:?}"),
    }
}

#[test]
fn dropping_a_persona_drops_its_scenarios_everywhere() {
    let f = fixture();
    let ids: Vec<String> = f.personas.personas.iter().map(|p| p.id.clone()).collect();
    let (gone, kept) = (&ids[1], &ids[0]);
    let mut lab = revisited(&f, kept);
    let theirs = personas_of(&f.scenarios).iter().filter(|p| *p == gone).count();
    assert!(theirs > 0, "the fixture gives every persona scenarios");

    let fx = lab.handle(Event::Review(ReviewEvent::Drop(gone.clone())));
    assert!(!shown(&lab).iter().any(|p| &item_id(p) == gone));
    assert_eq!(notice(&lab), format!("dropped `{gone}` and its {theirs} scenario(s)"));
    let (set, dataset, recached) = written(&fx);
    let set = set.expect("the accepted scenario set is rewritten");
    assert!(!personas_of(&set).contains(gone));
    assert_eq!(set.scenarios.len(), f.scenarios.scenarios.len() - theirs);
    let dataset = dataset.expect("the curation is rewritten");
    assert_eq!(
        dataset.cases.len(),
        set.scenarios.len(),
        "the dataset describes the same set"
    );
    assert!(
        dataset.cases.iter().any(|c| c.status == CaseStatus::Approved),
        "others keep their state"
    );
    assert!(recached, "step 10's waiting proposal loses them too");
}

#[test]
fn a_persona_with_approved_scenarios_is_dropped_on_the_second_d() {
    let f = fixture();
    let persona = f.personas.personas[0].id.clone();
    let mut lab = revisited(&f, &persona);
    let before = shown(&lab).len();

    let fx = lab.handle(Event::Review(ReviewEvent::Drop(persona.clone())));
    assert!(fx.is_empty(), "nothing is written before the person confirms: {fx:?}");
    assert_eq!(shown(&lab).len(), before);
    assert!(notice(&lab).contains("1 approved: d again drops"), "{}", notice(&lab));

    // Another action in between withdraws the question.
    lab.handle(Event::Review(ReviewEvent::EditItem("no-such-persona".into())));
    assert!(lab.handle(Event::Review(ReviewEvent::Drop(persona.clone()))).is_empty());
    let fx = lab.handle(Event::Review(ReviewEvent::Drop(persona.clone())));
    assert_eq!(shown(&lab).len(), before - 1);
    let (set, dataset, _) = written(&fx);
    assert!(!personas_of(&set.expect("set")).contains(&persona));
    assert!(
        dataset
            .expect("dataset")
            .cases
            .iter()
            .all(|c| c.status != CaseStatus::Approved),
        "the approved scenario went with its persona"
    );
}
