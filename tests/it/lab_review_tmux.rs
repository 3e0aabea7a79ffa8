//! The review screens in a real terminal: the built binary in tmux on a copy of
//! examples/release-bot (offline proposer). It renames one persona through the item editor,
//! drops one scenario and rejects another, then checks job.yaml, the accepted personas and the
//! dataset on disk.

use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::lab_tmux::{Tmux, accept_steps, completed, copy_example, title};
use ghostlab::generate::store::read_artifact;
use ghostlab::generate::{ArtifactKind, CaseStatus, Dataset};

fn dataset(dir: &Path) -> Option<Dataset> {
    read_artifact(&dir.join(".ghostlab"), ArtifactKind::Dataset).ok()
}

/// Waits until the dataset on disk satisfies `ok`.
fn wait_dataset(dir: &Path, what: &str, ok: impl Fn(&Dataset) -> bool) -> Dataset {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(d) = dataset(dir).filter(|d| ok(d)) {
            return d;
        }
        assert!(Instant::now() < deadline, "dataset.json never showed: {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn status(d: &Dataset, id: &str) -> Option<CaseStatus> {
    d.cases.iter().find(|c| c.id == id).map(|c| c.status)
}

#[test]
fn tmux_rename_a_persona_drop_and_reject_scenarios() {
    if Command::new("tmux").arg("-V").output().is_err() {
        ghostlab::util::skip::skipped("skipped: tmux is not installed");
        return;
    }
    let (dir, job) = copy_example();
    let dir = dir.path();
    let tmux = Tmux {
        socket: format!("ghostlab-lab-review-{}", std::process::id()),
    };
    tmux.start(dir, "--from source-job.yaml");
    accept_steps(&tmux, 1..=8);
    // Step 9: edit the first persona's name in the one-item editor.
    tmux.wait_for("Personas (3)");
    tmux.keys(&["e"]);
    tmux.wait_for("9/12 Personas — editing");
    tmux.wait_for("name: Hurried maintainer");
    tmux.keys(&["Down"]);
    tmux.keys(&["C-e"]);
    tmux.keys(&["-l", " in tmux"]);
    tmux.wait_for("name: Hurried maintainer in tmux");
    tmux.keys(&["C-s"]);
    let screen = tmux.wait_for("9/12 Personas — deciding");
    assert!(screen.contains("Hurried maintainer in tmux"), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("10/12 Scenarios — deciding");
    assert_eq!(completed(&job), 9);
    let accepted: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(".ghostlab/lab/personas.json")).expect("accepted personas"),
    )
    .expect("json");
    assert_eq!(
        accepted["accepted"]["personas"][0]["name"],
        "Hurried maintainer in tmux"
    );

    // Step 10: showing the set writes it; drop the first scenario, reject the next.
    let first = wait_dataset(dir, "every case pending", |d| {
        !d.cases.is_empty() && d.cases.iter().all(|c| c.status == CaseStatus::Pending)
    });
    let order = {
        let set: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(".ghostlab/scenarios.json")).expect("scenarios.json"),
        )
        .expect("json");
        let items = set["scenarios"].as_array().cloned().expect("list");
        ghostlab::tui::scenarios::tree_order(&items)
            .into_iter()
            .map(|i| items[i]["id"].as_str().expect("id").to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(order.len(), first.cases.len());
    let (dropped, rejected) = (order[0].clone(), order[1].clone());
    tmux.keys(&["d"]);
    wait_dataset(dir, "the dropped case gone", |d| status(d, &dropped).is_none());
    tmux.keys(&["n"]);
    wait_dataset(dir, "the rejected case", |d| {
        status(d, &rejected) == Some(CaseStatus::Rejected)
    });
    let screen = tmux.wait_for("1 rejected");
    assert!(screen.contains(&format!("Scenarios ({})", order.len() - 1)), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for(&format!("{}deciding", title(11)));
    assert_eq!(completed(&job), 10);
    let d = dataset(dir).expect("dataset");
    assert_eq!(d.cases.len(), order.len() - 1);
    assert_eq!(status(&d, &rejected), Some(CaseStatus::Rejected));
    assert_eq!(status(&d, &dropped), None);
    assert!(
        d.cases
            .iter()
            .filter(|c| c.id != rejected)
            .all(|c| c.status == CaseStatus::Approved),
        "accepting approves the rest: {d:?}"
    );
    tmux.keys(&["C-c"]);
    tmux.wait_for("Quit the lab?");
    tmux.keys(&["y"]);
    tmux.wait_gone();
    assert_eq!(completed(&job), 10, "job.yaml keeps every accepted step");
}
