//! `ghostlab init` on the layouts people really have (fixtures under tests/fixtures/import,
//! written for these tests): each imports, validates and emits, and the real pinned OpenCode
//! CLI's `opencode debug config` on the emitted config shows the same agents, commands,
//! permissions (in order), MCP servers and instructions as on the original.

use crate::common;

use assert_cmd::Command;
use common::{opencode, repo};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Model ids the fixture reads through `{env:…}`; set the same for both CLI runs.
const ENV: &[(&str, &str)] = &[
    ("SHOP_MODEL", "openai/gpt-4o"),
    ("SUPPORT_MODEL", "openai/gpt-4.1"),
    ("TICKETS_TOKEN", "canary-tickets-7c1e"),
    ("DOCS_TOKEN", "canary-docs-9b2f"),
    ("TENANT", "acme"),
    ("CLIENT_SECRET", "canary-client-3d4e"),
];

/// A fresh copy of a fixture (OpenCode writes into `.opencode/`, and a test must not).
fn copy_fixture(name: &str, dst: &Path) -> PathBuf {
    let src = repo().join("tests/fixtures/import").join(name);
    let root = dst.join(name);
    for e in walkdir::WalkDir::new(&src).into_iter().filter_map(Result::ok) {
        let rel = e.path().strip_prefix(&src).unwrap();
        if e.file_type().is_dir() {
            std::fs::create_dir_all(root.join(rel)).unwrap();
        } else {
            std::fs::copy(e.path(), root.join(rel)).unwrap();
        }
    }
    root
}

fn ghostlab(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("ghostlab").unwrap().args(args).output().unwrap()
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

/// `init --from src --out <dir>/job/job.yaml`, then `emit`; returns (init output, emitted
/// config, emit folder).
fn import_and_emit(src: &Path, work: &Path) -> (std::process::Output, Value, PathBuf) {
    let job = work.join("job/job.yaml");
    std::fs::create_dir_all(job.parent().unwrap()).unwrap();
    let init = ghostlab(&["init", "--from", src.to_str().unwrap(), "--out", job.to_str().unwrap()]);
    assert!(init.status.success(), "init failed: {}", text(&init.stderr));
    let validate = ghostlab(&["validate", "--job", job.to_str().unwrap()]);
    assert!(validate.status.success(), "{}", text(&validate.stderr));
    let emitted = work.join("emitted");
    let emit = ghostlab(&[
        "emit",
        "--job",
        job.to_str().unwrap(),
        "--out",
        emitted.to_str().unwrap(),
    ]);
    assert!(emit.status.success(), "{}", text(&emit.stderr));
    let cfg: Value = serde_json::from_str(&std::fs::read_to_string(emitted.join("opencode.json")).unwrap()).unwrap();
    let errors = crate::common::schema_errors("opencode-config.subset", &cfg);
    assert!(
        errors.is_empty(),
        "emitted config drifts from the vendored schema: {errors:?}"
    );
    (init, cfg, emitted)
}

/// `opencode debug config` in `dir`, with the fixture's variables set.
fn debug_config(dir: &Path) -> Value {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = opencode(home.path());
    for (k, v) in ENV {
        cmd.env(k, v);
    }
    let out = cmd.current_dir(dir).args(["debug", "config"]).output().unwrap();
    assert!(
        out.status.success(),
        "opencode rejected the config in {}: {}",
        dir.display(),
        text(&out.stderr)
    );
    serde_json::from_str(&text(&out.stdout)).expect("opencode printed JSON")
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default()
}

/// The fields of an agent that decide its behaviour, as OpenCode resolved them. (The order
/// of an agent's `permission` keys in `debug config` depends on where OpenCode folded
/// `tools` into it; the effective order is compared with `effective_rules`.)
fn agent_surface(a: &Value) -> Value {
    json!({
        "description": a["description"], "prompt": a["prompt"], "mode": a["mode"], "model": a["model"],
        "temperature": a["temperature"], "steps": a["steps"], "tools": a["tools"],
        "permission": a["permission"],
    })
}

/// `opencode debug agent NAME`: the agent's effective permission rules, per permission in
/// evaluation order (last match wins within a permission), without rules naming per-run
/// folders (home, temp, skill copies), plus its effective tool switches.
fn effective_rules(dir: &Path, name: &str) -> Value {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = opencode(home.path());
    for (k, v) in ENV {
        cmd.env(k, v);
    }
    let out = cmd.current_dir(dir).args(["debug", "agent", name]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let agent: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let mut per_permission = serde_json::Map::new();
    for rule in agent["permission"].as_array().unwrap() {
        if rule["pattern"].as_str().unwrap_or("").starts_with('/') {
            continue;
        }
        let key = rule["permission"].as_str().unwrap().to_string();
        let list = per_permission.entry(key).or_insert_with(|| json!([]));
        list.as_array_mut()
            .unwrap()
            .push(json!([rule["pattern"], rule["action"]]));
    }
    json!({ "rules": per_permission, "tools": agent["tools"], "model": agent["model"] })
}

#[test]
fn dot_opencode_project_imports_and_opencode_sees_the_same_agent() {
    let work = tempfile::tempdir().unwrap();
    let project = copy_fixture("opencode-project", work.path());
    let (init, cfg, emitted) = import_and_emit(&project, work.path());
    says_where_each_part_came_from_and_what_was_not_carried(&text(&init.stdout), &text(&init.stderr));

    // References stay references in the emitted config.
    assert_eq!(cfg["model"], "{env:SHOP_MODEL}");
    assert_eq!(cfg["agent"]["support"]["model"], "{env:SUPPORT_MODEL}");
    let emitted_text = std::fs::read_to_string(emitted.join("opencode.json")).unwrap();
    assert!(
        !emitted_text.contains("canary-"),
        "a secret value reached the emitted config"
    );
    assert!(
        !emitted_text.contains("${"),
        "a Ghostlab reference leaked as a literal: {emitted_text}"
    );

    let original = debug_config(&project);
    let ours = debug_config(&emitted);
    for key in [
        "model",
        "small_model",
        "default_agent",
        "formatter",
        "compaction",
        "watcher",
    ] {
        assert_eq!(ours[key], original[key], "`{key}` differs");
    }
    same_agents(&ours, &original, &emitted, &project);
    same_commands_permissions_and_mcps(&ours, &original);
    // Instructions: OpenCode expands the glob and skips the missing file at run time, and
    // reads AGENTS.md by itself; the emitted config lists exactly those files.
    assert_eq!(
        original["instructions"],
        json!([".opencode/rules/*.md", "docs/style-guide.md", "CONTRIBUTING.md"])
    );
    let expected: Vec<String> = [
        ".opencode/rules/style.md",
        ".opencode/rules/testing.md",
        "CONTRIBUTING.md",
        "AGENTS.md",
    ]
    .iter()
    .map(|f| project.join(f).to_string_lossy().into_owned())
    .collect();
    assert_eq!(ours["instructions"], json!(expected));
}

/// Provenance: the markdown agent overrides the JSON one; markdown commands are named.
/// Warnings: the missing instruction, the TUI key and the replaced key, each with its path.
fn says_where_each_part_came_from_and_what_was_not_carried(stdout: &str, stderr: &str) {
    for line in [
        "agent `reviewer`: .opencode/opencode.jsonc + .opencode/agent/reviewer.md",
        "agent `triage-bot`: .opencode/agents/triage-bot.md",
        "command `release-notes`: .opencode/command/release-notes.md",
        "command `check`: .opencode/commands/check.md",
    ] {
        assert!(stdout.contains(line), "{stdout}");
    }
    assert!(
        stderr.contains("instructions[1]: not carried: `docs/style-guide.md` does not exist"),
        "{stderr}"
    );
    assert!(stderr.contains("theme: not carried: a terminal UI setting"), "{stderr}");
    assert!(stderr.contains("share: replaced:"), "{stderr}");
    assert!(!stderr.contains("silently ignore"), "{stderr}");
}

/// OpenCode resolves the same agents from both configs, with the same surface and the same
/// effective permissions; the markdown override won, as in OpenCode.
fn same_agents(ours: &Value, original: &Value, emitted: &Path, project: &Path) {
    assert_eq!(keys(&ours["agent"]), keys(&original["agent"]));
    for name in keys(&original["agent"]) {
        assert_eq!(
            agent_surface(&ours["agent"][&name]),
            agent_surface(&original["agent"][&name]),
            "agent `{name}` differs"
        );
    }
    for name in keys(&original["agent"]) {
        assert_eq!(
            effective_rules(emitted, &name),
            effective_rules(project, &name),
            "effective permissions of `{name}` differ"
        );
    }
    assert_eq!(ours["agent"]["reviewer"]["permission"]["edit"], "deny");
}

/// The same commands, the same permissions in the same order, the same MCP servers.
fn same_commands_permissions_and_mcps(ours: &Value, original: &Value) {
    let mut ours_cmds = keys(&ours["command"]);
    let mut orig_cmds = keys(&original["command"]);
    ours_cmds.sort();
    orig_cmds.sort();
    assert_eq!(ours_cmds, orig_cmds);
    for name in orig_cmds {
        assert_eq!(
            ours["command"][&name], original["command"][&name],
            "command `{name}` differs"
        );
    }
    assert_eq!(ours["permission"], original["permission"]);
    assert_eq!(
        keys(&ours["permission"]),
        keys(&original["permission"]),
        "permission order changed"
    );
    assert_eq!(keys(&ours["mcp"]), keys(&original["mcp"]));
    for name in keys(&original["mcp"]) {
        for field in ["type", "command", "url", "environment", "headers"] {
            assert_eq!(
                ours["mcp"][&name][field], original["mcp"][&name][field],
                "mcp.{name}.{field}"
            );
        }
    }
}

#[test]
fn vscode_mcp_json_with_comments_and_inputs() {
    let work = tempfile::tempdir().unwrap();
    let ws = copy_fixture("vscode-workspace", work.path());
    let (init, cfg, emitted) = import_and_emit(&ws.join(".vscode/mcp.json"), work.path());
    let stderr = text(&init.stderr);
    assert!(stderr.contains("VS Code prompts for input `github-token`"), "{stderr}");
    assert!(stderr.contains("VS Code prompts for input `tenant`"), "{stderr}");
    // An input inside a URL is converted like one in a header.
    assert_eq!(cfg["mcp"]["tenant-api"]["url"], "https://{env:TENANT}.example.com/mcp");
    assert!(stderr.contains("`${GITHUB_TOKEN}`"), "{stderr}");
    assert!(stderr.contains("envFile: not carried"), "{stderr}");
    assert!(stderr.contains("${GITHUB_API_URL}, ${FS_LOG_LEVEL}"), "{stderr}");
    assert!(!stderr.contains("literal credential"), "{stderr}");
    assert_eq!(
        cfg["mcp"]["github"]["headers"]["Authorization"],
        "Bearer {env:GITHUB_TOKEN}"
    );
    let args = cfg["mcp"]["workspace-files"]["command"].as_array().unwrap();
    assert_eq!(args.last().unwrap(), &json!(ws.join("docs").to_string_lossy()));
    let ours = debug_config(&emitted);
    assert_eq!(keys(&ours["mcp"]), ["github", "tenant-api", "workspace-files"]);
    assert_eq!(ours["mcp"]["tenant-api"]["url"], "https://acme.example.com/mcp");
    assert_eq!(ours["mcp"]["github"]["type"], "remote");
    assert_eq!(ours["mcp"]["github"]["url"], "https://api.githubcopilot.com/mcp/");
    assert_eq!(ours["mcp"]["workspace-files"]["type"], "local");
}

#[test]
fn claude_code_mcp_json() {
    let work = tempfile::tempdir().unwrap();
    let project = copy_fixture("claude-code-project", work.path());
    let (init, cfg, emitted) = import_and_emit(&project.join(".mcp.json"), work.path());
    let stderr = text(&init.stderr);
    assert!(
        stderr.contains("mcpServers.postgres: a `${VAR:-default}` default is not carried"),
        "{stderr}"
    );
    assert_eq!(
        cfg["mcp"]["sentry"]["headers"]["Authorization"],
        "Bearer {env:SENTRY_AUTH_TOKEN}"
    );
    assert_eq!(
        cfg["mcp"]["postgres"]["command"],
        json!(["npx", "-y", "@bytebase/dbhub", "--dsn", "{env:DATABASE_URL}"])
    );
    let ours = debug_config(&emitted);
    assert_eq!(keys(&ours["mcp"]), ["sentry", "postgres"]);
    assert_eq!(ours["mcp"]["sentry"]["type"], "remote");
    assert_eq!(ours["mcp"]["postgres"]["environment"]["DBHUB_LOG"], "warn");
}

#[test]
fn cursor_disabled_tools_become_denied_permissions() {
    let work = tempfile::tempdir().unwrap();
    let project = copy_fixture("cursor-project", work.path());
    let (init, cfg, emitted) = import_and_emit(&project.join(".cursor/mcp.json"), work.path());
    let stderr = text(&init.stderr);
    assert!(stderr.contains("mcpServers.linear.disabledTools"), "{stderr}");
    assert!(
        stderr.contains("mcpServers.browser.autoApprove: not carried"),
        "{stderr}"
    );
    assert_eq!(
        cfg["permission"],
        json!({"linear_delete_issue": "deny", "linear_archive_project": "deny"})
    );
    let ours = debug_config(&emitted);
    assert_eq!(keys(&ours["mcp"]), ["linear", "browser"]);
    assert_eq!(ours["permission"]["linear_delete_issue"], "deny");
    assert_eq!(
        ours["mcp"]["browser"]["headers"]["X-Api-Key"]
            .as_str()
            .map(|s| !s.is_empty()),
        Some(true)
    );
}

#[test]
fn a_failing_import_writes_nothing_and_names_file_and_key() {
    let work = tempfile::tempdir().unwrap();
    let project = copy_fixture("broken-project", work.path());
    let job = work.path().join("job.yaml");
    let out = ghostlab(&[
        "init",
        "--from",
        project.to_str().unwrap(),
        "--out",
        job.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("broken-project/opencode.jsonc"), "{stderr}");
    assert!(stderr.contains("agent.runtime.permission"), "{stderr}");
    assert!(!job.exists(), "a failing import wrote {}", job.display());
}

#[test]
fn jsonc_given_by_path_is_never_parsed_as_yaml() {
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("mcp.json");
    std::fs::write(
        &file,
        "{\n  // servers\n  \"servers\": {\n    \"a\": { \"command\": \"x\" \"args\": [] }\n  }\n}\n",
    )
    .unwrap();
    let job = work.path().join("job.yaml");
    let out = ghostlab(&["init", "--from", file.to_str().unwrap(), "--out", job.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("malformed JSON at line 4 column"), "{stderr}");
    assert!(!stderr.contains("YAML"), "{stderr}");
    assert!(!job.exists());
}

#[test]
fn a_job_that_does_not_validate_is_written_only_with_force() {
    let work = tempfile::tempdir().unwrap();
    let agent = work.path().join("agent.yaml");
    std::fs::write(&agent, "id: x\nruntime:\n  instructions: [missing.md]\n").unwrap();
    let job = work.path().join("job.yaml");
    let args = [
        "init",
        "--from",
        agent.to_str().unwrap(),
        "--out",
        job.to_str().unwrap(),
    ];
    let out = ghostlab(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("agent.runtime.instructions[0]"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        !job.exists(),
        "a job that does not validate was written without --force"
    );
    let forced = ghostlab(&[&args[..], &["--force"]].concat());
    assert_eq!(forced.status.code(), Some(2));
    assert!(job.exists());
}

/// What imports used to lose, each compared with the real OpenCode on the original project:
/// a remote server's `oauth` (none added where the source had none; `{}`, `false` and client
/// settings kept), markdown agents and commands named by their frontmatter `name:` at any
/// depth, and frontmatter with unquoted colons in values that OpenCode reads as text.
#[test]
fn oauth_frontmatter_names_and_colons_mean_what_they_mean_in_opencode() {
    let work = tempfile::tempdir().unwrap();
    let project = copy_fixture("opencode-gaps", work.path());
    let (init, cfg, emitted) = import_and_emit(&project, work.path());
    let stdout = text(&init.stdout);
    assert!(
        stdout.contains("agent `deep-reviewer`: .opencode/agent/team/deep.md"),
        "{stdout}"
    );
    assert!(cfg["mcp"]["plain"].get("oauth").is_none(), "{:#}", cfg["mcp"]);
    assert_eq!(cfg["mcp"]["self-registering"]["oauth"], json!({}));
    assert_eq!(cfg["mcp"]["client"]["oauth"]["clientSecret"], "{env:CLIENT_SECRET}");
    let emitted_text = std::fs::read_to_string(emitted.join("opencode.json")).unwrap();
    assert!(
        !emitted_text.contains("canary-"),
        "a secret value reached the emitted config"
    );

    let original = debug_config(&project);
    let ours = debug_config(&emitted);
    assert_eq!(keys(&ours["mcp"]), keys(&original["mcp"]));
    for name in keys(&original["mcp"]) {
        for field in ["type", "url", "headers", "oauth"] {
            assert_eq!(
                ours["mcp"][&name][field], original["mcp"][&name][field],
                "mcp.{name}.{field}"
            );
        }
    }
    let mut ours_agents = keys(&ours["agent"]);
    let mut orig_agents = keys(&original["agent"]);
    ours_agents.sort();
    orig_agents.sort();
    assert_eq!(ours_agents, orig_agents);
    assert!(orig_agents.contains(&"deep-reviewer".to_string()), "{orig_agents:?}");
    assert!(orig_agents.contains(&"plain/nested".to_string()), "{orig_agents:?}");
    for name in &orig_agents {
        assert_eq!(
            agent_surface(&ours["agent"][name]),
            agent_surface(&original["agent"][name]),
            "agent `{name}` differs"
        );
    }
    assert_eq!(ours["command"]["fix"], original["command"]["fix"]);
    assert_eq!(
        original["command"]["fix"]["description"],
        "Fix: the failing test, then: rerun it"
    );
}

/// OpenCode's `plugin` list with each local file URL reduced to the file's real path.
fn plugin_specs(cfg: &Value) -> Vec<String> {
    let mut out: Vec<String> = cfg["plugin"]
        .as_array()
        .unwrap_or_else(|| panic!("no plugin list: {cfg:#}"))
        .iter()
        .map(|p| {
            let spec = p.as_str().or_else(|| p[0].as_str()).unwrap().to_string();
            match spec.strip_prefix("file://") {
                Some(path) => std::fs::canonicalize(path)
                    .unwrap_or_else(|e| panic!("{path}: {e}"))
                    .to_string_lossy()
                    .into_owned(),
                None => spec,
            }
        })
        .collect();
    out.sort();
    out
}

#[test]
fn local_plugins_are_carried_and_opencode_loads_the_same_ones() {
    let work = tempfile::tempdir().unwrap();
    let project = copy_fixture("local-plugins", work.path());
    let theirs = debug_config(&project);
    let (init, cfg, emitted) = import_and_emit(&project, work.path());
    let stderr = text(&init.stderr);
    assert!(
        stderr.contains("not carried: `shared.mjs` (OpenCode loads only the `.ts` and `.js` files here"),
        "{stderr}"
    );
    assert!(!stderr.contains("loads local plugins"), "{stderr}");
    let job = std::fs::read_to_string(work.path().join("job/job.yaml")).unwrap();
    assert!(
        job.contains("file:../local-plugins/.opencode/plugin/notify.ts"),
        "{job}"
    );
    // Emitted as absolute file URLs of the same files.
    assert!(
        cfg["plugin"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .filter(|p| p.starts_with("file://"))
            .all(|p| p.starts_with("file:///")),
        "{cfg:#}"
    );
    let ours = debug_config(&emitted);
    assert_eq!(plugin_specs(&ours), plugin_specs(&theirs));
    assert_eq!(plugin_specs(&ours).len(), 3, "{ours:#}");
}

#[test]
fn roo_and_cline_keys_are_mapped_or_dropped_with_a_warning_never_refused() {
    let work = tempfile::tempdir().unwrap();
    let project = copy_fixture("roo-project", work.path());
    let (init, cfg, emitted) = import_and_emit(&project.join(".roo/mcp.json"), work.path());
    let stderr = text(&init.stderr);
    for expected in [
        "mcpServers.tickets.icon: not carried: `icon` is another client's setting",
        "mcpServers.events.networkTimeout: not carried",
        "mcpServers.tickets.watchPaths: not carried",
        "mcpServers.tickets.alwaysAllow: not carried",
        "mcpServers.tickets.timeout: read as 90 s",
    ] {
        assert!(stderr.contains(expected), "missing {expected:?} in:\n{stderr}");
    }
    assert_eq!(cfg["permission"]["tickets_delete_ticket"], "deny", "{cfg:#}");
    let ours = debug_config(&emitted);
    assert_eq!(keys(&ours["mcp"]), ["tickets", "archive", "events"]);
    assert_eq!(ours["mcp"]["tickets"]["timeout"], 90_000);
    assert_eq!(ours["mcp"]["archive"]["enabled"], false);
    assert_eq!(ours["mcp"]["events"]["type"], "remote");
    assert_eq!(ours["permission"]["tickets_delete_ticket"], "deny");
    // The dropped keys reach OpenCode nowhere.
    let text = ours.to_string();
    assert!(
        !text.contains("networkTimeout") && !text.contains("\"icon\""),
        "{ours:#}"
    );
}
