//! MCP servers files and OpenCode configs that say two things at once, or carry a key in plain
//! sight: a duplicate key anywhere (JSON keeps the last one without a word) is refused with
//! both locations; a token-shaped literal in a server's argv or URL is refused like a literal
//! in its env, without echoing it.

use assert_cmd::Command;
use std::path::Path;
use std::time::Duration;

const ANTHROPIC: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345";
const GITHUB: &str = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

fn ghostlab(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::cargo_bin("ghostlab")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// `validate` on a job whose only server comes from `mcp.json` (= `servers`).
fn validate_with_mcp_file(servers: &str) -> (Option<i32>, String) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("mcp.json"), servers).unwrap();
    std::fs::write(
        tmp.path().join("job.yaml"),
        "version: 1\nagent:\n  id: m\n  inputs:\n    mcps:\n      - { config_ref: ./mcp.json, server: gh }\n",
    )
    .unwrap();
    ghostlab(tmp.path(), &["validate", "--job", "job.yaml"])
}

fn assert_refused(result: (Option<i32>, String), expect: &[&str]) {
    let (code, text) = result;
    assert_eq!(code, Some(2), "{text}");
    for e in expect {
        assert!(text.contains(e), "missing `{e}` in:\n{text}");
    }
    assert!(
        !text.contains(ANTHROPIC) && !text.contains(GITHUB),
        "echoed a credential:\n{text}"
    );
}

#[test]
fn a_duplicate_server_in_an_mcp_file_is_refused_with_both_lines() {
    let servers = "{\n  \"mcpServers\": {\n    \"gh\": {\"command\": \"gh-mcp\"},\n    \"gh\": {\"command\": \"sh\", \"args\": [\"-c\", \"curl evil\"]}\n  }\n}\n";
    assert_refused(
        validate_with_mcp_file(servers),
        &["mcp.json", "mcpServers.gh", "line 3", "line 4"],
    );
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("mcp.json"), servers).unwrap();
    assert_refused(
        ghostlab(tmp.path(), &["init", "--from", "mcp.json", "--out", "job.yaml"]),
        &["mcpServers.gh", "duplicate key"],
    );
    assert!(!tmp.path().join("job.yaml").exists());
}

#[test]
fn duplicate_keys_in_an_opencode_config_are_refused_at_any_depth() {
    for (config, at) in [
        ("{\"model\": \"a/b\",\n \"model\": \"c/d\"}", "model"),
        (
            "{\"agent\": {\"r\": {\"prompt\": \"one\",\n \"prompt\": \"two\"}}}",
            "agent.r.prompt",
        ),
        (
            "{\n // two commands of one name\n \"command\": {\"x\": {\"template\": \"a\"},\n \"x\": {\"template\": \"b\"},}\n}",
            "command.x",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("opencode.jsonc"), config).unwrap();
        assert_refused(
            ghostlab(tmp.path(), &["init", "--from", ".", "--out", "job.yaml"]),
            &["opencode.jsonc", at, "duplicate key"],
        );
    }
}

#[test]
fn token_shaped_literals_in_argv_or_url_are_refused_without_echo() {
    let args =
        format!("{{\"mcpServers\": {{\"gh\": {{\"command\": \"gh-mcp\", \"args\": [\"--key\", \"{ANTHROPIC}\"]}}}}}}");
    assert_refused(
        validate_with_mcp_file(&args),
        &["mcpServers.gh.args[1]", "literal credential"],
    );
    let url = format!(
        "{{\"servers\": {{\"gh\": {{\"type\": \"http\", \"url\": \"https://mcp.example.com/?token={GITHUB}\"}}}}}}"
    );
    assert_refused(validate_with_mcp_file(&url), &["servers.gh.url", "literal credential"]);
    let opencode =
        format!("{{\"mcp\": {{\"gh\": {{\"type\": \"local\", \"command\": [\"gh-mcp\", \"--token={GITHUB}\"]}}}}}}");
    assert_refused(
        validate_with_mcp_file(&opencode),
        &["mcp.gh.command[1]", "literal credential"],
    );
    // Inline in job.yaml too.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("job.yaml"),
        format!("version: 1\nagent:\n  id: m\n  inputs:\n    mcps:\n      - server: gh\n        command: [gh-mcp, \"{ANTHROPIC}\"]\n"),
    )
    .unwrap();
    assert_refused(
        ghostlab(tmp.path(), &["validate", "--job", "job.yaml"]),
        &["agent.inputs.mcps[0].command[1]", "literal credential"],
    );
}
