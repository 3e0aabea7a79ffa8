//! Item-level review in the lab's state machine (steps 9 and 10) on the offline proposer's
//! artifacts for a copy of examples/release-bot: add, edit, drop and regenerate one persona;
//! approve / reject / needs-edit a scenario written through the dataset (read back from disk);
//! and the run path leaves rejected and needs-edit scenarios out.

use futures::future::BoxFuture;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

use crate::generate_support::release_bot_copy;
use ghostlab::generate::store::read_artifact;
use ghostlab::generate::{ArtifactKind, CaseStatus, Dataset, OfflineProposer, PersonaSet, Proposer, ScenarioSet};
use ghostlab::lab::apply::to_answer_yaml;
use ghostlab::lab::executors::PipelineGenerator;
use ghostlab::lab::review::{ReviewEvent, item_id, items};
use ghostlab::lab::{
    ConfiguredModels, Effect, Event, Executor, Lab, LabRunError, McpDiscovery, Phase, Proposal, RunStream, Saved,
    Seeds, StepId, StepProposer, SuiteRunner, store,
};
use ghostlab::spec::McpInput;

/// The offline proposer's profile, personas and scenarios for a private copy of the example.
pub struct Fixture {
    pub _tmp: tempfile::TempDir,
    pub dir: PathBuf,
    pub profile: Value,
    pub personas: PersonaSet,
    pub scenarios: ScenarioSet,
}

pub fn fixture() -> Fixture {
    let (tmp, dir) = release_bot_copy();
    let loaded = ghostlab::spec::load_job(&dir.join("job.yaml")).expect("job loads");
    let rt = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    let profile = rt
        .block_on(ghostlab::generate::pipeline::infer_profile(&loaded, &OfflineProposer))
        .expect("profile");
    let personas = rt
        .block_on(OfflineProposer.propose_personas(&profile, 3))
        .expect("personas");
    let scenarios = rt
        .block_on(OfflineProposer.propose_scenarios(&profile, &personas, 2))
        .expect("scenarios");
    Fixture {
        _tmp: tmp,
        dir,
        profile: serde_json::to_value(profile).expect("json"),
        personas,
        scenarios,
    }
}

/// A lab at `step` with everything before it accepted and `step`'s generated proposal shown.
pub fn lab_at(f: &Fixture, step: StepId, saved: Saved) -> Lab {
    let loaded = ghostlab::spec::load_job(&f.dir.join("job.yaml")).expect("job loads");
    let mut job = loaded.job;
    job.lab.completed = StepId::ALL[..step.index()].iter().map(|s| s.id().to_string()).collect();
    let mut saved = saved;
    saved.artifacts.insert(StepId::Profile, f.profile.clone());
    if step == StepId::Scenarios {
        saved
            .artifacts
            .insert(StepId::Personas, serde_json::to_value(&f.personas).expect("json"));
    }
    let mut lab = Lab::resume(job, saved);
    lab.handle(Event::Start);
    let text = match step {
        StepId::Personas => to_answer_yaml(&f.personas),
        StepId::Scenarios => to_answer_yaml(&f.scenarios),
        _ => to_answer_yaml(&f.profile),
    };
    lab.handle(Event::Proposed {
        step,
        proposal: Proposal::new(text, vec!["offline proposer".into()]),
    });
    lab
}

pub fn shown(lab: &Lab) -> Vec<Value> {
    match &lab.phase {
        Phase::Deciding { proposal, .. } => items(lab.step, &proposal.text).expect("a set"),
        other => panic!("not deciding: {other:?}"),
    }
}

fn notice(lab: &Lab) -> Option<String> {
    match &lab.phase {
        Phase::Deciding { notice, .. } | Phase::Editing { notice, .. } => notice.clone(),
        _ => None,
    }
}

fn caches(fx: &[Effect]) -> bool {
    fx.iter().any(|e| matches!(e, Effect::CacheProposal { .. }))
}

#[test]
fn add_edit_drop_and_regenerate_one_persona() {
    let f = fixture();
    let mut lab = lab_at(&f, StepId::Personas, Saved::default());
    let first = item_id(&shown(&lab)[0]);
    let second = item_id(&shown(&lab)[1]);
    let n = shown(&lab).len();

    // Add: the editor opens on a one-item template; a duplicate id is refused in place.
    lab.handle(Event::Review(ReviewEvent::Add));
    assert!(matches!(&lab.phase, Phase::Editing { draft, .. } if draft.contains("name: New persona")));
    let dup = format!("id: {first}\nname: X\nsummary: s\ntraits: []\ncontext: c\nwhy: w\n");
    lab.handle(Event::EditSubmitted(dup));
    assert!(
        notice(&lab).is_some_and(|n| n.contains("duplicate persona id")),
        "{:?}",
        notice(&lab)
    );
    let added = "id: night-oncall\nname: Night on-call\nsummary: paged at 3am\ntraits: [tired]\ncontext: c\nwhy: w\n";
    let fx = lab.handle(Event::EditSubmitted(added.into()));
    assert!(caches(&fx), "every change is cached at once: {fx:?}");
    assert_eq!(shown(&lab).len(), n + 1);
    assert_eq!(item_id(&shown(&lab)[n]), "night-oncall");

    // Edit one: the draft is that item's YAML; the new name replaces it in place.
    lab.handle(Event::Review(ReviewEvent::EditItem(first.clone())));
    let Phase::Editing { draft, .. } = &lab.phase else {
        panic!("editing")
    };
    assert!(draft.starts_with("id: ") && !draft.contains("personas:"), "{draft}");
    let renamed = draft.replacen(&format!("name: {}", shown_name(&f, 0)), "name: Renamed in review", 1);
    assert_ne!(&renamed, draft);
    lab.handle(Event::EditSubmitted(renamed));
    assert_eq!(shown(&lab)[0]["name"], "Renamed in review");
    // Not YAML of a mapping: refused, the editor keeps the text.
    lab.handle(Event::Review(ReviewEvent::EditItem(first.clone())));
    lab.handle(Event::EditSubmitted("- just a list".into()));
    assert!(notice(&lab).is_some_and(|n| n.contains("mapping")));
    // An edit meets the same YAML guard as job.yaml: nesting hidden after a comment that a bare
    // CR ends is refused with its line, and the editor keeps the text.
    let hostile = format!("id: x # note\rtraits: {}1{}\n", "[".repeat(50_000), "]".repeat(50_000));
    lab.handle(Event::EditSubmitted(hostile));
    assert!(
        notice(&lab).is_some_and(|n| n.contains("nesting") && n.contains("line 2")),
        "{:?}",
        notice(&lab)
    );
    lab.handle(Event::EditCancelled);
    assert!(lab.review.editing.is_none());

    // Drop one.
    let fx = lab.handle(Event::Review(ReviewEvent::Drop(second.clone())));
    assert!(caches(&fx));
    assert!(shown(&lab).iter().all(|p| item_id(p) != second));
    assert_eq!(shown(&lab).len(), n);

    // Regenerate one: asks the proposer, keeps only that item of its answer.
    let fx = lab.handle(Event::Review(ReviewEvent::RegenerateItem(first.clone())));
    assert!(fx.iter().any(|e| matches!(
        e,
        Effect::Propose {
            step: StepId::Personas,
            ..
        }
    )));
    assert!(matches!(lab.phase, Phase::Proposing { .. }));
    lab.handle(Event::Proposed {
        step: StepId::Personas,
        proposal: Proposal::new(to_answer_yaml(&f.personas), vec![]),
    });
    let now = shown(&lab);
    assert_eq!(
        now[0]["name"].as_str(),
        Some(shown_name(&f, 0).as_str()),
        "the template is back"
    );
    assert!(now.iter().any(|p| item_id(p) == "night-oncall"), "the others are kept");
    assert!(
        now.iter().all(|p| item_id(p) != second),
        "a dropped one does not come back"
    );

    // A failed regeneration keeps the set and says why.
    lab.handle(Event::Review(ReviewEvent::RegenerateItem(first)));
    lab.handle(Event::ProposalFailed {
        step: StepId::Personas,
        error: ghostlab::lab::ProposeError::from(ghostlab::lab::GeneratorError::Backend("model down".into())).into(),
    });
    assert_eq!(shown(&lab), now);
    assert!(notice(&lab).is_some_and(|n| n.contains("model down")));

    // Accepting saves the edited set as the step's artifact.
    let fx = lab.handle(Event::Accept);
    let saved = fx.iter().find_map(|e| match e {
        Effect::SaveArtifact { value, .. } => Some(value.clone()),
        _ => None,
    });
    let personas: PersonaSet = serde_json::from_value(saved.expect("artifact")).expect("a persona set");
    assert!(personas.personas.iter().any(|p| p.id == "night-oncall"));
}

fn shown_name(f: &Fixture, i: usize) -> String {
    f.personas.personas[i].name.clone()
}

struct NoDiscovery;

impl McpDiscovery for NoDiscovery {
    fn discover(
        &self,
        _: PathBuf,
        _: McpInput,
        _: CancellationToken,
    ) -> BoxFuture<'static, Result<ghostlab::lab::Discovered, ghostlab::lab::DiscoveryError>> {
        Box::pin(async {
            Err(ghostlab::lab::DiscoveryError::Failed(
                "fake: discovery is not part of this test".into(),
            ))
        })
    }
}

struct NoRun;

impl SuiteRunner for NoRun {
    fn run(
        &self,
        _: PathBuf,
        _: RunStream,
        _: CancellationToken,
    ) -> BoxFuture<'static, Result<ghostlab::app::RunResults, LabRunError>> {
        Box::pin(async { Err(LabRunError::Backend("fake: the run is not part of this test".into())) })
    }
}

/// Performs the saving effects with the real executor (proposals and runs are not started).
fn perform(exec: &mut Executor, fx: Vec<Effect>) {
    for e in fx {
        if matches!(e, Effect::Propose { .. } | Effect::RunSuite | Effect::CancelWork) {
            continue;
        }
        exec.perform(e).expect("effect");
    }
}

fn on_disk(dir: &Path) -> Dataset {
    read_artifact(&dir.join(".ghostlab"), ArtifactKind::Dataset).expect("dataset.json")
}

fn status(d: &Dataset, id: &str) -> Option<CaseStatus> {
    d.cases.iter().find(|c| c.id == id).map(|c| c.status)
}

#[test]
fn curation_is_written_through_the_dataset_and_the_run_honours_it() {
    let f = fixture();
    let job_file = f.dir.join("job.yaml");
    let (tx, _rx) = unbounded_channel();
    let proposer = StepProposer {
        job_file: job_file.clone(),
        seeds: Seeds::default(),
        models: Arc::new(ConfiguredModels),
        generator: Arc::new(PipelineGenerator),
    };
    let mut exec = Executor::new(proposer, Arc::new(NoDiscovery), Arc::new(NoRun), tx);
    let lab_dir = f.dir.join(".ghostlab/lab");
    store::save_artifact(&lab_dir, StepId::Profile, &f.profile).expect("profile");
    store::save_artifact(&lab_dir, StepId::Personas, &serde_json::to_value(&f.personas).unwrap()).expect("personas");

    let mut lab = lab_at(&f, StepId::Scenarios, Saved::default());
    // Showing a new set writes it, every case pending.
    let ids: Vec<String> = f.scenarios.scenarios.iter().map(|s| s.id.clone()).collect();
    let d = lab.review.curation.clone().expect("curation");
    assert!(d.cases.iter().all(|c| c.status == CaseStatus::Pending));
    let (a, b, c, gone, edited) = (&ids[0], &ids[1], &ids[2], &ids[3], &ids[4]);
    let curate =
        |lab: &mut Lab, id: &str, status| lab.handle(Event::Review(ReviewEvent::Curate { id: id.into(), status }));
    let mut fx = curate(&mut lab, a, CaseStatus::Approved);
    fx.extend(curate(&mut lab, b, CaseStatus::Rejected));
    fx.extend(curate(&mut lab, c, CaseStatus::NeedsEdit));
    fx.extend(curate(&mut lab, edited, CaseStatus::Rejected));
    perform(&mut exec, fx);
    let d = on_disk(&f.dir);
    assert_eq!(status(&d, a), Some(CaseStatus::Approved));
    assert_eq!(status(&d, b), Some(CaseStatus::Rejected));
    assert_eq!(status(&d, c), Some(CaseStatus::NeedsEdit));

    // Drop one: it leaves scenarios.json and the dataset.
    perform(&mut exec, lab.handle(Event::Review(ReviewEvent::Drop(gone.clone()))));
    assert_eq!(status(&on_disk(&f.dir), gone), None);
    let written: ScenarioSet = read_artifact(&f.dir.join(".ghostlab"), ArtifactKind::Scenario).expect("scenarios");
    assert!(written.scenarios.iter().all(|s| &s.id != gone));

    // Edit one: it goes back to pending review.
    lab.handle(Event::Review(ReviewEvent::EditItem(edited.clone())));
    let Phase::Editing { draft, .. } = &lab.phase else {
        panic!("editing")
    };
    let changed: String = draft
        .lines()
        .map(|l| if l.starts_with("max_turns:") { "max_turns: 3" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(&changed, draft);
    perform(&mut exec, lab.handle(Event::EditSubmitted(changed)));
    assert_eq!(notice(&lab), None);
    assert_eq!(status(&on_disk(&f.dir), edited), Some(CaseStatus::Pending));

    // A reloaded lab reads the same curation from disk.
    let saved = store::load_saved(&lab_dir, &lab.job).expect("saved");
    assert_eq!(saved.curation.as_ref(), lab.review.curation.as_ref());

    // Accept: what is still pending is approved; rejected and needs-edit stay out.
    perform(&mut exec, lab.handle(Event::Accept));
    assert_eq!(lab.step, StepId::Gates);
    let d = on_disk(&f.dir);
    assert_eq!(status(&d, edited), Some(CaseStatus::Approved));
    assert_eq!(status(&d, b), Some(CaseStatus::Rejected));

    // The run path: publishing the accepted artifacts keeps the curation; only approved run.
    let loaded = ghostlab::spec::load_job(&job_file).expect("job");
    ghostlab::lab::executors::publish_accepted(&job_file, &loaded).expect("publish");
    let cases =
        ghostlab::run::case::dataset_cases::load_cases(&loaded.state_dir(), &Default::default()).expect("cases");
    let run: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert!(run.contains(&a.as_str()) && run.contains(&edited.as_str()), "{run:?}");
    for out in [b, c, gone] {
        assert!(!run.contains(&out.as_str()), "{out} must not run: {run:?}");
    }
    assert_eq!(run.len(), ids.len() - 3);
}

#[test]
fn accepting_with_nothing_to_run_is_refused() {
    let f = fixture();
    let mut lab = lab_at(&f, StepId::Scenarios, Saved::default());
    for s in &f.scenarios.scenarios {
        lab.handle(Event::Review(ReviewEvent::Curate {
            id: s.id.clone(),
            status: CaseStatus::Rejected,
        }));
    }
    let fx = lab.handle(Event::Accept);
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(lab.step, StepId::Scenarios);
    assert!(notice(&lab).is_some_and(|n| n.contains("no scenario would run")));
    // Reset one to pending and accept: it goes through.
    let id = f.scenarios.scenarios[0].id.clone();
    lab.handle(Event::Review(ReviewEvent::Curate {
        id,
        status: CaseStatus::Pending,
    }));
    lab.handle(Event::Accept);
    assert_eq!(lab.step, StepId::Gates);
}

#[test]
fn regenerating_all_scenarios_starts_the_review_again() {
    let f = fixture();
    let mut lab = lab_at(&f, StepId::Scenarios, Saved::default());
    let id = f.scenarios.scenarios[0].id.clone();
    lab.handle(Event::Review(ReviewEvent::Curate {
        id: id.clone(),
        status: CaseStatus::Rejected,
    }));
    lab.handle(Event::Regenerate { hint: None });
    let fx = lab.handle(Event::Proposed {
        step: StepId::Scenarios,
        proposal: Proposal::new(to_answer_yaml(&f.scenarios), vec![]),
    });
    let d = lab.review.curation.clone().expect("curation");
    assert_eq!(status(&d, &id), Some(CaseStatus::Pending));
    assert!(fx.iter().any(|e| matches!(e, Effect::SaveCuration { .. })), "{fx:?}");
}
