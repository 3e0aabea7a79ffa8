//! job.yaml validation through the real binary: every invalid fixture exits 2, names the file
//! and the key path, and never panics.

use assert_cmd::Command;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// (fixture, text that must appear as the key path or location, text of the message)
const INVALID: &[(&str, &str, &str)] = &[
    (
        "unknown_top_key",
        ": sandbx: unknown key `sandbx`",
        "did you mean `sandbox`?",
    ),
    ("unknown_agent_key", ": agent.nmae: unknown key", "did you mean `name`?"),
    (
        "unknown_runtime_key",
        ": agent.runtime.modle: unknown key",
        "did you mean `model`?",
    ),
    (
        "unknown_subagent_key",
        ": agent.runtime.agents.release.temprature: unknown key",
        "did you mean `temperature`?",
    ),
    (
        "unknown_sandbox_key",
        ": sandbox.netwrok: unknown key",
        "did you mean `network`?",
    ),
    (
        "unknown_gate_key",
        ": review.gates.min_pass_rat: unknown key",
        "did you mean `min_pass_rate`?",
    ),
    (
        "unknown_mcp_input_key",
        ": agent.inputs.mcps[0].servr: unknown key",
        "did you mean `server`?",
    ),
    (
        "unknown_generation_key",
        ": generation.judge.modle: unknown key",
        "did you mean `model`?",
    ),
    (
        "unknown_credentials_key",
        ": sandbox.credentials.opencode_auht: unknown key",
        "did you mean `opencode_auth`?",
    ),
    (
        "unknown_command_key",
        ": agent.runtime.commands.changelog.templat: unknown key",
        "did you mean `template`?",
    ),
    ("wrong_type_version", ": version:", "unsupported format version"),
    ("unsupported_version", ": version:", "this build reads version 1"),
    ("missing_version", ": version:", "missing required key"),
    (
        "wrong_type_temperature",
        ": agent.runtime.agents.release.temperature:",
        "expected null or number, found a string",
    ),
    (
        "wrong_type_instructions",
        ": agent.runtime.instructions:",
        "expected array, found a string",
    ),
    ("wrong_enum_backend", ": sandbox.backend:", "did you mean `bubblewrap`?"),
    (
        "wrong_enum_network",
        ": sandbox.network:",
        "is not one of: disabled, allowlist, policy",
    ),
    (
        "wrong_permission_action",
        ": agent.runtime.permission.bash:",
        "expected one of allow|ask|deny",
    ),
    ("wrong_type_keep", ": sandbox.keep:", "expected boolean, found a list"),
    ("missing_agent_id", ": agent.id: missing required key", ""),
    (
        "missing_instruction_file",
        ": agent.runtime.instructions[1]:",
        "`./files/NOPE.md` does not exist",
    ),
    (
        "missing_workspace",
        ": agent.workspace:",
        "folder `./files/no-such-repo` does not exist",
    ),
    (
        "missing_skill_folder",
        ": agent.runtime.skills.paths[1]:",
        "does not exist",
    ),
    ("skill_without_skill_md", ": agent.inputs.skills[0]:", "has no SKILL.md"),
    (
        "missing_prompt_file",
        ": agent.runtime.agents.release.prompt:",
        "does not exist",
    ),
    (
        "missing_config_ref",
        ": agent.inputs.mcps[0].config_ref:",
        "does not exist",
    ),
    (
        "config_ref_unknown_server",
        ": agent.inputs.mcps[0].server:",
        "servers there: srv",
    ),
    (
        "literal_secret_in_referenced_file",
        "mcp-literal.json: mcpServers.gh.env.GITHUB_TOKEN:",
        "literal credential",
    ),
    (
        "literal_secret_inline_mcp",
        ": agent.inputs.mcps[0].environment.GITHUB_TOKEN:",
        "literal credential",
    ),
    ("literal_api_key", ": generation.judge.api_key:", "literal credential"),
    ("malformed_yaml", ": agent.runtime: malformed YAML at line 5", ""),
    ("empty", ": (document): the file is empty", ""),
    (
        "non_utf8",
        ": agent: the file is not valid UTF-8: byte 0xff at line 2",
        "save it as UTF-8",
    ),
    (
        "top_level_list",
        ": (document): expected a mapping at the top level",
        "found a list",
    ),
    ("rate_out_of_range", ": review.gates.min_pass_rate:", "not a fraction"),
    ("allowlist_empty", ": sandbox.allow:", "needs at least one"),
    ("bad_allow_entry", ": sandbox.allow[0]:", "is not `host:port`"),
    (
        "default_agent_undefined",
        ": agent.runtime.default_agent:",
        "defined: release",
    ),
    (
        "duplicate_mcp_names",
        ": agent.inputs.mcps[1].server:",
        "two MCP servers are named `srv`",
    ),
    (
        "replay_without_cassette",
        ": generation.judge.cassette:",
        "needs a cassette",
    ),
    ("bad_memory_size", ": sandbox.memory:", "is not a size"),
    ("mcp_command_and_url", ": agent.inputs.mcps[0]:", "exactly one of"),
    (
        "duplicate_key",
        ": agent: malformed YAML at line 1",
        "duplicate entry with key \"agent\"",
    ),
];

#[test]
fn every_invalid_fixture_fails_with_file_and_key_path() {
    assert!(INVALID.len() >= 30);
    let dir = fixtures().join("invalid");
    let mut problems = Vec::new();
    for (name, place, message) in INVALID {
        let file = dir.join(format!("{name}.yaml"));
        let out = Command::cargo_bin("ghostlab")
            .unwrap()
            .args(["validate", "--job"])
            .arg(&file)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let named = format!("{name}.yaml");
        let ok = out.status.code() == Some(2)
            && stderr.contains(&named)
            && stderr.contains(place)
            && stderr.contains(message)
            && !stderr.contains("panicked");
        if !ok {
            problems.push(format!("{name}: exit {:?}\n{stderr}", out.status.code()));
        }
    }
    assert!(
        problems.is_empty(),
        "{} fixtures misreported:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn all_errors_of_a_file_are_reported() {
    let file = fixtures().join("invalid/several_errors.yaml");
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .args(["validate", "--job"])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("3 errors"), "{stderr}");
    for path in ["agent.runtime.modle", "sandbox.netwrok", "sandbox.backend"] {
        assert!(stderr.contains(path), "{path} missing in:\n{stderr}");
    }
}

#[test]
fn every_fixture_in_the_folder_is_in_the_table() {
    let listed: Vec<String> = INVALID
        .iter()
        .map(|(n, _, _)| format!("{n}.yaml"))
        .chain(["several_errors.yaml".into()])
        .collect();
    for entry in std::fs::read_dir(fixtures().join("invalid")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".yaml") {
            assert!(listed.contains(&name), "{name} has no row in INVALID");
        }
    }
}

#[test]
fn valid_files_pass() {
    for job in [
        fixtures().join("valid/minimal.yaml"),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/release-bot/job.yaml"),
    ] {
        let out = Command::cargo_bin("ghostlab")
            .unwrap()
            .args(["validate", "--job"])
            .arg(&job)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            job.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("OK "));
    }
}
