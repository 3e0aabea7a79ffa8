//! Files Ghostlab reads that someone else may have replaced: a FIFO or a 3 GiB sparse file as
//! any file of a stored run (summary.json, manifest.json, verdict.json, case.json,
//! events.jsonl), as `--agent-cassette`, or as `lab --resume --job`. Every command ends in
//! seconds without a panic; inputs are refused with exit 2 naming the file; run-folder
//! readers skip the bad file or name it.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Instant;

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn sparse_giant(path: &Path) {
    let _ = std::fs::remove_file(path);
    std::fs::File::create(path).unwrap().set_len(3 << 30).unwrap();
}

fn copy_dir(src: &Path, dst: &Path) {
    for e in walkdir::WalkDir::new(src).into_iter().filter_map(Result::ok) {
        let to = dst.join(e.path().strip_prefix(src).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// Where a kind of file lives in a run folder.
type Locate = fn(&Path) -> PathBuf;

/// The first trial folder of a run.
fn first_trial(run: &Path) -> PathBuf {
    let case = std::fs::read_dir(run.join("cases"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::read_dir(case).unwrap().next().unwrap().unwrap().path()
}

/// Runs ghostlab in `dir`; fails the test on a hang (over 60 s) or a panic.
fn bounded(dir: &Path, args: &[&str], extra: Option<&Path>) -> (Option<i32>, String) {
    let started = Instant::now();
    let mut cmd = common::ghostlab_in(dir, 60);
    cmd.args(args);
    if let Some(p) = extra {
        cmd.arg(p);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.code().is_some(),
        "{args:?} {extra:?} did not finish (killed after {:?})",
        started.elapsed()
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(!stderr.contains("memory allocation"), "{args:?}: {stderr}");
    (out.status.code(), stderr)
}

#[test]
fn special_or_giant_files_in_a_stored_run_never_hang_view_report_rescore_or_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["CI is green. Shall I tag 1.3.0?", "Done."]);
    let out = common::ghostlab_in(&dir, 180)
        .args(["test", "--job", "job.yaml", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let run = common::newest_run(&dir);
    let files: &[(&str, Locate)] = &[
        ("summary.json", |r| r.join("summary.json")),
        ("manifest.json", |r| r.join("manifest.json")),
        ("verdict.json", |r| first_trial(r).join("verdict.json")),
        ("case.json", |r| first_trial(r).join("case.json")),
        ("events.jsonl", |r| first_trial(r).join("events.jsonl")),
        // Read back before being rewritten (the report skips an unchanged critique), read for
        // provenance, and copied whole by `merge`.
        ("critique.md", |r| first_trial(r).join("critique.md")),
        ("providers.json", |r| r.join("providers.json")),
        ("host.log", |r| first_trial(r).join("agent-host.log")),
    ];
    let mut n = 0;
    for (name, locate) in files {
        for (shape, make) in [("fifo", mkfifo as fn(&Path)), ("3GiB", sparse_giant)] {
            n += 1;
            let bad = tmp.path().join(format!("bad-{n}"));
            copy_dir(&run, &bad);
            make(&locate(&bad));
            let label = format!("{name} as {shape}");
            let (code, stderr) = bounded(&dir, &["view", "--json"], Some(&bad));
            assert!(matches!(code, Some(0..=2)), "view, {label}: {code:?} {stderr}");
            let (code, stderr) = bounded(&dir, &["report", "--job", "job.yaml", "--run"], Some(&bad));
            assert!(matches!(code, Some(0..=2)), "report, {label}: {code:?} {stderr}");
            for cmd in ["rescore", "merge"] {
                let out_dir = tmp.path().join(format!("{cmd}-{n}"));
                let mut args = vec![cmd, "--job", "job.yaml", "--out"];
                args.push(out_dir.to_str().unwrap());
                let (code, stderr) = bounded(&dir, &args, Some(&bad));
                assert!(matches!(code, Some(0..=2)), "{cmd}, {label}: {code:?} {stderr}");
                if code == Some(2) {
                    assert!(
                        stderr.contains(name),
                        "{cmd}, {label} refused without naming it: {stderr}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_fifo_or_giant_cassette_or_resume_job_is_refused_with_its_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    common::mock_release_bot(&dir, &["Done."]);
    for make in [mkfifo as fn(&Path), sparse_giant] {
        let cassette = dir.join("cassette.json");
        make(&cassette);
        let (code, stderr) = bounded(
            &dir,
            &[
                "test",
                "--job",
                "job.yaml",
                "--quiet",
                "--agent-cassette",
                "cassette.json",
            ],
            None,
        );
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("cassette.json"), "{stderr}");
        let job = dir.join("resume.yaml");
        make(&job);
        let (code, stderr) = bounded(&dir, &["lab", "--resume", "--yes", "--job", "resume.yaml"], None);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("resume.yaml"), "{stderr}");
    }
}
