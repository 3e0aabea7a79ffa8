//! job.yaml names the generated files the lab wrote (`lab.artifacts`: path and SHA-256 of the
//! profile, personas, scenarios and dataset), and `validate` and `lab --resume` say when one of
//! them changed (an error, exit 2) or went missing (a warning: the lab writes it again).

use crate::common::ghostlab_in;
use crate::report_example_pdf::run_example;
use sha2::{Digest, Sha256};
use std::path::Path;

fn validate(dir: &Path) -> (Option<i32>, String) {
    let out = ghostlab_in(dir, 60)
        .args(["validate", "--job", "job.yaml"])
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

#[test]
fn the_job_names_each_generated_file_by_hash_and_says_when_one_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    run_example(&dir);
    let job = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
    let refs = job.job.lab.artifacts.entries();
    let keys: Vec<&str> = refs.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, ["profile", "personas", "scenarios", "dataset"]);
    for (key, r) in &refs {
        let bytes = std::fs::read(dir.join(&r.path)).unwrap();
        assert_eq!(r.sha256, sha256_hex(&bytes), "{key}");
        assert!(r.path.starts_with(".ghostlab/"), "{key}: {}", r.path);
    }
    assert_eq!(validate(&dir), (Some(0), String::new()));
    dataset_review_records_the_new_hash(&dir);
    a_changed_dataset_is_refused_and_kept(&dir);

    // Restored (by the step above), and personas.json removed: a warning, since the lab
    // writes it again.
    std::fs::remove_file(dir.join(".ghostlab/personas.json")).unwrap();
    let (code, err) = validate(&dir);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("warning: job.yaml: .ghostlab/personas.json (lab.artifacts.personas) is missing"),
        "{err}"
    );
    the_key_is_strict(&dir, &refs[0].1.sha256);
}

/// Ghostlab's own commands that rewrite a generated file record its new hash: reviewing the
/// dataset after the lab keeps the job valid and naming the file as it now is.
fn dataset_review_records_the_new_hash(dir: &Path) {
    let dataset_path = dir.join(".ghostlab/dataset.json");
    let first_case = serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&dataset_path).unwrap())
        .unwrap()["cases"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for args in [
        vec!["dataset", "reject", first_case.as_str(), "--job", "job.yaml"],
        vec!["dataset", "approve", first_case.as_str(), "--job", "job.yaml"],
    ] {
        let out = ghostlab_in(dir, 60).args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(validate(dir), (Some(0), String::new()), "after {args:?}");
        let now = ghostlab::spec::load_job(&dir.join("job.yaml")).unwrap();
        let recorded = now
            .job
            .lab
            .artifacts
            .entries()
            .into_iter()
            .find(|(k, _)| *k == "dataset")
            .unwrap()
            .1
            .sha256
            .clone();
        assert_eq!(recorded, sha256_hex(&std::fs::read(&dataset_path).unwrap()));
    }
}

/// A changed dataset: the job no longer identifies what the lab ran with; `validate` and `lab
/// --resume` refuse it and the edit is kept. Restores the dataset after.
fn a_changed_dataset_is_refused_and_kept(dir: &Path) {
    let dataset = dir.join(".ghostlab/dataset.json");
    let original = std::fs::read(&dataset).unwrap();
    std::fs::write(&dataset, [&original[..], b" "].concat()).unwrap();
    let (code, err) = validate(dir);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("job.yaml: .ghostlab/dataset.json (lab.artifacts.dataset) changed since the lab wrote it"),
        "{err}"
    );
    let out = ghostlab_in(dir, 120)
        .args(["lab", "--resume", "--yes", "--job", "job.yaml"])
        .output()
        .unwrap();
    let resume_err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{resume_err}");
    assert!(resume_err.contains("(lab.artifacts.dataset) changed"), "{resume_err}");
    assert_eq!(
        std::fs::read(&dataset).unwrap().len(),
        original.len() + 1,
        "the edit is kept"
    );
    std::fs::write(&dataset, &original).unwrap();
}

/// The key is strict: a malformed hash (in place of `sha`) or an unknown artifact is refused
/// by name.
fn the_key_is_strict(dir: &Path, sha: &str) {
    let text = std::fs::read_to_string(dir.join("job.yaml")).unwrap();
    std::fs::write(dir.join("job.yaml"), text.replace(sha, "not-a-hash")).unwrap();
    let (code, err) = validate(dir);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("lab.artifacts.profile.sha256"), "{err}");
    std::fs::write(
        dir.join("job.yaml"),
        text.replace(
            "  artifacts:\n",
            "  artifacts:\n    transcripts:\n      path: x\n      sha256: y\n",
        ),
    )
    .unwrap();
    let (code, err) = validate(dir);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("transcripts"), "{err}");
}
