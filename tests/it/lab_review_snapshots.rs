//! The review screens (step 8 profile, 9 personas, 10 scenarios) in each state — empty, one
//! item, many, editing one item, failed — for `screen_matrix`, which snapshots them at 80×24 and
//! 140×40 in every theme; and the scenario tree's cursor. Snapshots live in `snapshots/`.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use serde_json::Value;

use crate::lab_review::{Fixture, fixture, lab_at};
use ghostlab::generate::CaseStatus;
use ghostlab::lab::apply::to_answer_yaml;
use ghostlab::lab::review::{ReviewEvent, item_id};
use ghostlab::lab::{Event, Lab, Proposal, Saved, StepId};
use ghostlab::tui::{Theme, Ui, draw};

pub fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s
}

pub fn render(lab: &Lab, ui: &Ui, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| draw(f, lab, ui, theme)).expect("draw");
    t.backend().buffer().clone()
}

pub fn text_of(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub fn themes() -> Vec<Theme> {
    let mut t: Vec<Theme> = Theme::builtin_names()
        .into_iter()
        .map(|n| Theme::builtin(n).expect(n))
        .collect();
    t.push(Theme::monochrome());
    t
}

/// Replaces the list of a set proposal (or the profile's lists) and shows it again.
fn with_text(f: &Fixture, step: StepId, text: String) -> Lab {
    let mut lab = lab_at(f, step, Saved::default());
    lab.handle(Event::Regenerate { hint: None });
    lab.handle(Event::Proposed {
        step,
        proposal: Proposal::new(
            text,
            vec!["Per persona: each scenario with success criteria and failure signals.".into()],
        ),
    });
    lab
}

fn truncated(f: &Fixture, step: StepId, keep: usize) -> Lab {
    let text = match step {
        StepId::Profile => {
            let mut p = f.profile.clone();
            for key in ["workflows", "risk_surface", "out_of_scope"] {
                let list = p[key].as_array().cloned().unwrap_or_default();
                p[key] = Value::Array(list.into_iter().take(keep).collect());
            }
            to_answer_yaml(&p)
        }
        StepId::Personas => {
            let mut s = f.personas.clone();
            s.personas.truncate(keep);
            to_answer_yaml(&s)
        }
        _ => {
            let mut s = f.scenarios.clone();
            s.scenarios.truncate(keep);
            to_answer_yaml(&s)
        }
    };
    with_text(f, step, text)
}

/// Each state of a screen, named.
pub fn review_states(f: &Fixture, step: StepId) -> Vec<(&'static str, Lab, Ui)> {
    let many = {
        let mut lab = lab_at(f, step, Saved::default());
        if step == StepId::Scenarios {
            let ids: Vec<String> = f.scenarios.scenarios.iter().map(|s| s.id.clone()).collect();
            for (id, status) in ids
                .iter()
                .zip([CaseStatus::Approved, CaseStatus::Rejected, CaseStatus::NeedsEdit])
            {
                lab.handle(Event::Review(ReviewEvent::Curate { id: id.clone(), status }));
            }
        }
        lab
    };
    let ui_many = Ui {
        cursor: 1,
        ..Ui::default()
    };
    let mut editing = lab_at(f, step, Saved::default());
    match step {
        StepId::Profile => editing.handle(Event::Edit),
        StepId::Personas => editing.handle(Event::Review(ReviewEvent::EditItem(f.personas.personas[0].id.clone()))),
        _ => editing.handle(Event::Review(ReviewEvent::EditItem(
            f.scenarios.scenarios[0].id.clone(),
        ))),
    };
    let mut ui_editing = Ui::default();
    ui_editing.sync(&editing);
    let mut failed = lab_at(f, step, Saved::default());
    failed.handle(Event::Regenerate { hint: None });
    failed.handle(Event::ProposalFailed {
        step,
        error: ghostlab::lab::ProposeError::from(ghostlab::lab::GeneratorError::Backend(
            "the proposer model did not answer within 60 s (http://127.0.0.1:11434/v1)".into(),
        ))
        .into(),
    });
    vec![
        ("empty", truncated(f, step, 0), Ui::default()),
        ("one", truncated(f, step, 1), Ui::default()),
        ("many", many, ui_many),
        ("editing", editing, ui_editing),
        ("failed", failed, Ui::default()),
    ]
}

#[test]
fn the_scenario_tree_groups_by_persona_and_the_cursor_walks_it() {
    let f = fixture();
    let lab = lab_at(&f, StepId::Scenarios, Saved::default());
    let theme = Theme::builtin("default").expect("theme");
    let text = text_of(&render(&lab, &Ui::default(), &theme, 140, 40));
    for p in &f.personas.personas {
        assert!(text.contains(&format!("▾ {}", p.id)), "{text}");
    }
    // The cursor walks scenarios in tree order; the detail pane follows it.
    let order = ghostlab::tui::review_keys::review_items(&lab).expect("items");
    let last = order.len() - 1;
    let ui = Ui {
        cursor: last,
        ..Ui::default()
    };
    let text = text_of(&render(&lab, &ui, &theme, 140, 40));
    assert!(text.contains(&item_id(&order[last])), "{text}");
    assert_eq!(
        ghostlab::tui::review_keys::selected_id(&lab, &ui),
        Some(item_id(&order[last]))
    );
}
