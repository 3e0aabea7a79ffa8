//! The newcomer corpus: small, different agent projects under tests/fixtures/newcomer, each
//! taken through `ghostlab lab --yes` the way a new user would start: offline roles,
//! bubblewrap, the real OpenCode on a scripted agent model. One persona and one scenario per
//! project keep CI cheap. Every case must end in a verdict other than INFRA_ERROR, the agent
//! host's stdout and stderr must be kept per trial, and a project with an MCP server must show
//! the server's own answer in the run (the tool really ran inside the sandbox).

use crate::common::server_everything;
use crate::common::{copy_dir, ghostlab_in, newest_run, opencode_bin, repo};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One project of the corpus.
struct Project {
    /// Folder under tests/fixtures/newcomer.
    name: &'static str,
    /// `--from`, relative to the project; `None` starts from the project's own job.yaml.
    from: Option<&'static str>,
    /// The job file, relative to the project.
    job: &'static str,
    /// The tool the scripted model calls on every user turn (OpenCode's name), with arguments.
    tool: Option<(&'static str, Value)>,
    /// Text that only the tool's real answer contains.
    evidence: Option<&'static str>,
    /// `--description`, where the source has no words about the purpose (an MCP servers file):
    /// what `lab --yes` asks a newcomer for.
    description: Option<&'static str>,
    /// Text the agent host's kept output must hold (a local plugin's start-up line).
    host_log: Option<&'static str>,
}

impl Project {
    /// A project started with `--from from` (`None`: its own job.yaml) and job.yaml beside it;
    /// no tool call, no evidence, no description until one is added.
    fn new(name: &'static str, from: Option<&'static str>) -> Self {
        Project {
            name,
            from,
            job: "job.yaml",
            tool: None,
            evidence: None,
            description: None,
            host_log: None,
        }
    }

    fn job(mut self, job: &'static str) -> Self {
        self.job = job;
        self
    }

    /// The scripted model calls `tool` with `args` on every user turn.
    fn calls(mut self, tool: &'static str, args: Value) -> Self {
        self.tool = Some((tool, args));
        self
    }

    /// Text that only the tool's real answer contains, required in every trial's events.
    fn answer_contains(mut self, evidence: &'static str) -> Self {
        self.evidence = Some(evidence);
        self
    }

    fn described(mut self, description: &'static str) -> Self {
        self.description = Some(description);
        self
    }

    fn host_log_contains(mut self, text: &'static str) -> Self {
        self.host_log = Some(text);
        self
    }
}

/// The scripted agent model: a title, then on each user turn one call of `tool` (if any) and
/// a closing text once its result is back. One rule set for every project.
fn cassette(dir: &Path, tool: Option<&(&str, Value)>) -> PathBuf {
    let mut script = vec![
        json!({"name": "title", "when": {"system_contains": "You are a title generator"}, "reply": {"text": "Newcomer check"}}),
        json!({"name": "after-tool", "when": {"has_tool_result": "*"}, "reply": {"text": "I looked it up with the tool; that is what it says. Anything else?"}}),
    ];
    script.push(match tool {
        Some((name, args)) => {
            json!({"name": "use-tool", "when": {}, "reply": {"tool_calls": [{"name": name, "arguments": args}]}})
        }
        None => json!({"name": "answer", "when": {}, "reply": {"text": "Here is what I would do, step by step. Shall I go ahead?"}}),
    });
    let path = dir.join("agent-cassette.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&json!({"version": 1, "entries": [], "script": script})).unwrap(),
    )
    .unwrap();
    path
}

/// The reference server-everything over streamable HTTP on a free local port.
fn remote_everything() -> server_everything::ServerEverything {
    let js = server_everything::script();
    assert!(js.is_file(), "{} is missing; run scripts/install-deps.sh", js.display());
    server_everything::start("streamableHttp", Duration::from_secs(20))
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=newcomer", "-c", "user.email=newcomer@localhost"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `lab --yes` on a copy of `p` and checks every trial of the run.
fn run_project(p: &Project, prepare: impl FnOnce(&Path)) {
    let bin = opencode_bin();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(p.name);
    copy_dir(&repo().join("tests/fixtures/newcomer").join(p.name), &root);
    prepare(&root);
    let cassette = cassette(tmp.path(), p.tool.as_ref());
    let mut cmd = ghostlab_in(&root, 600);
    cmd.env("GHOSTLAB_OPENCODE_BIN", &bin)
        .args(["lab", "--yes", "--job", p.job])
        // Any `provider/model`: the cassette serves it, so no credential is needed.
        .args(["--model", "openai/gpt-4.1", "--sandbox", "bubblewrap"])
        .args([
            "--proposer-model",
            "offline",
            "--emulator-model",
            "offline",
            "--judge-model",
            "offline",
        ])
        .args(["--personas", "1", "--scenarios-per-persona", "1", "--parallel", "2"])
        .arg("--agent-cassette")
        .arg(&cassette);
    if let Some(from) = p.from {
        cmd.args(["--from", from]);
    }
    if let Some(d) = p.description {
        cmd.args(["--description", d]);
    }
    let started = Instant::now();
    let out = cmd.output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    eprintln!("{}: lab --yes took {:.1} s", p.name, started.elapsed().as_secs_f64());
    // The offline judge gives no real verdicts: gates unmet (1) is expected; 2 is an error.
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}: exit {:?}\n{stdout}\n{stderr}",
        p.name,
        out.status.code()
    );
    let job_dir = root.join(p.job).parent().unwrap().to_path_buf();
    let run = newest_run(&job_dir);
    let trials: Vec<PathBuf> = walkdir::WalkDir::new(run.join("cases"))
        .min_depth(2)
        .max_depth(2)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|d| d.join("verdict.json").is_file())
        .collect();
    assert!(
        !trials.is_empty(),
        "{}: no trial in {}\n{stderr}",
        p.name,
        run.display()
    );
    for trial in &trials {
        let verdict: Value =
            serde_json::from_str(&std::fs::read_to_string(trial.join("verdict.json")).unwrap()).unwrap();
        let events = std::fs::read_to_string(trial.join("events.jsonl")).unwrap_or_default();
        let log = std::fs::read_to_string(trial.join("agent-host.log")).unwrap_or_default();
        assert_ne!(
            verdict["verdict"],
            "INFRA_ERROR",
            "{}: {}\n{verdict:#}\n{events}\n{log}",
            p.name,
            trial.display()
        );
        assert!(
            log.starts_with("# ghostlab agent-host log v1") && log.contains("--- stdout") && log.contains("--- stderr"),
            "{}: the agent host's output is not kept in {}:\n{log}",
            p.name,
            trial.display()
        );
        if let Some(text) = p.host_log {
            assert!(
                log.contains(text),
                "{}: {text:?} is not in {}:\n{log}",
                p.name,
                trial.display()
            );
        }
        if let Some(evidence) = p.evidence {
            assert!(
                events.contains(evidence),
                "{}: the tool's answer ({evidence:?}) is not in the run:\n{events}",
                p.name
            );
        }
    }
}

#[test]
fn corpus_opencode_json_with_a_node_mcp_server_in_a_plain_folder() {
    let p = Project::new("notes-helper", Some("opencode.json"))
        .calls("notes_list_notes", json!({}))
        .answer_contains("standup.md");
    run_project(&p, |_| {});
}

#[test]
fn corpus_a_git_repository_with_a_review_agent() {
    let p = Project::new("git-shop", Some("."));
    run_project(&p, |root| {
        git(root, &["init", "-q"]);
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "shop"]);
    });
}

#[test]
fn corpus_a_monorepo_subfolder() {
    let p = Project::new("monorepo", Some("packages/api")).job("packages/api/job.yaml");
    run_project(&p, |_| {});
}

#[test]
fn corpus_claude_md_only() {
    let p = Project::new("claude-only", Some("."));
    run_project(&p, |_| {});
}

#[test]
fn corpus_dot_opencode_layout_with_markdown_agents_commands_and_a_local_plugin() {
    // The local plugin is carried by the import and loaded by OpenCode inside the sandbox.
    let p = Project::new("dot-opencode", Some(".")).host_log_contains("dot-opencode plugin loaded: announce");
    run_project(&p, |_| {});
}

#[test]
fn corpus_claude_code_mcp_json_with_a_python_server() {
    let p = Project::new("python-weather", Some(".mcp.json"))
        .calls("weather_forecast", json!({"city": "Lisbon"}))
        .answer_contains("sunny, 19 C")
        .described("Tells hikers whether tomorrow's weather suits a hike.");
    run_project(&p, |_| {});
}

/// Found by this corpus: the egress proxy served one request per connection without telling
/// the client, so OpenCode's keep-alive fetch sent `notifications/initialized` down a closed
/// exchange and the server offered no tools (INFRA_ERROR). The proxy now answers
/// `Connection: close` (`sandbox::proxy_http`).
#[test]
fn corpus_a_remote_streamable_http_server_served_locally() {
    let server = remote_everything();
    let port = server.port;
    let p = Project::new("remote-everything", Some("opencode.json"))
        .calls("everything_echo", json!({"message": "newcomer-echo-7f3a"}))
        .answer_contains("Echo: newcomer-echo-7f3a");
    run_project(&p, |root| {
        let cfg = root.join("opencode.json");
        let text = std::fs::read_to_string(&cfg)
            .unwrap()
            .replace("{PORT}", &port.to_string());
        std::fs::write(cfg, text).unwrap();
    });
}

#[test]
fn corpus_a_skill_folder_only() {
    let p = Project::new("skill-only", Some("commit-message")).calls("skill", json!({"name": "commit-message"}));
    run_project(&p, |_| {});
}

#[test]
fn corpus_an_mcp_server_only_through_target() {
    let p = Project::new("mcp-only-target", None)
        .calls("clock_now", json!({}))
        .answer_contains("2026-12-01T09:00:00Z");
    run_project(&p, |_| {});
}

#[test]
fn corpus_a_skill_only_through_target() {
    let p = Project::new("skill-target", None).calls("skill", json!({"name": "haiku"}));
    run_project(&p, |_| {});
}

#[test]
fn corpus_vscode_mcp_json_with_workspace_folder() {
    let p = Project::new("vscode-todo", Some(".vscode/mcp.json"))
        .calls("todo_list_todos", json!({}))
        .answer_contains("renew the domain")
        .described("Keeps a household to-do list short.");
    run_project(&p, |_| {});
}

#[test]
fn corpus_cursor_mcp_json_with_a_disabled_tool() {
    let p = Project::new("cursor-inventory", Some(".cursor/mcp.json"))
        .calls("inventory_stock_level", json!({"sku": "MUG-01"}))
        .answer_contains("MUG-01: 12 units")
        .described("Answers stock questions for a small online shop.");
    run_project(&p, |_| {});
}

#[test]
fn corpus_a_workspace_with_large_and_binary_files() {
    let p = Project::new("media-library", Some("opencode.json"));
    run_project(&p, |root| {
        let assets = root.join("assets");
        // 48 MiB that is not UTF-8, a PNG header with NULs, and an empty file.
        let block: Vec<u8> = (0..=255u8).cycle().take(1 << 20).collect();
        let mut big = Vec::with_capacity(48 << 20);
        for _ in 0..48 {
            big.extend_from_slice(&block);
        }
        std::fs::write(assets.join("archive.bin"), big).unwrap();
        std::fs::write(
            assets.join("photo.png"),
            [
                0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, b'I', b'H', b'D', b'R',
            ],
        )
        .unwrap();
        std::fs::write(assets.join("empty.dat"), b"").unwrap();
    });
}
