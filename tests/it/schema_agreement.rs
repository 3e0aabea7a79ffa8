//! `validate` and the published schemas/job.schema.json (checked with the `jsonschema` crate, as
//! an editor would) give the same answer: over every job file in the repository and a table of
//! variants that break each range, text form and key-needs-key rule. The rules the schema
//! cannot state are named below with the reason (and in docs/job-yaml.md).

use crate::common::repo;
use ghostlab::spec::load::read_yaml_document;
use ghostlab::spec::load_job;
use std::path::{Path, PathBuf};

/// Variants and fixtures that `validate` refuses and no JSON Schema can: (name, reason).
const CANNOT_BE_IN_SCHEMA: &[(&str, &str)] = &[
    (
        "memory_below_64mib",
        "a size's range: the schema checks the form, not the bytes",
    ),
    (
        "file_size_above_1tib",
        "a size's range: the schema checks the form, not the bytes",
    ),
    (
        "timeout_above_24h",
        "a duration's range: the schema checks the form, not the seconds",
    ),
    (
        "timeout_below_1s",
        "a duration's range: the schema checks the form, not the seconds",
    ),
    (
        "workdir_outside_sandbox",
        "a sandbox path is judged after `..` is resolved",
    ),
    ("upload_dest_escapes", "a sandbox path is judged after `..` is resolved"),
    ("download_twice", "two entries resolving to one path"),
    ("default_agent_undefined", "a name defined elsewhere in the file"),
    ("duplicate_mcp_names", "names unique across list entries"),
    ("target_id_taken", "names unique across list entries"),
    ("provider_literal_secret", "secret-looking key names (util::secret_ref)"),
    ("mcp_env_literal_secret", "secret-looking key names (util::secret_ref)"),
    (
        "role_header_literal_secret",
        "secret-looking key names (util::secret_ref)",
    ),
    (
        "secret_on_mcp_argv",
        "a secret-looking variable name inside an argv word",
    ),
    (
        "literal_secret_inline_mcp",
        "secret-looking key names (util::secret_ref)",
    ),
    ("missing_instruction_file", "a referenced file must exist"),
    ("missing_workspace", "a referenced folder must exist"),
    ("missing_skill_folder", "a referenced folder must exist"),
    ("skill_without_skill_md", "a referenced folder must hold SKILL.md"),
    ("missing_prompt_file", "a referenced file must exist"),
    ("missing_config_ref", "a referenced file must exist"),
    ("config_ref_unknown_server", "a name inside another file"),
    ("literal_secret_in_referenced_file", "the content of another file"),
    (
        "default_agent_undefined_fixture",
        "a name defined elsewhere in the file",
    ),
];

const BASE: &str = "version: 1\nagent:\n  id: bot\n";

/// (name, text after BASE): each breaks one rule; `validate` refuses every one.
const INVALID: &[(&str, &str)] = &[
    ("role_temperature_99", "generation:\n  judge: { temperature: 99 }\n"),
    (
        "role_temperature_negative",
        "generation:\n  emulator: { temperature: -0.5 }\n",
    ),
    (
        "agent_temperature_3",
        "  runtime:\n    agents:\n      a: { temperature: 3 }\n",
    ),
    ("agent_top_p_1_5", "  runtime:\n    agents:\n      a: { top_p: 1.5 }\n"),
    ("steps_0", "  runtime:\n    agents:\n      a: { steps: 0 }\n"),
    ("steps_1001", "  runtime:\n    agents:\n      a: { steps: 1001 }\n"),
    ("subagent_depth_17", "  runtime:\n    subagent_depth: 17\n"),
    ("min_pass_rate_1_5", "review:\n  gates: { min_pass_rate: 1.5 }\n"),
    (
        "inconclusive_rate_negative",
        "review:\n  gates: { max_inconclusive_rate: -0.1 }\n",
    ),
    ("infra_rate_2", "review:\n  gates: { max_infra_error_rate: 2 }\n"),
    ("pass_k_0", "review:\n  gates: { pass_k: { k: 0, min_rate: 0.5 } }\n"),
    (
        "pass_k_101",
        "review:\n  gates: { pass_k: { k: 101, min_rate: 0.5 } }\n",
    ),
    (
        "pass_k_rate_negative",
        "review:\n  gates: { pass_k: { k: 2, min_rate: -1 } }\n",
    ),
    ("memory_2_gigs", "sandbox: { memory: 2 gigs }\n"),
    ("file_size_lots", "sandbox: { file_size: lots }\n"),
    ("file_size_two_dots", "sandbox: { file_size: 1.2.3M }\n"),
    ("timeout_5_minutes", "sandbox: { timeout: 5 minutes }\n"),
    ("timeout_days", "sandbox: { timeout: 2d }\n"),
    ("timeout_upper_h", "sandbox: { timeout: 1H }\n"),
    (
        "port_99999",
        "sandbox: { network: allowlist, allow: ['example.com:99999'] }\n",
    ),
    ("port_0", "sandbox: { network: allowlist, allow: ['example.com:0'] }\n"),
    (
        "allow_without_port",
        "sandbox: { network: allowlist, allow: ['example.com'] }\n",
    ),
    (
        "allow_without_host",
        "sandbox: { network: allowlist, allow: [':443'] }\n",
    ),
    ("allowlist_empty", "sandbox: { network: allowlist }\n"),
    ("allow_while_disabled", "sandbox: { allow: ['example.com:443'] }\n"),
    (
        "policy_without_file",
        "sandbox: { backend: openshell, network: policy }\n",
    ),
    ("processes_7", "sandbox: { processes: 7 }\n"),
    ("cpu_0", "sandbox: { cpu: 0 }\n"),
    (
        "env_allowlist_assignment",
        "sandbox: { env_allowlist: ['TOKEN=abc'] }\n",
    ),
    ("credential_env_digit", "sandbox: { credentials: { env: ['1ABC'] } }\n"),
    ("workdir_relative", "sandbox: { workdir: work }\n"),
    (
        "upload_dest_relative",
        "sandbox: { uploads: [{ src: job.yaml, dest: x }] }\n",
    ),
    (
        "config_ref_without_server",
        "  inputs:\n    mcps:\n      - config_ref: mcp.json\n",
    ),
    (
        "inline_without_server",
        "  inputs:\n    mcps:\n      - command: [node]\n",
    ),
    (
        "inline_command_and_url",
        "  inputs:\n    mcps:\n      - { server: s, command: [node], url: 'http://x/mcp' }\n",
    ),
    ("inline_neither", "  inputs:\n    mcps:\n      - { server: s }\n"),
    (
        "inline_empty_command",
        "  inputs:\n    mcps:\n      - { server: s, command: [] }\n",
    ),
    (
        "config_ref_and_command",
        "  inputs:\n    mcps:\n      - { config_ref: mcp.json, server: srv, command: [node] }\n",
    ),
    (
        "mcp_timeout_0",
        "  inputs:\n    mcps:\n      - { server: s, command: [node], timeout: 0 }\n",
    ),
    (
        "startup_timeout_0",
        "target: { id: t, transport: stdio, connection: { command: [node] }, startup: { timeout: 0 } }\n",
    ),
    ("target_stdio_without_command", "target: { id: t, transport: stdio }\n"),
    (
        "target_remote_with_command",
        "target: { id: t, transport: sse, connection: { url: 'http://x/mcp', command: [node] } }\n",
    ),
    ("target_skill_without_path", "target: { id: t, transport: skill }\n"),
    (
        "target_skill_with_url",
        "target: { id: t, transport: skill, connection: { path: skills/x, url: 'http://x' } }\n",
    ),
    (
        "target_blank_id",
        "target: { id: ' ', transport: stdio, connection: { command: [node] } }\n",
    ),
    (
        "target_id_taken",
        "  inputs:\n    mcps:\n      - { config_ref: mcp.json, server: srv }\ntarget: { id: srv, transport: stdio, connection: { command: [node] } }\n",
    ),
    ("judge_without_model", "generation:\n  judge: { provider: openai }\n"),
    (
        "anthropic_without_model",
        "generation:\n  proposer: { provider: anthropic }\n",
    ),
    (
        "replay_without_cassette",
        "generation:\n  judge: { provider: replay }\n",
    ),
    (
        "record_without_cassette",
        "generation:\n  judge: { provider: record, model: m }\n",
    ),
    (
        "record_without_model",
        "generation:\n  judge: { provider: record, cassette: c.jsonl }\n",
    ),
    (
        "literal_api_key_variant",
        "generation:\n  judge: { provider: openai, model: m, api_key: sk-123 }\n",
    ),
    ("personas_0", "generation: { personas: 0 }\n"),
    ("scenarios_101", "generation: { scenarios_per_persona: 101 }\n"),
    ("setup_run_empty", "setup: [{ name: s, run: [] }]\n"),
    ("setup_run_blank", "setup: [{ name: s, run: ['  ', x] }]\n"),
    ("setup_run_nul", "setup: [{ name: s, run: [sh, \"a\\0b\"] }]\n"),
    ("setup_timeout_0", "setup: [{ name: s, run: [true], timeout: 0 }]\n"),
    (
        "setup_timeout_day_and_one",
        "setup: [{ name: s, run: [true], timeout: 86401 }]\n",
    ),
    ("memory_below_64mib", "sandbox: { memory: 32MiB }\n"),
    ("file_size_above_1tib", "sandbox: { file_size: 2TiB }\n"),
    ("timeout_above_24h", "sandbox: { timeout: 25h }\n"),
    ("timeout_below_1s", "sandbox: { timeout: 250ms }\n"),
    ("workdir_outside_sandbox", "sandbox: { workdir: /etc }\n"),
    (
        "upload_dest_escapes",
        "sandbox: { uploads: [{ src: job.yaml, dest: /sandbox/../etc/x }] }\n",
    ),
    (
        "download_twice",
        "sandbox: { download: [out.txt, /sandbox/workspace/out.txt] }\n",
    ),
    ("default_agent_undefined", "  runtime: { default_agent: nobody }\n"),
    (
        "duplicate_mcp_names",
        "  inputs:\n    mcps:\n      - { server: s, command: [node] }\n      - { server: s, command: [node] }\n",
    ),
    (
        "provider_literal_secret",
        "  runtime:\n    provider:\n      p: { options: { apiKey: sk-live-123 } }\n",
    ),
    (
        "mcp_env_literal_secret",
        "  inputs:\n    mcps:\n      - { server: s, command: [node], environment: { API_TOKEN: abc123 } }\n",
    ),
    (
        "role_header_literal_secret",
        "generation:\n  judge: { headers: { Authorization: Bearer abc } }\n",
    ),
    (
        "secret_on_mcp_argv",
        "  inputs:\n    mcps:\n      - { server: s, command: [node, '--token=${GITHUB_TOKEN}'] }\n",
    ),
];

/// (name, text after BASE): edge values both accept (the forms are not stricter than the parsers).
const VALID: &[(&str, &str)] = &[
    (
        "edges_of_ranges",
        "  runtime:\n    subagent_depth: 0\n    agents:\n      a: { temperature: 2, top_p: 0, steps: 1000 }\n",
    ),
    (
        "sizes_spelled_loosely",
        "sandbox: { memory: ' 1.5 gib ', file_size: '.5m', timeout: '1.5h' }\n",
    ),
    ("sizes_bare", "sandbox: { memory: '68719476736', timeout: '86400' }\n"),
    (
        "ports_as_rust_reads_them",
        "sandbox: { network: allowlist, allow: ['[::1]:0443', 'h:+443', 'a:b:65535'] }\n",
    ),
    (
        "config_ref_with_server",
        "  inputs:\n    mcps:\n      - { config_ref: mcp.json, server: srv }\n",
    ),
    (
        "target_stdio",
        "target: { id: t, transport: stdio, connection: { command: [node, s.js], env: { LEVEL: info } }, startup: { timeout: 5000 } }\n",
    ),
    (
        "target_remote",
        "target: { id: t, transport: streamable-http, connection: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${T}' } } }\n",
    ),
    (
        "remote_mcp",
        "  inputs:\n    mcps:\n      - { server: r, url: 'https://x/mcp', command: [], timeout: 3600000 }\n",
    ),
    (
        "roles_complete",
        "generation:\n  judge: { provider: anthropic, model: m, api_key: 'Bearer ${K}', temperature: 0 }\n",
    ),
    (
        "gates_edges",
        "review:\n  gates: { min_pass_rate: 0, max_inconclusive_rate: 1, pass_k: { k: 100, min_rate: 1 } }\n",
    ),
];

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("schemas/job.schema.json")).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

/// Both answers for one file: (validate accepts, schema accepts). A file that is no YAML
/// mapping at all is refused by both (the schema has nothing to judge).
fn answers(schema: &jsonschema::Validator, file: &Path) -> (bool, bool) {
    let validate = load_job(file).is_ok();
    let by_schema = read_yaml_document(file).is_ok_and(|doc| schema.is_valid(&doc));
    (validate, by_schema)
}

fn exception(name: &str) -> Option<&'static str> {
    CANNOT_BE_IN_SCHEMA
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}

/// Every disagreement, and every listed exception that is not one any more.
fn disagreements(schema: &jsonschema::Validator, name: &str, file: &Path, expect_valid: Option<bool>) -> Vec<String> {
    let (validate, by_schema) = answers(schema, file);
    let mut out = Vec::new();
    if let Some(expected) = expect_valid
        && validate != expected
    {
        out.push(format!(
            "{name}: validate {} it",
            if validate { "accepts" } else { "refuses" }
        ));
    }
    match (validate, by_schema, exception(name)) {
        (true, false, _) => out.push(format!("{name}: the schema refuses what validate accepts")),
        (false, true, None) => out.push(format!("{name}: the schema accepts what validate refuses")),
        (false, true, Some(_)) | (true, true, None) | (false, false, None) => {}
        (_, _, Some(_)) => out.push(format!("{name}: listed as a schema exception but both answer alike")),
    }
    out
}

fn variant_dir(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcp.json"),
        r#"{"mcpServers":{"srv":{"command":"node"}}}"#,
    )
    .unwrap();
    let file = dir.path().join(format!("{name}.yaml"));
    std::fs::write(&file, format!("{BASE}{text}")).unwrap();
    (dir, file)
}

#[test]
fn schema_and_validate_agree_on_every_variant() {
    assert!(INVALID.len() >= 30);
    let schema = schema();
    let mut problems = Vec::new();
    for (name, text, valid) in INVALID
        .iter()
        .map(|(n, t)| (n, t, false))
        .chain(VALID.iter().map(|(n, t)| (n, t, true)))
    {
        let (_dir, file) = variant_dir(name, text);
        problems.extend(disagreements(&schema, name, &file, Some(valid)));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn schema_and_validate_agree_on_every_job_file_in_the_repository() {
    let schema = schema();
    let mut files: Vec<PathBuf> = vec![
        repo().join("bench/mock-job.yaml"),
        repo().join("examples/release-bot/job.yaml"),
    ];
    for folder in ["tests/fixtures/valid", "tests/fixtures/invalid"] {
        for entry in std::fs::read_dir(repo().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        // A fixture named like a variant carries the variant's exception under its own name.
        let name = match stem.as_str() {
            "default_agent_undefined" => "default_agent_undefined_fixture".to_string(),
            _ => stem,
        };
        let expect = file.to_string_lossy().contains("/valid/").then_some(true);
        problems.extend(disagreements(&schema, &name, file, expect));
    }
    assert!(files.len() > 40, "{} job files", files.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_listed_exception_is_used_and_documented() {
    let names: Vec<&str> = INVALID.iter().map(|(n, _)| *n).collect();
    let doc = std::fs::read_to_string(repo().join("docs/job-yaml.md")).unwrap();
    for (name, reason) in CANNOT_BE_IN_SCHEMA {
        let fixture = repo().join(format!(
            "tests/fixtures/invalid/{}.yaml",
            name.trim_end_matches("_fixture")
        ));
        assert!(
            names.contains(name) || fixture.exists(),
            "{name} is listed but never checked"
        );
        assert!(!reason.is_empty());
    }
    for phrase in [
        "a size's or a duration's range",
        "a sandbox path after `..` is resolved",
        "a referenced file",
        "secret-looking",
        "unique",
    ] {
        assert!(
            doc.contains(phrase),
            "docs/job-yaml.md does not name the exception `{phrase}`"
        );
    }
}

/// Where the schema and a semantic check refuse the same value, `validate` names it once, in
/// the check's words; a schema-only rule still refuses with the schema's.
#[test]
fn a_value_rule_is_reported_once_in_the_checks_words() {
    for (name, at, words) in [
        ("memory_2_gigs", "sandbox.memory", "is not a size in range 64MiB..=1TiB"),
        (
            "min_pass_rate_1_5",
            "review.gates.min_pass_rate",
            "not a fraction between 0 and 1",
        ),
        ("judge_without_model", "generation.judge.model", "needs `model`"),
        ("allowlist_empty", "sandbox.allow", "needs at least one `host:port`"),
        (
            "inline_without_server",
            "agent.inputs.mcps[0].server",
            "missing required key",
        ),
    ] {
        let text = INVALID.iter().find(|(n, _)| *n == name).unwrap().1;
        let (_dir, file) = variant_dir(name, text);
        let err = load_job(&file).unwrap_err();
        assert_eq!(err.diagnostics.len(), 1, "{name}: {err}");
        let d = &err.diagnostics[0];
        assert!(d.path == at && d.message.contains(words), "{name}: {d}");
    }
}
