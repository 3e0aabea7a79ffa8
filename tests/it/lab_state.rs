//! State-machine tests of `ghostlab lab`: every transition, and resume from a job.yaml saved
//! after each of the twelve steps.

use ghostlab::lab::{Discovery, Effect, Event, Lab, Phase, Proposal, RunOutcome, Saved, StepId};
use ghostlab::spec::job::Capabilities;
use ghostlab::spec::{Job, SandboxBackend};

/// A valid answer for each step (the kind a proposer would produce).
fn answer(step: StepId) -> Proposal {
    let text = match step {
        StepId::Source => "version: 1\nagent:\n  id: demo\n",
        StepId::Purpose => "Answers questions about the release process.",
        StepId::Model => "openai/gpt-4.1",
        StepId::Mcps => "- server: tools\n  command: [node, tools.mjs]\n  enabled: true\n",
        StepId::Skills => "instructions: []\nskills: []\n",
        StepId::Permissions => "bash: ask\nedit: allow\nexternal_directory: deny\nwebfetch: deny\n",
        StepId::Sandbox => "backend: bubblewrap\nnetwork: disabled\n",
        StepId::Profile => "purpose: releases\nworkflows: [cut a release]\n",
        StepId::Personas => "- id: maintainer\n  goal: ship 1.2.0\n",
        StepId::Scenarios => "- persona: maintainer\n  id: happy-path\n",
        StepId::Gates => "min_pass_rate: 0.8\nmax_inconclusive_rate: 0.2\n",
        StepId::Preview => "version: 1\n",
    };
    let mut p = Proposal::new(text, vec![format!("note for {}", step.id())]);
    p.editable = step != StepId::Preview;
    p
}

fn proposes(fx: &[Effect], step: StepId) -> bool {
    fx.iter()
        .any(|e| matches!(e, Effect::Propose { step: s, .. } if *s == step))
}

fn saved_job(fx: &[Effect]) -> Option<Job> {
    fx.iter().find_map(|e| match e {
        Effect::SaveJob(j) => Some((**j).clone()),
        _ => None,
    })
}

/// Walks one step from Proposing to accepted; returns the effects of the accept.
fn accept_step(lab: &mut Lab, step: StepId) -> Vec<Effect> {
    assert_eq!(lab.step, step);
    let fx = lab.handle(Event::Proposed {
        step,
        proposal: answer(step),
    });
    let cached = fx.iter().any(|e| matches!(e, Effect::CacheProposal { .. }));
    assert_eq!(
        cached,
        step.artifact_file().is_some(),
        "only paid-for proposals are cached: {step:?}"
    );
    if step == StepId::Mcps {
        assert!(
            fx.iter()
                .any(|e| matches!(e, Effect::Discover { server, .. } if server == "tools"))
        );
        let fx = lab.handle(Event::Discovered {
            server: "tools".into(),
            result: Ok(ghostlab::lab::Discovered {
                capabilities: Capabilities {
                    tools: vec!["cut_release".into()],
                    ..Default::default()
                },
                lint: ghostlab::lab::ServerLint {
                    counts: Default::default(),
                    contract: ".ghostlab/contract.json".into(),
                },
            }),
        });
        assert!(fx.is_empty());
    }
    lab.handle(Event::Accept)
}

/// The job saved after each step, in order.
fn walk_all() -> (Lab, Vec<Job>) {
    let mut lab = Lab::new();
    assert!(proposes(&lab.handle(Event::Start), StepId::Source));
    let mut jobs = Vec::new();
    for step in StepId::ALL {
        let fx = accept_step(&mut lab, step);
        let job = saved_job(&fx).unwrap_or_else(|| panic!("no SaveJob after accepting {step:?}: {fx:?}"));
        match step.next() {
            Some(next) => {
                assert_eq!(job.lab.completed.last().map(String::as_str), Some(step.id()));
                assert!(proposes(&fx, next), "{step:?} → {next:?}: {fx:?}");
            }
            None => {
                // The run step is done when its run finished, not when it started.
                assert!(
                    !job.lab.completed.iter().any(|c| c == step.id()),
                    "{:?}",
                    job.lab.completed
                );
                assert!(fx.iter().any(|e| matches!(e, Effect::RunSuite)));
            }
        }
        if let Some(file) = step.artifact_file() {
            assert!(
                fx.iter()
                    .any(|e| matches!(e, Effect::SaveArtifact { step: s, .. } if *s == step)),
                "{file}"
            );
        }
        jobs.push(job);
    }
    (lab, jobs)
}

#[test]
fn all_twelve_steps_accept_save_and_advance() {
    let (mut lab, jobs) = walk_all();
    let last = jobs.last().expect("jobs");
    assert_eq!(last.lab.completed.len(), 11, "step 12 waits for its run");
    assert_eq!(last.agent.id, "demo");
    assert_eq!(
        last.agent.description.as_deref(),
        Some("Answers questions about the release process.")
    );
    assert_eq!(last.agent.runtime.model.as_deref(), Some("openai/gpt-4.1"));
    assert_eq!(last.capabilities["tools"].tools, vec!["cut_release".to_string()]);
    assert_eq!(last.review.gates.min_pass_rate, Some(0.8));
    assert!(matches!(lab.phase, Phase::Running { outcome: None, .. }));
    assert_eq!(lab.artifacts.len(), 3);
    // A failed run leaves step 12 open; a finished one records it.
    assert!(
        saved_job(&lab.handle(Event::RunFinished(Err(
            ghostlab::lab::LabRunError::Backend("down".into()).into()
        ))))
        .is_none()
    );
    // The runner's own error reaches the results screen whole: its variant and its words.
    let Phase::Running {
        outcome: Some(RunOutcome::Failed(e)),
        ..
    } = &lab.phase
    else {
        panic!("{:?}", lab.phase)
    };
    assert!(matches!(e.get(), ghostlab::lab::LabRunError::Backend(_)), "{e:?}");
    assert_eq!(e.to_string(), "down");
    let done = saved_job(
        &lab.handle(Event::RunFinished(Ok(Box::new(crate::run_fakes::fake_results(
            "r", true,
        ))))),
    )
    .expect("saved");
    assert_eq!(done.lab.completed.len(), 12);
    assert_eq!(
        done.lab.completed.last().map(String::as_str),
        Some(StepId::Preview.id())
    );
}

#[test]
fn resume_from_a_job_saved_after_each_step() {
    let (_, jobs) = walk_all();
    let dir = tempfile::tempdir().expect("tempdir");
    for (i, job) in jobs.iter().enumerate() {
        let path = dir.path().join(format!("job-{i}.yaml"));
        ghostlab::spec::save_job(&path, job).expect("save");
        let loaded = ghostlab::spec::load_job(&path).unwrap_or_else(|e| panic!("job after step {}: {e}", i + 1));
        assert_eq!(&loaded.job, job, "round trip after step {}", i + 1);
        let mut lab = Lab::resume(loaded.job, Saved::default());
        let expected = StepId::ALL.get(i + 1).copied().unwrap_or(StepId::Preview);
        assert_eq!(lab.step, expected, "resume after step {}", i + 1);
        assert_eq!(lab.job, *job, "everything before the step is intact");
        let fx = lab.handle(Event::Start);
        assert!(proposes(&fx, expected));
    }
}

#[test]
fn a_cached_proposal_is_not_paid_for_twice() {
    let (_, jobs) = walk_all();
    let mut saved = Saved::default();
    saved.proposals.insert(StepId::Personas, answer(StepId::Personas));
    saved
        .artifacts
        .insert(StepId::Profile, serde_json::json!({"purpose": "releases"}));
    let mut lab = Lab::resume(jobs[7].clone(), saved);
    assert_eq!(lab.step, StepId::Personas);
    let fx = lab.handle(Event::Start);
    assert!(fx.is_empty(), "no Propose for a cached proposal: {fx:?}");
    assert!(matches!(&lab.phase, Phase::Deciding { proposal, .. } if *proposal == answer(StepId::Personas)));
    // The profile accepted earlier reaches the next proposer.
    let fx = lab.handle(Event::Accept);
    let artifacts = fx.iter().find_map(|e| match e {
        Effect::Propose { artifacts, .. } => Some(artifacts.clone()),
        _ => None,
    });
    assert!(artifacts.expect("propose scenarios").contains_key(&StepId::Profile));
}

#[test]
fn edit_submit_invalid_then_valid_then_cancel() {
    let mut lab = Lab::resume(Job::default(), Saved::default());
    lab.job.lab.completed.push("source".into());
    let mut lab = Lab::resume(lab.job, Saved::default());
    lab.handle(Event::Start);
    lab.handle(Event::Proposed {
        step: StepId::Purpose,
        proposal: answer(StepId::Purpose),
    });
    lab.handle(Event::Edit);
    assert!(matches!(&lab.phase, Phase::Editing { draft, .. } if draft.starts_with("Answers")));
    lab.handle(Event::EditCancelled);
    assert!(matches!(lab.phase, Phase::Deciding { .. }));
    lab.handle(Event::Edit);
    let fx = lab.handle(Event::EditSubmitted("   ".into()));
    assert!(fx.is_empty());
    assert!(matches!(&lab.phase, Phase::Editing { notice: Some(n), .. } if n.contains("empty")));
    let fx = lab.handle(Event::EditSubmitted("My own words.".into()));
    let job = saved_job(&fx).expect("saved");
    assert_eq!(job.agent.description.as_deref(), Some("My own words."));
    assert_eq!(lab.step, StepId::Model);
}

fn at(step: StepId) -> Lab {
    let mut job = Job::default();
    job.lab.completed = StepId::ALL[..step.index()].iter().map(|s| s.id().to_string()).collect();
    let mut lab = Lab::resume(job, Saved::default());
    lab.handle(Event::Start);
    lab
}

#[test]
fn regenerate_with_hint_and_retry_after_failure() {
    let mut lab = at(StepId::Profile);
    lab.handle(Event::Proposed {
        step: StepId::Profile,
        proposal: answer(StepId::Profile),
    });
    let fx = lab.handle(Event::Regenerate {
        hint: Some("focus on rollbacks".into()),
    });
    assert!(fx.contains(&Effect::DropCachedProposal { step: StepId::Profile }));
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Propose { hint: Some(h), .. } if h == "focus on rollbacks"))
    );
    assert!(matches!(lab.phase, Phase::Proposing { tick: 0 }));
    lab.handle(Event::ProposalFailed {
        step: StepId::Profile,
        error: ghostlab::lab::ProposeError::from(ghostlab::lab::GeneratorError::Backend(
            "model timed out after 60 s".into(),
        ))
        .into(),
    });
    assert!(matches!(&lab.phase, Phase::Failed { error } if error.contains("timed out")));
    assert!(lab.handle(Event::Accept).is_empty(), "nothing to accept in Failed");
    assert!(proposes(&lab.handle(Event::Retry), StepId::Profile));
    lab.handle(Event::ProposalFailed {
        step: StepId::Profile,
        error: ghostlab::lab::ProposeError::from(ghostlab::lab::GeneratorError::Backend("again".into())).into(),
    });
    assert!(proposes(&lab.handle(Event::Regenerate { hint: None }), StepId::Profile));
}

#[test]
fn cancel_proposing_and_ignore_late_answers() {
    let mut lab = at(StepId::Personas);
    let fx = lab.handle(Event::Cancel);
    assert_eq!(fx, vec![Effect::CancelWork]);
    assert!(matches!(lab.phase, Phase::Failed { .. }));
    assert!(
        lab.handle(Event::Proposed {
            step: StepId::Personas,
            proposal: answer(StepId::Personas)
        })
        .is_empty()
    );
    assert!(matches!(lab.phase, Phase::Failed { .. }));
    // An answer for another step never lands on this one.
    lab.handle(Event::Retry);
    lab.handle(Event::Proposed {
        step: StepId::Model,
        proposal: answer(StepId::Model),
    });
    assert!(matches!(lab.phase, Phase::Proposing { .. }));
}

#[test]
fn ctrl_c_asks_and_never_accepts() {
    let mut lab = at(StepId::Model);
    lab.handle(Event::Proposed {
        step: StepId::Model,
        proposal: answer(StepId::Model),
    });
    lab.handle(Event::Interrupt);
    assert!(lab.confirm_quit);
    assert!(
        lab.handle(Event::Accept).is_empty(),
        "Ctrl-C then Enter must not accept"
    );
    assert!(lab.job.agent.runtime.model.is_none());
    lab.handle(Event::QuitCancelled);
    assert!(!lab.confirm_quit);
    lab.handle(Event::Interrupt);
    let fx = lab.handle(Event::QuitConfirmed);
    assert!(matches!(fx.first(), Some(Effect::SaveJob(j)) if j.lab.completed == ["source", "purpose"]));
    assert_eq!(fx.last(), Some(&Effect::Quit));
    assert!(lab.quit);
    assert!(lab.job.agent.runtime.model.is_none());
    assert!(lab.handle(Event::Accept).is_empty());
}

#[test]
fn quitting_before_anything_was_accepted_writes_nothing() {
    let mut lab = Lab::new();
    lab.handle(Event::Start);
    lab.handle(Event::Interrupt);
    assert_eq!(lab.handle(Event::QuitConfirmed), vec![Effect::CancelWork, Effect::Quit]);
}

#[test]
fn ticks_drive_spinners_only_while_working() {
    let mut lab = at(StepId::Profile);
    lab.handle(Event::Tick);
    lab.handle(Event::Tick);
    assert_eq!(lab.phase, Phase::Proposing { tick: 2 });
    lab.handle(Event::Interrupt);
    lab.handle(Event::Tick);
    assert_eq!(
        lab.phase,
        Phase::Proposing { tick: 3 },
        "work keeps moving under the quit question"
    );
    lab.handle(Event::QuitCancelled);
    lab.handle(Event::Proposed {
        step: StepId::Profile,
        proposal: answer(StepId::Profile),
    });
    let before = lab.phase.clone();
    lab.handle(Event::Tick);
    assert_eq!(lab.phase, before);
}

#[test]
fn goto_only_reaches_completed_steps() {
    let mut lab = at(StepId::Sandbox);
    assert!(lab.handle(Event::Goto(StepId::Gates)).is_empty());
    assert_eq!(lab.step, StepId::Sandbox);
    assert!(proposes(&lab.handle(Event::Goto(StepId::Model)), StepId::Model));
    assert_eq!(lab.step, StepId::Model);
}

#[test]
fn going_back_to_the_source_and_accepting_restarts_the_walk() {
    let (mut lab, _) = walk_all();
    let mut lab2 = Lab::resume(lab.job.clone(), Saved::default());
    lab2.handle(Event::Start);
    lab2.handle(Event::Proposed {
        step: StepId::Preview,
        proposal: answer(StepId::Preview),
    });
    lab = lab2;
    let fx = lab.handle(Event::Goto(StepId::Source));
    assert!(proposes(&fx, StepId::Source));
    lab.handle(Event::Proposed {
        step: StepId::Source,
        proposal: answer(StepId::Source),
    });
    let job = saved_job(&lab.handle(Event::Accept)).expect("saved");
    assert_eq!(
        job.lab.completed,
        vec!["source".to_string()],
        "later answers no longer count"
    );
    assert_eq!(lab.step, StepId::Purpose);
}

#[test]
fn going_back_to_an_accepted_generated_step_does_not_generate_again() {
    let (_, jobs) = walk_all();
    let mut saved = Saved::default();
    saved
        .artifacts
        .insert(StepId::Profile, serde_json::json!({"purpose": "releases"}));
    saved
        .artifacts
        .insert(StepId::Personas, serde_json::json!([{"id": "maintainer"}]));
    let mut lab = Lab::resume(jobs[8].clone(), saved);
    assert_eq!(lab.step, StepId::Scenarios);
    lab.handle(Event::Start);
    let fx = lab.handle(Event::Goto(StepId::Personas));
    assert!(!proposes(&fx, StepId::Personas), "{fx:?}");
    assert!(matches!(&lab.phase, Phase::Deciding { proposal, .. } if proposal.text.contains("id: maintainer")));
    // Accepting it again moves on; regenerating is the person's explicit choice.
    assert!(proposes(
        &lab.handle(Event::Regenerate { hint: None }),
        StepId::Personas
    ));
}

#[test]
fn leaving_a_step_while_it_proposes_cancels_the_work() {
    let mut lab = at(StepId::Profile);
    let fx = lab.handle(Event::Goto(StepId::Purpose));
    assert_eq!(fx.first(), Some(&Effect::CancelWork));
    assert!(proposes(&fx, StepId::Purpose));
}

#[test]
fn local_sandbox_needs_a_second_accept_and_esc_backs_out() {
    let mut lab = at(StepId::Sandbox);
    lab.handle(Event::Proposed {
        step: StepId::Sandbox,
        proposal: Proposal::new("backend: local\nnetwork: disabled\n", vec![]),
    });
    assert!(lab.handle(Event::Accept).is_empty());
    assert!(matches!(&lab.phase, Phase::Deciding { confirm: Some(w), .. } if w.contains("no isolation")));
    lab.handle(Event::Cancel);
    assert!(matches!(&lab.phase, Phase::Deciding { confirm: None, .. }));
    lab.handle(Event::Accept);
    let fx = lab.handle(Event::Accept);
    assert_eq!(saved_job(&fx).expect("saved").sandbox.backend, SandboxBackend::Local);
}

#[test]
fn invalid_answers_show_a_notice_and_save_nothing() {
    for (step, text, needle) in [
        (StepId::Model, "gpt-4", "provider/model"),
        (StepId::Gates, "min_pass_rate: 1.5\n", "between 0 and 1"),
        (StepId::Gates, "min_pass: 0.5\n", "unknown key `min_pass`"),
        (StepId::Sandbox, "backend: bubblewrap\nnetwork: allowlist\n", "allow"),
        (StepId::Source, "version: 1\nagent: {}\n", "id"),
    ] {
        let mut lab = at(step);
        lab.handle(Event::Proposed {
            step,
            proposal: Proposal::new(text, vec![]),
        });
        assert!(lab.handle(Event::Accept).is_empty(), "{step:?}");
        assert!(
            matches!(&lab.phase, Phase::Deciding { notice: Some(n), .. } if n.contains(needle)),
            "{step:?}: {:?}",
            lab.phase
        );
        assert!(!lab.is_completed(step));
    }
}

#[test]
fn mcp_accept_waits_for_discovery_and_esc_skips_it() {
    let mut lab = at(StepId::Mcps);
    let fx = lab.handle(Event::Proposed {
        step: StepId::Mcps,
        proposal: Proposal::new(
            "- server: a\n  command: [x]\n- server: b\n  command: [y]\n  enabled: false\n",
            vec![],
        ),
    });
    assert_eq!(
        fx.iter().filter(|e| matches!(e, Effect::Discover { .. })).count(),
        1,
        "disabled b is not discovered"
    );
    assert!(lab.handle(Event::Accept).is_empty());
    assert!(matches!(&lab.phase, Phase::Deciding { notice: Some(n), .. } if n.contains("discovery still running")));
    assert_eq!(lab.handle(Event::Cancel), vec![Effect::CancelWork]);
    assert_eq!(lab.discovery["a"], Discovery::Skipped);
    let job = saved_job(&lab.handle(Event::Accept)).expect("saved");
    assert!(job.capabilities.is_empty());
    assert_eq!(job.agent.inputs.mcps[1].enabled, Some(false));
}

#[test]
fn the_run_streams_lines_and_ends_with_the_report() {
    let (mut lab, _) = walk_all();
    let envelope: ghostlab::trial::events::Envelope = serde_json::from_value(serde_json::json!({
        "v": 1, "seq": 1, "ts": "2026-11-29T12:00:00Z", "case": "maintainer/happy-path",
        "type": "user_message", "turn": 1, "text": "Please cut 1.2.0", "latency_ms": 5
    }))
    .expect("envelope");
    lab.handle(Event::Tick);
    lab.handle(Event::RunEvent(Box::new(envelope)));
    assert!(
        matches!(&lab.phase, Phase::Running { dashboard, tick: 1, .. } if dashboard.focus.events[0].transcript_line().contains("user: Please cut 1.2.0"))
    );
    // Esc asks first; only yes cancels.
    assert!(lab.handle(Event::Cancel).is_empty());
    assert_eq!(lab.handle(Event::CancelRunConfirmed), vec![Effect::CancelRun]);
    lab.handle(Event::RunFinished(Ok(Box::new(crate::run_fakes::fake_results(
        ".ghostlab/runs/1",
        true,
    )))));
    assert!(
        matches!(&lab.phase, Phase::Running { outcome: Some(RunOutcome::Report(r)), .. } if r.reports[0].ends_with("report.md"))
    );
    assert!(lab.handle(Event::Goto(StepId::Model)).is_empty(), "no leaving a run");
}

/// Walks to Step 4 and proposes its answer; returns the lab deciding on it.
fn at_mcps_deciding() -> Lab {
    let mut lab = Lab::new();
    lab.handle(Event::Start);
    for step in [StepId::Source, StepId::Purpose, StepId::Model] {
        accept_step(&mut lab, step);
    }
    lab.handle(Event::Proposed {
        step: StepId::Mcps,
        proposal: answer(StepId::Mcps),
    });
    lab
}

#[test]
fn step_4_refuses_what_validate_refuses_and_names_the_fix() {
    use ghostlab::lab::DiscoveryError;
    // A server the file does not have: the step cannot be accepted.
    let mut lab = at_mcps_deciding();
    lab.handle(Event::Discovered {
        server: "tools".into(),
        result: Err(DiscoveryError::Invalid(
            "mcp.json has no server `tools` (it has: release)".into(),
        )),
    });
    assert_eq!(
        lab.discovery.get("tools"),
        Some(&Discovery::Invalid(
            "mcp.json has no server `tools` (it has: release)".into()
        ))
    );
    let fx = lab.handle(Event::Accept);
    assert!(saved_job(&fx).is_none(), "accepted an answer validate refuses: {fx:?}");
    assert_eq!(lab.step, StepId::Mcps);
    let Phase::Deciding {
        notice: Some(notice), ..
    } = &lab.phase
    else {
        panic!("no notice: {:?}", lab.phase)
    };
    assert!(
        notice.contains("`tools`") && notice.contains("it has: release") && notice.contains("Edit"),
        "{notice}"
    );

    // A server that exists but failed to start is a peer fault: shown, not blocking.
    let mut lab = at_mcps_deciding();
    lab.handle(Event::Discovered {
        server: "tools".into(),
        result: Err(DiscoveryError::Failed("the process exited (exit status: 1)".into())),
    });
    let fx = lab.handle(Event::Accept);
    assert!(saved_job(&fx).is_some(), "a failing peer blocked the step: {fx:?}");
}

/// Words of serde and Rust internals that must never reach a person.
const INTERNALS: &[&str] = &[
    "untagged enum",
    "variant of",
    "expected struct",
    "f64",
    "u32",
    "u64",
    "usize",
    "i64",
    "Answer",
    "Option<",
    "serde",
    "is not valid:",
];

#[test]
fn wrong_answers_are_refused_in_plain_words_naming_the_key() {
    let cases: &[(StepId, &str, &str)] = &[
        (StepId::Mcps, "- server: tools\n  enabled: maybe\n", "enabled"),
        (StepId::Mcps, "server: tools\n", "list"),
        (StepId::Permissions, "bash: sometimes\n", "bash"),
        (StepId::Permissions, "edit: [allow]\n", "edit"),
        (StepId::Sandbox, "backend: docker\nnetwork: disabled\n", "backend"),
        (StepId::Sandbox, "just a sentence", "expected object"),
        (StepId::Gates, "min_pass_rate: lots\n", "min_pass_rate"),
        (StepId::Gates, "min_pass_rate: [1]\n", "min_pass_rate"),
        (StepId::Gates, "no_such_gate: 1\n", "no_such_gate"),
    ];
    for (step, text, key) in cases {
        let mut lab = Lab::new();
        lab.handle(Event::Start);
        for s in StepId::ALL.iter().take_while(|s| *s != step) {
            accept_step(&mut lab, *s);
        }
        lab.handle(Event::Proposed {
            step: *step,
            proposal: Proposal::new(*text, vec![]),
        });
        let fx = lab.handle(Event::Accept);
        assert!(saved_job(&fx).is_none(), "{step:?} accepted {text:?}");
        let Phase::Deciding {
            notice: Some(notice), ..
        } = &lab.phase
        else {
            panic!("{step:?} {text:?}: no notice: {:?}", lab.phase)
        };
        assert!(
            notice.contains(key),
            "{step:?} {text:?}: the key is not named: {notice}"
        );
        for internal in INTERNALS {
            assert!(
                !notice.contains(internal),
                "{step:?} {text:?}: internal phrase {internal:?} in {notice}"
            );
        }
    }
}

/// On the results screen, a finding is waived with a reason typed there: the keys go through
/// the real key map, the decision leaves as one `DecideFinding` effect, and what comes back is
/// shown.
#[test]
fn the_results_screen_waives_a_finding_with_a_reason() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ghostlab::lab::findings_review::{FindingChoice, FindingsEvent};
    use ghostlab::mcp::contract::decisions::Verdict;
    use ghostlab::tui::intent::Intent;
    use ghostlab::tui::keymap::on_key;
    use ghostlab::tui::ui_state::Ui;

    let (mut lab, _) = walk_all();
    let fx = lab.handle(Event::RunFinished(Ok(Box::new(crate::run_fakes::fake_results(
        ".ghostlab/runs/1",
        true,
    )))));
    assert!(fx.contains(&Effect::LoadFindings), "{fx:?}");
    let choice = |id: &str, standing: &str| FindingChoice {
        id: id.into(),
        severity: "warning".into(),
        message: "destructive tool without a confirmation".into(),
        standing: standing.into(),
        counts: standing == "open",
    };
    lab.handle(Event::Findings(FindingsEvent::Loaded(Ok(vec![
        choice("GL020:release/publish@1a2b3c", "open"),
        choice("GL017:notes/add@3f9a1c", "open"),
    ]))));
    let mut ui = Ui::default();
    fn press(lab: &mut Lab, ui: &mut Ui, code: KeyCode) -> Vec<Effect> {
        match on_key(KeyEvent::new(code, KeyModifiers::NONE), lab, ui) {
            Intent::Lab(ev) => lab.handle(ev),
            _ => Vec::new(),
        }
    }
    press(&mut lab, &mut ui, KeyCode::Tab);
    press(&mut lab, &mut ui, KeyCode::Char('w'));
    assert!(lab.findings.typing());
    // While typing, `q`, `o` and `d` are letters of the reason, not quit, open or dashboard.
    for c in "quoted; no-op".chars() {
        let intent = on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE), &lab, &mut ui);
        assert_eq!(intent, Intent::Lab(Event::Findings(FindingsEvent::Type(c))));
        if let Intent::Lab(ev) = intent {
            lab.handle(ev);
        }
    }
    let fx = match on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), &lab, &mut ui) {
        Intent::Lab(ev) => lab.handle(ev),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        fx,
        vec![Effect::DecideFinding {
            finding: "GL017:notes/add@3f9a1c".into(),
            verdict: Verdict::Waived,
            reason: "quoted; no-op".into(),
        }]
    );
    lab.handle(Event::Findings(FindingsEvent::Decided(Ok(vec![
        choice("GL020:release/publish@1a2b3c", "open"),
        choice("GL017:notes/add@3f9a1c", "waived by ana (quoted; no-op)"),
    ]))));
    let rows = lab.findings.rows.clone().unwrap();
    assert_eq!(rows[1].standing, "waived by ana (quoted; no-op)");
    assert!(!rows[1].counts);
    // The screen shows it.
    let theme = ghostlab::tui::theme::Theme::builtin(ghostlab::tui::theme::Theme::builtin_names()[0]).unwrap();
    let lines: Vec<String> = ghostlab::tui::results::finding_lines(&lab.findings, &theme)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert!(
        lines.iter().any(|l| l.contains("waived by ana (quoted; no-op)")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("waived GL017:notes/add@3f9a1c: quoted; no-op")),
        "{lines:?}"
    );
}
