//! Standard MCP servers files: Claude Desktop / Cursor (`mcpServers`), VS Code (`servers`)
//! and OpenCode (`mcp`). Relative commands, arguments and cwd resolve against the file's own
//! folder; `${env:VAR}`, `{env:VAR}` and `${input:id}` become Ghostlab's `${VAR}`; literal
//! secrets are refused. Every file is read as JSONC (comments, trailing commas) unless it is
//! YAML by name. Client-only keys are accepted and reported as notes (see `mcp_dialects`).

use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::path::Path;

use super::diagnostics::{Diagnostic, SpecError, diag, join};
use super::document::{job_dir, json_type};
use super::jsonc::read_json_or_yaml;
use super::mcp_dialects::{entry_notes, foreign_key_notes, inputs_by_id, prompt_inputs, tool_list};
use super::mcp_entry::{McpFileFormat, STANDARD_KEYS, parse_entry, timeout_in_ms};
use super::relative_path::normalize;
use super::resolved::ResolvedMcp;

/// An MCP servers file as read: its servers plus what Ghostlab could not apply itself.
#[derive(Debug, Clone)]
pub(crate) struct McpFile {
    pub(crate) servers: IndexMap<String, ResolvedMcp>,
    /// Warnings about keys and references that are not carried as written.
    pub(crate) notes: Vec<Diagnostic>,
    /// `disabledTools` per server (tools the client hides from the model).
    pub(crate) disabled_tools: IndexMap<String, Vec<String>>,
}

/// Reads every server of an MCP servers file, resolving paths against the file's folder.
pub fn read_mcp_file(path: &Path) -> Result<IndexMap<String, ResolvedMcp>, SpecError> {
    read_mcp_file_noted(path).map(|f| f.servers)
}

/// Reads an MCP servers file with its notes and disabled tools (prompted inputs become
/// `${VAR}` references).
pub(crate) fn read_mcp_file_noted(path: &Path) -> Result<McpFile, SpecError> {
    let doc = read_json_or_yaml(path)?;
    let (format, servers) = detect(path, &doc)?;
    // Without `..`: `${workspaceFolder}` and relative paths are substituted as text.
    let base = normalize(&job_dir(path));
    let inputs = prompt_inputs(&doc);
    let mut notes = Vec::new();
    let mut disabled_tools = IndexMap::new();
    let mut out = IndexMap::new();
    let mut diagnostics = Vec::new();
    let section = match format {
        McpFileFormat::McpServers => "mcpServers",
        McpFileFormat::VsCode => "servers",
        McpFileFormat::Opencode => "mcp",
    };
    let declared = inputs_by_id(&inputs);
    let mut announced: Vec<String> = Vec::new();
    for (name, entry) in servers {
        let at = join(section, name);
        if let Some(c) = super::control_chars::control_char(name) {
            let mut d = diag(
                path,
                join(section, &name.escape_debug().to_string()),
                format!("the server name holds the control character U+{:04X}", c as u32),
            );
            d.hint = Some("names are shown in terminals and reports; use printable characters only".into());
            diagnostics.push(d);
            continue;
        }
        let mut entry_notes = entry_notes(path, &base, &at, entry, &declared, &mut announced);
        if format != McpFileFormat::Opencode {
            entry_notes.extend(foreign_key_notes(path, &at, entry, STANDARD_KEYS));
        }
        // OpenCode's own `oauth` is carried (`parse_entry`); another client's is not.
        let carried = |d: &Diagnostic| format == McpFileFormat::Opencode && d.path == join(&at, "oauth");
        notes.extend(entry_notes.into_iter().filter(|d| !carried(d)));
        if let Some(t) = entry.get("timeout").and_then(Value::as_u64)
            && format != McpFileFormat::Opencode
        {
            notes.push(diag(
                path,
                join(&at, "timeout"),
                format!(
                    "read as {t} s (the editor's unit) and carried as {} ms, OpenCode's unit",
                    timeout_in_ms(format, t)
                ),
            ));
        }
        if let Some(v) = entry.get("disabledTools") {
            disabled_tools.insert(name.clone(), tool_list(v));
        }
        match parse_entry(path, &base, format, name, &at, entry) {
            Ok(server) => {
                out.insert(name.clone(), server);
            }
            Err(mut ds) => diagnostics.append(&mut ds),
        }
    }
    if diagnostics.is_empty() {
        Ok(McpFile {
            servers: out,
            notes,
            disabled_tools,
        })
    } else {
        Err(SpecError { diagnostics })
    }
}

fn detect<'a>(path: &Path, doc: &'a Value) -> Result<(McpFileFormat, &'a Map<String, Value>), SpecError> {
    for (key, format) in [
        ("mcpServers", McpFileFormat::McpServers),
        ("servers", McpFileFormat::VsCode),
        ("mcp", McpFileFormat::Opencode),
    ] {
        if let Some(section) = doc.get(key) {
            return section.as_object().map(|m| (format, m)).ok_or_else(|| {
                SpecError::one(
                    path,
                    key,
                    format!("expected a mapping of servers, found {}", json_type(section)),
                )
            });
        }
    }
    Err(SpecError::one(
        path,
        "",
        "no MCP servers found: expected a top-level `mcpServers`, `servers` or `mcp` mapping",
    ))
}

#[cfg(test)]
#[path = "mcp_file_tests.rs"]
mod tests;
