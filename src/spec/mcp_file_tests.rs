//! Tests of `mcp_file`: dialects, relative paths, references, client-only keys.

use super::*;
use crate::spec::agent_inputs::RemoteTransport;
use crate::spec::mcp_dialects::normalize_refs;
use crate::spec::resolved::McpTransport;
use std::path::PathBuf;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn claude_format_resolves_relative_args_against_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "mcp.json",
        r#"{"mcpServers":{"a":{"command":"node","args":["./srv.js","--flag"],"env":{"GH_TOKEN":"${GH_TOKEN}"}}}}"#,
    );
    let servers = read_mcp_file(&f).unwrap();
    let McpTransport::Stdio { command, env, .. } = &servers["a"].transport else {
        panic!()
    };
    assert_eq!(command[0], "node");
    assert_eq!(PathBuf::from(&command[1]), job_dir(&f).join("srv.js"));
    assert_eq!(command[2], "--flag");
    assert_eq!(env["GH_TOKEN"], "${GH_TOKEN}");
}

#[test]
fn vscode_and_opencode_references_are_normalized() {
    assert_eq!(normalize_refs("Bearer ${env:TOKEN}"), "Bearer ${TOKEN}");
    assert_eq!(normalize_refs("{env:TOKEN}"), "${TOKEN}");
    assert_eq!(normalize_refs("${TOKEN}"), "${TOKEN}");
}

#[test]
fn literal_secret_is_refused_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "mcp.json",
        r#"{"servers":{"gh":{"type":"http","url":"https://x/mcp","headers":{"Authorization":"Bearer abc"}}}}"#,
    );
    let err = read_mcp_file(&f).unwrap_err();
    assert_eq!(err.diagnostics[0].path, "servers.gh.headers.Authorization");
}

#[test]
fn unknown_key_gets_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "mcp.json",
        r#"{"mcp":{"x":{"type":"local","comand":["a"]}}}"#,
    );
    let err = read_mcp_file(&f).unwrap_err();
    assert!(
        err.diagnostics
            .iter()
            .any(|d| d.path == "mcp.x.comand" && d.hint.as_deref() == Some("did you mean `command`?"))
    );
}

#[test]
fn client_only_keys_are_accepted_and_noted() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "mcp.json",
        r#"{"mcpServers":{"l":{"command":"npx","args":["x"],"disabledTools":["rm"],"autoApprove":["ls"],"alwaysAllow":[],"envFile":".env"}}}"#,
    );
    let file = read_mcp_file_noted(&f).unwrap();
    assert_eq!(file.disabled_tools["l"], ["rm"]);
    let paths: Vec<&str> = file.notes.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "mcpServers.l.disabledTools",
            "mcpServers.l.autoApprove",
            "mcpServers.l.alwaysAllow",
            "mcpServers.l.envFile"
        ]
    );
}

#[test]
fn vscode_jsonc_with_inputs_reads_as_references() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "mcp.json",
        "{\n // comment\n \"inputs\": [{\"id\": \"gh-pat\", \"type\": \"promptString\", \"password\": true}],\n \"servers\": {\"gh\": {\"type\": \"http\", \"url\": \"https://x/mcp\", \"headers\": {\"Authorization\": \"Bearer ${input:gh-pat}\"},},},\n}",
    );
    let file = read_mcp_file_noted(&f).unwrap();
    let McpTransport::Remote { headers, .. } = &file.servers["gh"].transport else {
        panic!()
    };
    assert_eq!(headers["Authorization"], "Bearer ${GH_PAT}");
    assert!(file.notes[0].message.contains("`${GH_PAT}`"), "{:?}", file.notes);
}

#[test]
fn a_bare_dollar_variable_is_named_in_the_hint() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "mcp.json",
        r#"{"mcpServers":{"a":{"command":"x","env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"$GH_PAT"}}}}"#,
    );
    let err = read_mcp_file(&f).unwrap_err();
    let hint = err.diagnostics[0].hint.as_deref().unwrap();
    assert!(hint.contains("`${GH_PAT}`"), "{hint}");
}

#[test]
fn an_editor_timeout_in_seconds_becomes_opencode_milliseconds() {
    let dir = tempfile::tempdir().unwrap();
    // Roo Code / Kilo Code / Cline: seconds, plus Roo's `watchPaths`.
    let roo = write(
        dir.path(),
        "mcp.json",
        r#"{"mcpServers":{"r":{"command":"node","args":["s.js"],"timeout":60,"watchPaths":["s.js"],"alwaysAllow":["x"]}}}"#,
    );
    let file = read_mcp_file_noted(&roo).unwrap();
    assert_eq!(file.servers["r"].timeout_ms, Some(60_000));
    let paths: Vec<&str> = file.notes.iter().map(|d| d.path.as_str()).collect();
    assert!(
        paths.contains(&"mcpServers.r.watchPaths") && paths.contains(&"mcpServers.r.timeout"),
        "{paths:?}"
    );
    // VS Code's `servers` dialect: seconds too.
    let vscode = write(
        dir.path(),
        "vs.json",
        r#"{"servers":{"v":{"type":"stdio","command":"node","args":["s.js"],"timeout":30}}}"#,
    );
    assert_eq!(
        read_mcp_file_noted(&vscode).unwrap().servers["v"].timeout_ms,
        Some(30_000)
    );
    // OpenCode's own: milliseconds, unchanged and without a note; a huge value cannot overflow.
    let oc = write(
        dir.path(),
        "opencode.json",
        r#"{"mcp":{"o":{"type":"local","command":["node","s.js"],"timeout":5000}}}"#,
    );
    let file = read_mcp_file_noted(&oc).unwrap();
    assert_eq!(file.servers["o"].timeout_ms, Some(5000));
    assert!(file.notes.iter().all(|d| !d.path.ends_with("timeout")));
    let huge = write(
        dir.path(),
        "huge.json",
        r#"{"mcpServers":{"h":{"command":"node","timeout":18446744073709551615}}}"#,
    );
    assert_eq!(
        read_mcp_file_noted(&huge).unwrap().servers["h"].timeout_ms,
        Some(u64::MAX)
    );
}

#[test]
fn another_clients_extra_keys_are_dropped_with_a_note_and_typos_stay_errors() {
    let dir = tempfile::tempdir().unwrap();
    // Roo Code / Kilo Code entries with every key they write, plus settings of other clients
    // (Cline's `transportType`, an `icon`, a `networkTimeout`) that OpenCode has no key for.
    let roo = write(
        dir.path(),
        "roo.json",
        r#"{"mcpServers":{
            "r":{"command":"node","args":["s.js"],"cwd":".","alwaysAllow":["a"],"disabled":true,"timeout":30,
                 "watchPaths":["s.js"],"disabledTools":["b"],"type":"stdio","icon":"🔧","networkTimeout":5},
            "c":{"url":"http://127.0.0.1:9/sse","transportType":"sse","autoApprove":[]}}}"#,
    );
    let file = read_mcp_file_noted(&roo).unwrap();
    assert!(!file.servers["r"].enabled);
    assert_eq!(file.servers["r"].timeout_ms, Some(30_000));
    // Cline's `transportType` means what `type` means.
    match &file.servers["c"].transport {
        McpTransport::Remote { kind, .. } => assert_eq!(*kind, RemoteTransport::Sse),
        other => panic!("{other:?}"),
    }
    let dropped: Vec<&str> = file
        .notes
        .iter()
        .filter(|d| d.message.contains("another client's setting"))
        .map(|d| d.path.as_str())
        .collect();
    assert_eq!(dropped, ["mcpServers.r.icon", "mcpServers.r.networkTimeout"]);
    // A near miss of a known key would change what runs: still refused, with the fix.
    let typo = write(
        dir.path(),
        "typo.json",
        r#"{"mcpServers":{"t":{"command":"node","arsg":["s.js"]}}}"#,
    );
    let err = read_mcp_file(&typo).unwrap_err();
    assert_eq!(err.diagnostics[0].path, "mcpServers.t.arsg");
    assert_eq!(err.diagnostics[0].hint.as_deref(), Some("did you mean `args`?"));
    // OpenCode's own file stays as strict as OpenCode.
    let oc = write(
        dir.path(),
        "opencode.json",
        r#"{"mcp":{"o":{"type":"local","command":["node","s.js"],"icon":"x"}}}"#,
    );
    assert!(read_mcp_file(&oc).is_err());
    // A flood of stray keys is one line past the first ten.
    let keys: String = (0..500).map(|i| format!(r#","stray{i}":1"#)).collect();
    let flood = write(
        dir.path(),
        "flood.json",
        &format!(r#"{{"mcpServers":{{"f":{{"command":"node"{keys}}}}}}}"#),
    );
    let notes = read_mcp_file_noted(&flood).unwrap().notes;
    assert_eq!(notes.len(), 11, "{notes:?}");
    assert!(notes[10].message.contains("490 more keys"), "{}", notes[10].message);
}
