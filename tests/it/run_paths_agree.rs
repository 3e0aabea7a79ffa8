//! The lab's run step and `ghostlab test` are one library call (`app::run_tests`): for the same
//! job and the same accepted dataset they leave byte-identical run folders.
//!
//! The job uses the mock agent in an explicit local environment with the offline emulator and
//! judge, so nothing but the clock differs between the two runs. What the clock writes is
//! masked, and only that: the run id (the folder name, in manifest.json, summary.json and the
//! reports), `ts` of each event, `started` of the manifest, the measured `duration_ms` and
//! `latency_ms` (and the timing events' `*_ms`), JUnit's `time` and the reports' generation time — and the name of each case's
//! fresh workspace copy (`ghostlab-local-…`, a random temp folder). report.pdf is compressed and
//! embeds the time, so for it only its presence is compared.

use assert_cmd::Command;
use ghostlab::lab::executors::{LabSuiteRunner, PipelineGenerator};
use ghostlab::lab::store::{lab_dir, save_artifact};
use ghostlab::lab::traits::{GenerateKind, GenerateRequest, Generator, SuiteRunner};
use ghostlab::lab::{Event, RunStream, StepId};
use regex::Regex;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

const JOB: &str = "version: 1
agent:
  id: notes-bot
  description: Writes release notes for a repository and never publishes a release.
  runtime: { backend: mock }
  workspace: ./ws
sandbox: { backend: local }
hosts:
  mock: { replies: [\"Here are the notes: drain() was added.\"] }
review:
  gates: { min_pass_rate: 1.0 }
";

/// The job, and the lab's accepted profile, personas and scenarios (offline generation).
async fn prepared(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("ws/README.md"), "# notes\n").unwrap();
    let job_file = dir.join("job.yaml");
    std::fs::write(&job_file, JOB).unwrap();
    let job = ghostlab::spec::load_job(&job_file).unwrap().job;
    let lab = lab_dir(&job_file, &job);
    let (mut profile, mut personas): (Option<Value>, Option<Value>) = (None, None);
    for (kind, step) in [
        (GenerateKind::Profile, StepId::Profile),
        (GenerateKind::Personas, StepId::Personas),
        (GenerateKind::Scenarios, StepId::Scenarios),
    ] {
        let request = GenerateRequest {
            kind,
            job: job.clone(),
            job_dir: dir.to_path_buf(),
            profile: profile.clone(),
            personas: personas.clone(),
            hint: None,
        };
        let value = PipelineGenerator
            .generate(request, CancellationToken::new())
            .await
            .unwrap();
        save_artifact(&lab, step, &value).unwrap();
        match kind {
            GenerateKind::Profile => profile = Some(value),
            GenerateKind::Personas => personas = Some(value),
            GenerateKind::Scenarios => {}
        }
    }
    job_file
}

/// Every file of a run folder, relative path → bytes.
fn files(run: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(run)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(run).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The file with what the clock wrote masked (see the module comment).
fn masked(path: &Path, bytes: &[u8], run_id: &str) -> Vec<u8> {
    let name = path.to_string_lossy();
    if name.ends_with(".pdf") {
        return b"(pdf: presence only)".to_vec();
    }
    let text = String::from_utf8(bytes.to_vec()).unwrap().replace(run_id, "RUN");
    let clock = [
        (r#""(ts|started)":\s*"[^"]*""#, r#""$1":"T""#),
        (r#""(duration_ms|latency_ms|[a-z]+_ms)":\s*\d+"#, r#""$1":0"#),
        (r#"time="[^"]*""#, r#"time="T""#),
        (r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})? UTC", "DATE"),
        // The run's time shares name only the phases that took a millisecond or more, so
        // which phases appear is the clock's too (a mock run's are all near 0 ms).
        (r"(Where the time went(?: \| |</td><td>))[^|<]*", "${1}SHARES"),
        // Likewise a trial's time line (`Time: 1.2 s — sandbox 3 ms · other …`).
        (r"(Time: )[^<\n]*", "${1}PHASES"),
        (r"\d+(\.\d+)? ?(ms|s)\b", "DUR"),
        (r"ghostlab-local-[A-Za-z0-9]+", "ghostlab-local-TMP"),
    ];
    let mut out = text;
    for (pattern, with) in clock {
        out = Regex::new(pattern).unwrap().replace_all(&out, with).into_owned();
    }
    out.into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lab_and_ghostlab_test_write_the_same_run_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let job_file = prepared(tmp.path()).await;
    let runs = tmp.path().join(".ghostlab/runs");

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let runner = LabSuiteRunner {
        agent_cassette: None,
        parallel: 1,
    };
    let line = runner
        .run(job_file.clone(), RunStream::new(tx), CancellationToken::new())
        .await
        .unwrap();
    assert!(!line.gates_met && line.line.ends_with("gates NOT met"), "{line:?}");
    // One stream, in order: the folder, the plan, then the case events.
    assert!(
        matches!(rx.try_recv(), Ok(Event::RunFolder(_))),
        "the folder comes first"
    );
    assert!(
        matches!(rx.try_recv(), Ok(Event::RunPlanned(n)) if n > 0),
        "then the planned trials"
    );
    assert!(
        matches!(rx.try_recv(), Ok(Event::RunEvent(_))),
        "the lab's stream saw no case event"
    );
    let lab_run = std::fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();

    // Run ids carry the second; make sure the second run cannot reuse the first one's.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let out = tokio::task::spawn_blocking({
        let dir = tmp.path().to_path_buf();
        move || {
            Command::cargo_bin("ghostlab")
                .unwrap()
                .current_dir(&dir)
                .args(["test", "--job", "job.yaml", "--parallel", "1", "--quiet", "--pdf"])
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    // Offline judging answers nothing, so min_pass_rate 1.0 is not met: exit 1, not 2.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let test_run = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p != &lab_run)
        .expect("the test run folder");

    let (a, b) = (files(&lab_run), files(&test_run));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the two runs wrote different files"
    );
    let trials = a.keys().filter(|p| p.ends_with("verdict.json")).count();
    assert!(
        trials >= 2 && a.contains_key(Path::new("manifest.json")),
        "{:?}",
        a.keys()
    );
    eprintln!("comparing {} files of {trials} trials", a.len());
    let ids = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    let (id_a, id_b) = (ids(&lab_run), ids(&test_run));
    let mut differing = Vec::new();
    for (path, bytes) in &a {
        let (x, y) = (masked(path, bytes, &id_a), masked(path, &b[path], &id_b));
        if x != y {
            let (x, y) = (String::from_utf8_lossy(&x), String::from_utf8_lossy(&y));
            let first = x.lines().zip(y.lines()).find(|(l, r)| l != r);
            differing.push(format!("{}: {first:?}", path.display()));
        }
    }
    assert!(differing.is_empty(), "files differ beyond the clock: {differing:?}");
}
