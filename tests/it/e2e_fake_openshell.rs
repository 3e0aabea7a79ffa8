//! End to end on `backend: openshell` against the FAKE `openshell` CLI
//! (tests/fixtures/openshell/fake-openshell, which runs each sandbox as a bubblewrap session;
//! no OpenShell gateway is involved). The real OpenCode answers from the model cassette, the
//! same case runs once on bubblewrap and once on the fake OpenShell, and the two must agree:
//! verdict, criteria, the sequence of events, the tool calls and the edited workspace. Then
//! every OpenShell call the fake recorded is checked: the argv (no secret on it), the policy
//! each sandbox was created with, the uploads, downloads, logs and the delete.
//!
//! What this proves is Ghostlab's side of the OpenShell CLI contract as the fake implements
//! it; a live gateway is NOT exercised.

use crate::common;
use crate::e2e_opencode::HARNESS_SCRIPT;

use assert_cmd::Command;
use common::{PREPARE_RELEASE as CASE, copy_release_bot, newest_run, opencode_bin, test_one_case_args, tree_digest};
use ghostlab::llm::cassette::Cassette;
use ghostlab::llm::model_server::{ServerOptions, start};
use ghostlab::trial::events::RunEvent;
use ghostlab::trial::events::ToolStatus;
use std::path::{Path, PathBuf};

const CANARY: &str = "e2e-canary-token-openshell-51c3";
const IMAGE: &str = "ghostlab/agent-sandbox:1";

struct Fake {
    argv_log: PathBuf,
    root: PathBuf,
    record: PathBuf,
}

fn fake_cli() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openshell/fake-openshell")
}

/// `ghostlab <args>` in `dir` through the fake gateway; it must succeed.
fn succeeds(dir: &Path, fake: &Fake, args: &[&str]) {
    let out = ghostlab(dir, fake).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn ghostlab(dir: &Path, fake: &Fake) -> Command {
    let mut c = Command::cargo_bin("ghostlab").unwrap();
    let node_modules = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tools/npm/node_modules")
        .canonicalize()
        .unwrap();
    let mut image_paths = node_modules.display().to_string();
    // At the copy's path and at the folder it links to (where the harness resolves the package).
    if let Ok(real) = dir.join("node_modules").canonicalize() {
        image_paths = format!(
            "{image_paths}:{}:{}",
            dir.join("node_modules").display(),
            real.display()
        );
    }
    c.current_dir(dir)
        .env("GHOSTLAB_OPENCODE_BIN", opencode_bin())
        .env("RELEASE_TOKEN", CANARY)
        .env("GHOSTLAB_LLM_ATTEMPTS", "1")
        .env("GHOSTLAB_OPENSHELL_BIN", fake_cli())
        .env("FAKE_OPENSHELL_LOG", &fake.argv_log)
        .env("FAKE_OPENSHELL_ROOT", &fake.root)
        .env("FAKE_OPENSHELL_RECORD", &fake.record)
        .env("FAKE_OPENSHELL_STATUS", "connected")
        // The FAKE image: the host's pinned OpenCode stands in for the one the real image
        // installs, and the MCP server packages are "in the image" at their host paths.
        .env("FAKE_OPENSHELL_AGENT_BIN", opencode_bin())
        // The example's own filesystem server (its pinned dependency) is "in the image" too.
        .env("FAKE_OPENSHELL_IMAGE_PATHS", image_paths)
        .timeout(std::time::Duration::from_secs(1800));
    c
}

/// The job: the release-bot example with its token as an opted-in credential (so a secret is
/// in play), emulator and judge recorded from `url`, on `backend`.
fn write_job(dir: &Path, url: &str, backend: &str, cassette: &str) {
    let job = dir.join("job.yaml");
    let original = dir.join("job.yaml.orig");
    if !original.exists() {
        std::fs::copy(&job, &original).unwrap();
    }
    let text = std::fs::read_to_string(&original).unwrap();
    let start = text.find("generation:").unwrap();
    let end = text.find("review:").unwrap();
    let roles = format!(
        "generation:\n  proposer: {{ provider: offline }}\n  emulator: {{ provider: record, model: scripted, base_url: \"{url}\", cassette: {cassette} }}\n  judge: {{ provider: record, model: scripted, base_url: \"{url}\", cassette: {cassette} }}\n"
    );
    let sandbox = format!(
        "sandbox:\n  backend: {backend}\n  image: {IMAGE}\n  credentials: {{ env: [RELEASE_TOKEN] }}\n  workdir: /sandbox/workspace\n"
    );
    let text = format!("{}{roles}{}", &text[..start], &text[end..])
        .replace(
            "sandbox:\n  backend: bubblewrap\n  workdir: /sandbox/workspace\n",
            &sandbox,
        )
        .replace("min_pass_rate: 0.8", "min_pass_rate: 1.0")
        // Two real OpenCode runs back to back on a loaded two-core machine: a turn once took
        // over the example's 5 minutes on the bubblewrap leg (load average 20).
        .replace("timeout: 5m", "timeout: 15m");
    assert!(text.contains(&format!("backend: {backend}")), "{text}");
    std::fs::write(&job, text).unwrap();
}

/// What must agree between backends: the event kinds in order, the completed tool calls.
fn shape(run: &Path) -> (Vec<String>, Vec<String>, serde_json::Value) {
    let trial = run.join(format!("cases/{CASE}/trial-1"));
    let events = ghostlab::run::store::events_file::read_events(&trial.join("events.jsonl")).unwrap();
    let kinds = events
        .iter()
        .map(|e| {
            let v = serde_json::to_value(&e.event).unwrap();
            v["type"].as_str().unwrap_or("?").to_string()
        })
        // Denied egress depends on who enforces it (Ghostlab's proxy, OpenShell's); the fake
        // enforces none, which the policy check below accounts for. Programs started are seen
        // only by bubblewrap's watch (docs/sandbox.md), which OpenShell's sandbox does not run.
        .filter(|k| k != "egress_denied" && k != "commands_seen")
        .collect();
    let tools = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ToolCall { tool, status, .. } if *status == ToolStatus::Completed => Some(tool.clone()),
            _ => None,
        })
        .collect();
    let verdict: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trial.join("verdict.json")).unwrap()).unwrap();
    (kinds, tools, verdict)
}

/// A fresh FAKE gateway under `tmp`, and the release-bot example copied beside it with its
/// cases generated and the harness's scripted model answers in place.
fn release_bot_with_fake(tmp: &Path) -> (Fake, PathBuf) {
    let fake = new_fake(tmp);
    let dir = tmp.join("release-bot");
    copy_release_bot(&dir);
    // The contract the job's no_high_security_findings gate reads.
    succeeds(&dir, &fake, &["discover", "--job", "job.yaml"]);
    succeeds(&dir, &fake, &["generate", "--job", "job.yaml"]);
    std::fs::write(dir.join("cassettes/harness-script.json"), HARNESS_SCRIPT).unwrap();
    (fake, dir)
}

/// The FAKE gateway's folders under `tmp`.
fn new_fake(tmp: &Path) -> Fake {
    let fake = Fake {
        argv_log: tmp.join("openshell-argv.log"),
        root: tmp.join("fake-openshell-root"),
        record: tmp.join("fake-openshell-record"),
    };
    std::fs::create_dir_all(&fake.root).unwrap();
    std::fs::create_dir_all(&fake.record).unwrap();
    fake
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fake_openshell_runs_the_real_opencode_like_bubblewrap() {
    opencode_bin();
    let tmp = tempfile::tempdir().unwrap();
    let (fake, dir) = release_bot_with_fake(tmp.path());
    let original = tree_digest(&dir.join("release-repo"));
    let mut shapes = Vec::new();
    let mut runs = Vec::new();
    for backend in ["bubblewrap", "openshell"] {
        let run = run_release_case(&dir, &fake, backend, false).await;
        shapes.push(shape(&run));
        runs.push(run);
    }
    let (bw, os) = (&shapes[0], &shapes[1]);
    assert_eq!(bw.2["verdict"], "PASS");
    assert_eq!(os.2["verdict"], bw.2["verdict"]);
    assert_eq!(
        os.2["criteria"], bw.2["criteria"],
        "the judge saw the same conversation"
    );
    assert_eq!(os.0, bw.0, "event sequence differs (openshell vs bubblewrap)");
    assert_eq!(os.1, bw.1, "tool calls differ");
    for t in ["release_ci_status", "filesystem_read_text_file", "edit"] {
        assert!(os.1.contains(&t.to_string()), "{t} not called on openshell: {:?}", os.1);
    }
    assert_eq!(
        tree_digest(&dir.join("release-repo")),
        original,
        "the user's workspace changed"
    );

    // The OpenShell run went through the fake CLI only; its session log holds OpenShell's log.
    let openshell_run = &runs[1];
    let events = std::fs::read_to_string(openshell_run.join(format!("cases/{CASE}/trial-1/events.jsonl"))).unwrap();
    assert!(events.contains("\"backend\":\"openshell\""), "{events}");
    let log = std::fs::read_dir(openshell_run.join("logs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(log.contains("backend Openshell"), "{log}");
    assert!(
        log.contains("openshell logs:") && log.contains("FAKE supervisor: exec"),
        "{log}"
    );

    check_calls(&fake);
    for f in walkdir::WalkDir::new(openshell_run).into_iter().filter_map(Result::ok) {
        if f.file_type().is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(f.path()).unwrap()).into_owned();
            assert!(!text.contains(CANARY), "secret in {}", f.path().display());
        }
    }
    // Deleted: nothing is left in the fake gateway.
    assert_eq!(
        std::fs::read_dir(&fake.root).unwrap().count(),
        0,
        "a sandbox was not deleted"
    );
}

/// Runs the release-bot case once on `backend` (OpenCode warm when `warm`, else the backend's
/// default) against a fresh model server; checks it passed and bumped the version; returns
/// the run folder.
async fn run_release_case(dir: &Path, fake: &Fake, backend: &str, warm: bool) -> PathBuf {
    let server = start(
        Cassette::load(&dir.join("cassettes/harness-script.json")).unwrap(),
        ServerOptions::default(),
    )
    .await
    .unwrap();
    let label = if warm {
        format!("{backend}-warm")
    } else {
        backend.to_string()
    };
    write_job(
        dir,
        &server.base_url(),
        backend,
        &format!("./cassettes/harness-{label}.json"),
    );
    if warm {
        let job = dir.join("job.yaml");
        let text = std::fs::read_to_string(&job).unwrap();
        std::fs::write(&job, format!("{text}hosts:\n  opencode: {{ mode: warm }}\n")).unwrap();
    }
    let (d, f) = (dir.to_path_buf(), fake_copy(fake));
    let out = tokio::task::spawn_blocking(move || {
        let mut args = test_one_case_args(CASE, true);
        args.extend(["--junit".into(), "junit.xml".into()]);
        ghostlab(&d, &f).args(args).output().unwrap()
    })
    .await
    .unwrap();
    server.shutdown().await;
    let run = newest_run(dir);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{label}:\n{stdout}\n{stderr}");
    assert!(stdout.contains("1 PASS"), "{label}: {stdout}");
    let bumped =
        std::fs::read_to_string(run.join(format!("cases/{CASE}/trial-1/workspace-after/package.json"))).unwrap();
    assert!(bumped.contains("\"version\": \"1.3.0\""), "{label}: {bumped}");
    run
}

/// Warm mode on OpenShell, asked for with `hosts.opencode.mode: warm` (the backend's default
/// stays cold): `opencode serve` is one `sandbox exec`, the host sees it answer through
/// `openshell forward start -d PORT NAME`, and every turn is another `sandbox exec` running
/// `opencode run --attach http://127.0.0.1:PORT` inside the same sandbox. Against the FAKE
/// CLI only (this sandbox's policy has an endpoint, so the fake puts it on the host's network
/// and its forward has nothing to relay; the relay itself is checked in
/// `fake_openshell_execs_share_one_loopback_and_forward_reaches_it`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fake_openshell_runs_opencode_warm_through_serve_exec_and_forward() {
    opencode_bin();
    let tmp = tempfile::tempdir().unwrap();
    let (fake, dir) = release_bot_with_fake(tmp.path());
    let run = run_release_case(&dir, &fake, "openshell", true).await;
    let (_, tools, verdict) = shape(&run);
    assert_eq!(verdict["verdict"], "PASS");
    for t in ["release_ci_status", "filesystem_read_text_file", "edit"] {
        assert!(tools.contains(&t.to_string()), "{t} not called: {tools:?}");
    }
    let calls = std::fs::read_to_string(&fake.argv_log).unwrap();
    assert!(!calls.contains(CANARY), "a secret reached an openshell argv:\n{calls}");
    let lines: Vec<&str> = calls.lines().collect();
    let name = lines
        .iter()
        .find(|l| l.starts_with("sandbox create "))
        .and_then(|l| l.split_whitespace().nth(3))
        .unwrap();
    let at = |pred: &dyn Fn(&str) -> bool, what: &str| {
        lines
            .iter()
            .position(|l| pred(l))
            .unwrap_or_else(|| panic!("no {what}:\n{calls}"))
    };
    let serve = at(
        &|l| l.starts_with(&format!("sandbox exec -n {name} ")) && l.contains(" opencode serve --port "),
        "serve exec",
    );
    let port = lines[serve]
        .split(" serve --port ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap()
        .to_string();
    let forward = at(&|l| l == format!("forward start -d {port} {name}"), "forward start");
    let turn = at(
        &|l| {
            l.starts_with(&format!("sandbox exec -n {name} "))
                && l.contains(&format!(" opencode run --attach http://127.0.0.1:{port} "))
        },
        "attached turn",
    );
    let stop = at(&|l| l == format!("forward stop {port} {name}"), "forward stop");
    let delete = at(&|l| l == format!("sandbox delete {name}"), "delete");
    // The server's exec and the forward's start run at once (the forward is opened as soon as
    // the server is spawned, so the readiness probe can reach it); which of the two the FAKE
    // logs first is the scheduler's choice. Both must precede the first attached turn.
    assert!(
        serve < turn && forward < turn && turn < stop && stop < delete,
        "{calls}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("opencode run --format json")),
        "a cold turn ran in warm mode:\n{calls}"
    );
    assert_eq!(
        std::fs::read_dir(&fake.root).unwrap().count(),
        0,
        "a sandbox was not deleted"
    );
}

/// The FAKE's own faithfulness on what warm mode rests on: every `sandbox exec` of one
/// sandbox shares its loopback (one container in the real OpenShell), which the host cannot
/// reach until `forward start -d PORT NAME`, and no longer after `forward stop PORT NAME`.
#[test]
fn fake_openshell_execs_share_one_loopback_and_forward_reaches_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let cli = |args: &[&str]| {
        let mut c = std::process::Command::new(fake_cli());
        c.args(args)
            .env("FAKE_OPENSHELL_LOG", tmp.path().join("argv.log"))
            .env("FAKE_OPENSHELL_ROOT", &root);
        c
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    assert!(cli(&["sandbox", "create", "--name", "w"]).status().unwrap().success());
    let server = format!(
        "import socket\ns=socket.socket(); s.bind(('127.0.0.1',{port})); s.listen(4)\n\
         while True:\n  c,_=s.accept(); c.sendall(b'inside\\n'); c.close()\n"
    );
    let mut srv = cli(&["sandbox", "exec", "-n", "w", "--no-tty", "--", "python3", "-c", &server])
        .spawn()
        .unwrap();
    let fetch = "import socket,sys\nfor _ in range(100):\n  try:\n    c=socket.create_connection(('127.0.0.1',int(sys.argv[1])),timeout=2); print(c.recv(99).decode().strip()); break\n  except OSError:\n    import time; time.sleep(0.1)\nelse:\n  print('refused')\n";
    let from_exec = cli(&[
        "sandbox", "exec", "-n", "w", "--no-tty", "--", "python3", "-c", fetch, &port,
    ])
    .output()
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&from_exec.stdout).trim(), "inside");
    let host = || {
        std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap()))
            .ok()
            .and_then(|mut s| {
                use std::io::Read;
                let mut b = String::new();
                s.set_read_timeout(Some(std::time::Duration::from_secs(5))).ok()?;
                s.read_to_string(&mut b).ok().map(|_| b)
            })
            .unwrap_or_default()
    };
    assert_eq!(host(), "", "the host reached the sandbox's loopback without a forward");
    assert!(cli(&["forward", "start", "-d", &port, "w"]).status().unwrap().success());
    assert_eq!(host(), "inside\n");
    assert!(cli(&["forward", "stop", &port, "w"]).status().unwrap().success());
    assert_eq!(host(), "", "the forward outlived its stop");
    let again = cli(&["forward", "stop", &port, "w"]).output().unwrap();
    assert!(String::from_utf8_lossy(&again.stderr).contains("no active forward"));
    let _ = srv.kill();
    let _ = srv.wait();
    assert!(cli(&["sandbox", "delete", "w"]).status().unwrap().success());
    assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);
}

fn fake_copy(f: &Fake) -> Fake {
    Fake {
        argv_log: f.argv_log.clone(),
        root: f.root.clone(),
        record: f.record.clone(),
    }
}

/// The argv of every OpenShell call, and the policy of every sandbox created.
fn check_calls(fake: &Fake) {
    let calls = std::fs::read_to_string(&fake.argv_log).unwrap();
    assert!(!calls.contains(CANARY), "a secret reached an openshell argv:\n{calls}");
    let lines: Vec<&str> = calls.lines().collect();
    assert!(lines.contains(&"status"), "the gateway was not probed:\n{calls}");
    let creates: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("sandbox create "))
        .collect();
    assert_eq!(creates.len(), 1, "one sandbox per case:\n{calls}");
    let create = creates[0];
    let name = create.split_whitespace().nth(3).unwrap().to_string();
    assert!(name.starts_with("agent-"), "{create}");
    assert!(create.contains(&format!("--from {IMAGE} --policy ")), "{create}");
    assert!(create.contains("--no-auto-providers"), "{create}");
    assert!(
        create.contains(":/sandbox/workspace"),
        "the workspace is uploaded at creation: {create}"
    );
    let uploads: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with(&format!("sandbox upload {name} ")))
        .collect();
    let dest = |d: &str| uploads.iter().any(|l| l.ends_with(d));
    assert!(dest(" /sandbox/.ghostlab/env"), "{uploads:#?}");
    assert!(dest(" /sandbox/home") && dest(" /sandbox/config"), "{uploads:#?}");
    assert!(
        uploads
            .iter()
            .any(|l| l.contains(" /sandbox/inputs/") && l.ends_with("/AGENTS.md")),
        "the instructions are staged inputs: {uploads:#?}"
    );
    // The agent CLI comes from the image; the host's OpenCode is never uploaded.
    assert!(!uploads.iter().any(|l| l.contains("opencode-linux")), "{uploads:#?}");
    let execs: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| {
            l.starts_with(&format!(
                "sandbox exec -n {name} --workdir /sandbox/workspace --no-tty "
            ))
        })
        .collect();
    assert!(
        execs
            .iter()
            .any(|l| l.contains(" -- sh -c ") && l.contains(" git init")),
        "{execs:#?}"
    );
    let turn = execs
        .iter()
        .find(|l| l.contains(" opencode run --format json"))
        .unwrap_or_else(|| panic!("no OpenCode turn:\n{calls}"));
    assert!(turn.contains("--env HOME=/sandbox/home"), "{turn}");
    assert!(
        turn.contains("--env OPENCODE_CONFIG=/sandbox/config/opencode.json"),
        "{turn}"
    );
    assert!(!turn.contains("RELEASE_TOKEN="), "a credential on the argv: {turn}");
    for d in ["/sandbox/workspace", "/sandbox/home"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("sandbox download {name} {d} "))),
            "{d} not downloaded:\n{calls}"
        );
    }
    assert!(lines.contains(&format!("logs {name}").as_str()), "{calls}");
    assert_eq!(lines.last().copied(), Some(format!("sandbox delete {name}").as_str()));

    let policy = std::fs::read_to_string(fake.record.join(format!("{name}.policy.yaml"))).unwrap();
    let v: serde_json::Value = yaml_serde::from_str(&policy).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["landlock"]["compatibility"], "hard_requirement");
    let rw: Vec<&str> = v["filesystem_policy"]["read_write"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str())
        .collect();
    assert!(rw.contains(&"/sandbox/workspace") && !rw.contains(&"/"), "{policy}");
    let ro = v["filesystem_policy"]["read_only"].to_string();
    assert!(ro.contains("/sandbox/inputs/"), "staged inputs are read-only: {policy}");
    // The model endpoint (the local cassette server) is the only destination.
    let np = v["network_policies"].as_object().unwrap();
    assert_eq!(np.len(), 1, "{policy}");
    let ep = &np.values().next().unwrap()["endpoints"][0];
    assert_eq!(ep["host"], "127.0.0.1", "{policy}");
    assert_eq!(ep["enforcement"], "enforce", "{policy}");
    assert!(!policy.contains(CANARY));
}

/// A process-host job (offline roles, a README workspace) with `sandbox_yaml` as its sandbox
/// block and `agent` as its `sh -c` script, generated and tested through the fake CLI. Returns
/// the fake's records, `ghostlab test`'s exit code and stdout, and the trials' folders.
fn run_process_job(tmp: &Path, sandbox_yaml: &str, agent: &str) -> (Fake, Option<i32>, String, Vec<PathBuf>) {
    let fake = new_fake(tmp);
    let dir = tmp.join("job");
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("ws/README.md"), "hello\n").unwrap();
    std::fs::write(
        dir.join("openshell-policy.yaml"),
        "version: 1\nfilesystem_policy:\n  read_write: [/]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("job.yaml"),
        format!(
            "version: 1\nagent:\n  id: echo-agent\n  description: Answers questions about the README.\n  \
             runtime: {{ backend: process }}\n  workspace: ./ws\nsandbox:\n{sandbox_yaml}\
             hosts:\n  process: {{ command: [sh, -c, {agent:?}], prompt: stdin }}\n\
             generation:\n  proposer: {{ provider: offline }}\n  emulator: {{ provider: offline }}\n  judge: {{ provider: offline }}\n"
        ),
    )
    .unwrap();
    succeeds(&dir, &fake, &["generate", "--job", "job.yaml"]);
    let out = ghostlab(&dir, &fake)
        .args(["test", "--job", "job.yaml", "--include-pending"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let run = newest_run(&dir);
    let trials: Vec<PathBuf> = walkdir::WalkDir::new(run.join("cases"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "verdict.json")
        .map(|e| e.path().parent().unwrap().to_path_buf())
        .collect();
    assert!(!trials.is_empty(), "{stdout}");
    (fake, out.status.code(), stdout, trials)
}

/// A policy OpenShell refuses (here the user's own `network: policy` file with
/// `read_write: [/]`) fails the sandbox's creation: every case is INFRA_ERROR with OpenShell's
/// own message, never a fallback to another backend.
#[test]
fn fake_openshell_refused_create_is_infra_error_with_openshells_message() {
    let tmp = tempfile::tempdir().unwrap();
    let (fake, code, stdout, trials) = run_process_job(
        tmp.path(),
        "  backend: openshell\n  network: policy\n  policy: ./openshell-policy.yaml\n",
        "printf 'ok: '; cat",
    );
    assert_ne!(code, Some(0), "{stdout}");
    for trial in &trials {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(trial.join("verdict.json")).unwrap()).unwrap();
        assert_eq!(v["verdict"], "INFRA_ERROR", "{v:#}");
        assert!(
            v.to_string().contains(
                "openshell sandbox create failed (1): Error: invalid sandbox policy: read_write must not contain /"
            ),
            "OpenShell's own message is kept: {v:#}"
        );
    }
    let calls = std::fs::read_to_string(&fake.argv_log).unwrap();
    assert!(
        !calls.contains("sandbox exec"),
        "nothing ran after the refused create:\n{calls}"
    );
    assert_eq!(std::fs::read_dir(&fake.root).unwrap().count(), 0);
}

/// The fake refuses what the real CLI refuses, so a test passing against it cannot rest on a
/// command line the real one would reject.
#[test]
fn fake_openshell_refuses_what_the_real_cli_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(fake_cli())
            .args(args)
            .env("FAKE_OPENSHELL_LOG", tmp.path().join("argv.log"))
            .env("FAKE_OPENSHELL_ROOT", &root)
            .output()
            .unwrap()
    };
    let policy = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let upload = format!("{}:/sandbox/workspace", ws.display());
    let root_rw = policy("rw.yaml", "version: 1\nfilesystem_policy: { read_write: [/] }\n");
    let wildcard = policy(
        "wild.yaml",
        "version: 1\nnetwork_policies:\n  any:\n    name: any\n    endpoints: [{ host: \"*.com\", port: 443 }]\n",
    );
    let unknown = policy("unknown.yaml", "version: 1\nnetwork: open\n");
    for (args, why) in [
        (
            vec!["sandbox", "create", "--name", "a", "--bogus"],
            "unexpected argument '--bogus'",
        ),
        (
            vec!["sandbox", "create", "--name", "a", "--upload", &upload, "--", "ls"],
            "cannot be used with a trailing command",
        ),
        (
            vec!["sandbox", "create", "--name", "a", "--policy", &root_rw],
            "read_write must not contain /",
        ),
        (
            vec!["sandbox", "create", "--name", "a", "--policy", &wildcard],
            "must be an exact host name",
        ),
        (
            vec!["sandbox", "create", "--name", "a", "--policy", &unknown],
            "unknown field `network`",
        ),
        (
            vec!["sandbox", "exec", "-n", "a", "--privileged", "--", "true"],
            "unexpected argument",
        ),
        (vec!["sandbox", "frobnicate"], "unrecognized subcommand"),
    ] {
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    }
    assert_eq!(
        std::fs::read_dir(&root).unwrap().count(),
        0,
        "a refused create left a sandbox"
    );
    // And what it accepts works: create, stdin and exit code through exec, delete.
    assert!(
        run(&["sandbox", "create", "--name", "b", "--upload", &upload])
            .status
            .success()
    );
    let mut child = std::process::Command::new(fake_cli())
        .args([
            "sandbox",
            "exec",
            "-n",
            "b",
            "--workdir",
            "/sandbox/workspace",
            "--no-tty",
            "--",
            "sh",
            "-c",
            "cat; exit 5",
        ])
        .env("FAKE_OPENSHELL_LOG", tmp.path().join("argv.log"))
        .env("FAKE_OPENSHELL_ROOT", &root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"through stdin").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "through stdin");
    assert!(run(&["sandbox", "delete", "b"]).status.success());
    assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);
}

/// `sandbox.download` means the same on bubblewrap and on the FAKE OpenShell: a file the agent
/// wrote in the workspace and one in HOME come back into the trial's `downloads/`, redacted
/// (the credential the agent wrote is masked), and a missing path is recorded, not fatal. On
/// OpenShell each goes through `openshell sandbox download` before the sandbox is deleted.
#[test]
fn fake_openshell_and_bubblewrap_bring_back_sandbox_download_paths() {
    for backend in ["bubblewrap", "openshell"] {
        let tmp = tempfile::tempdir().unwrap();
        // The agent: writes a report (with the credential in it) and a note in HOME, then answers.
        let (fake, _, stdout, trials) = run_process_job(
            tmp.path(),
            &format!(
                "  backend: {backend}\n  credentials: {{ env: [RELEASE_TOKEN] }}\n  \
                 download: [out/report.txt, /sandbox/home/note.txt, missing.txt]\n"
            ),
            "mkdir -p out && printf 'report %s\\n' \"$RELEASE_TOKEN\" > out/report.txt && \
             printf 'note\\n' > \"$HOME/note.txt\"; printf 'ok: '; cat",
        );
        for trial in &trials {
            let verdict = std::fs::read_to_string(trial.join("verdict.json")).unwrap();
            assert!(!verdict.contains("INFRA_ERROR"), "{backend}: {verdict}");
            let report = std::fs::read_to_string(trial.join("downloads/workspace/out/report.txt"))
                .unwrap_or_else(|e| panic!("{backend}: {e}: {stdout}"));
            assert!(report.starts_with("report "), "{backend}: {report}");
            assert!(!report.contains(CANARY), "{backend}: the download was not redacted");
            assert_eq!(
                std::fs::read_to_string(trial.join("downloads/home/note.txt")).unwrap(),
                "note\n",
                "{backend}"
            );
            let manifest: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(trial.join("downloads.json")).unwrap()).unwrap();
            assert_eq!(manifest["version"], 1);
            let d = manifest["downloads"].as_array().unwrap();
            assert_eq!(d[0]["inside"], "/sandbox/workspace/out/report.txt", "{manifest:#}");
            assert_eq!(d[0]["saved"], "downloads/workspace/out/report.txt", "{manifest:#}");
            assert_eq!(d[1]["saved"], "downloads/home/note.txt", "{manifest:#}");
            assert_eq!(d[2]["inside"], "/sandbox/workspace/missing.txt", "{manifest:#}");
            assert!(d[2]["saved"].is_null() && d[2]["error"].is_string(), "{manifest:#}");
        }
        let calls = std::fs::read_to_string(&fake.argv_log).unwrap_or_default();
        if backend == "bubblewrap" {
            assert!(
                !calls.contains("sandbox"),
                "bubblewrap used the openshell CLI:\n{calls}"
            );
            continue;
        }
        assert!(!calls.contains(CANARY), "a secret reached an openshell argv:\n{calls}");
        // Per case: each declared path through `sandbox download NAME PATH LOCAL`, before the delete.
        let lines: Vec<&str> = calls.lines().collect();
        for created in lines.iter().filter(|l| l.starts_with("sandbox create ")) {
            let name = created.split_whitespace().nth(3).unwrap();
            let at = |prefix: String| {
                lines
                    .iter()
                    .position(|l| l.starts_with(&prefix))
                    .unwrap_or_else(|| panic!("no `{prefix}`:\n{calls}"))
            };
            let delete = at(format!("sandbox delete {name}"));
            for inside in [
                "/sandbox/workspace/out/report.txt",
                "/sandbox/home/note.txt",
                "/sandbox/workspace/missing.txt",
            ] {
                let i = at(format!("sandbox download {name} {inside} "));
                assert!(i < delete, "{inside} downloaded after the delete:\n{calls}");
                assert_eq!(lines[i].split_whitespace().count(), 5, "{}", lines[i]);
            }
        }
    }
}
