//! Every command that reads a stored run back (`report`, `view`, `merge`, `rescore`; `compare`
//! for summaries) refuses a
//! summary.json, verdict.json or manifest.json written by a newer Ghostlab, or without a
//! `version`: exit 2 and an error naming the file, never a report or merge that silently reads
//! around what it does not understand (a newer verdict.json used to be skipped by `merge` as an
//! unfinished trial, and read loosely by `report`).

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The version files of a run, with where each one lives in `run`.
fn versioned_file(run: &Path, name: &str) -> PathBuf {
    match name {
        "verdict.json" => {
            let case = std::fs::read_dir(run.join("cases"))
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
            case.join("trial-1/verdict.json")
        }
        other => run.join(other),
    }
}

/// Sets (`Some`) or removes (`None`) the `version` of `file`.
fn set_version(file: &Path, version: Option<u64>) {
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    match version {
        Some(v) => doc["version"] = v.into(),
        None => {
            doc.as_object_mut().unwrap().remove("version");
        }
    }
    std::fs::write(file, doc.to_string()).unwrap();
}

/// The readers, as the arguments that make each read `run` (merging it into `out`).
fn readers(run: &str, out: &str) -> Vec<(&'static str, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![
        (
            "report",
            s(&[
                "report",
                "--job",
                "job.yaml",
                "--run",
                run,
                "--md",
                &format!("{out}.md"),
            ]),
        ),
        ("view", s(&["view", "--json", run])),
        (
            "merge",
            s(&["merge", "--job", "job.yaml", "--out", &format!("{out}-merged"), run]),
        ),
        (
            "rescore",
            s(&["rescore", "--job", "job.yaml", "--out", &format!("{out}-rescored"), run]),
        ),
    ]
}

#[test]
fn every_reader_refuses_newer_or_missing_versions_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["CI is green. Shall I proceed?", "Done."]);
    let out = common::ghostlab_in(&dir, 120)
        .args(["test", "--job", "job.yaml", "--quiet", "--run", "stored"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    // The untouched run reads with every reader (exit 0, or 1 for gates not met).
    for (reader, args) in readers("stored", "fine") {
        let out = common::ghostlab_in(&dir, 120).args(&args).output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{reader} on a good run: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut n = 0;
    for file in ["summary.json", "verdict.json", "manifest.json"] {
        for version in [Some(2), None] {
            n += 1;
            let run = format!("edited-{n}");
            common::copy_dir(&dir.join("stored"), &dir.join(&run));
            let edited = versioned_file(&dir.join(&run), file);
            set_version(&edited, version);
            let mut all = readers(&run, &format!("out-{n}"));
            if file == "summary.json" {
                // `compare` reads only the two summaries.
                all.push(("compare", vec!["compare".into(), "stored".into(), run.clone()]));
            }
            for (reader, args) in all {
                let out = common::ghostlab_in(&dir, 120).args(&args).output().unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert_eq!(
                    out.status.code(),
                    Some(2),
                    "{reader} read {file} version {version:?}: {stderr}"
                );
                let rel = edited.strip_prefix(&dir).unwrap().to_string_lossy().into_owned();
                let said = if version.is_some() {
                    "version 2 is newer"
                } else {
                    "no `version`"
                };
                assert!(
                    stderr.contains(&rel) && stderr.contains(said),
                    "{reader}, {file} {version:?}: {stderr}"
                );
                for written in ["merged", "rescored"] {
                    assert!(
                        !dir.join(format!("out-{n}-{written}/summary.json")).exists(),
                        "{reader} wrote a run"
                    );
                }
                assert!(!dir.join(format!("out-{n}.md")).exists(), "{reader} wrote a report");
            }
        }
    }
}

/// A verdict.json of the right version in a shape this build cannot read (a field missing, an
/// unknown verdict word, a string for a number) stops `merge` naming the file, instead of the
/// trial being dropped from the merged run as if it had never finished.
#[test]
fn merge_refuses_a_right_version_verdict_of_the_wrong_shape_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["Done."]);
    let out = common::ghostlab_in(&dir, 120)
        .args(["test", "--job", "job.yaml", "--quiet", "--run", "stored"])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    type Breaks = fn(&mut Value);
    let breaks: [(&str, Breaks); 3] = [
        ("no verdict", |v| {
            v.as_object_mut().unwrap().remove("verdict");
        }),
        ("unknown verdict word", |v| v["verdict"] = "MAYBE".into()),
        ("trial as text", |v| v["trial"] = "one".into()),
    ];
    for (n, (what, breaks)) in breaks.into_iter().enumerate() {
        let run = format!("shape-{n}");
        common::copy_dir(&dir.join("stored"), &dir.join(&run));
        let file = versioned_file(&dir.join(&run), "verdict.json");
        let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        breaks(&mut doc);
        std::fs::write(&file, doc.to_string()).unwrap();
        let merged = dir.join(format!("merged-{n}"));
        let out = common::ghostlab_in(&dir, 120)
            .args(["merge", "--job", "job.yaml", "--out", merged.to_str().unwrap(), &run])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        let rel = file.strip_prefix(&dir).unwrap().to_string_lossy().into_owned();
        assert!(
            stderr.contains(&rel) && stderr.contains("not a verdict.json this build reads"),
            "{what}: {stderr}"
        );
        assert!(!merged.join("summary.json").exists(), "{what}: merged anyway");
    }
}
