//! The layered OpenCode config of a project read as one: every config file merged in order,
//! then the markdown agents and commands over them, with the file each key, agent, command and
//! server came from (so a diagnostic names the file the person edits).

use indexmap::IndexMap;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

use super::opencode_files::{Project, carry_file_refs, merge_config, merge_value, read_layer};
use super::opencode_markdown::{MarkdownDef, markdown_agents, markdown_commands};
use super::report::Notes;
use crate::spec::diagnostics::SpecError;

/// Where each agent, command and server of the merged config was defined.
#[derive(Default)]
pub(super) struct Origins {
    pub(super) agents: IndexMap<String, Vec<PathBuf>>,
    pub(super) commands: IndexMap<String, Vec<PathBuf>>,
    /// Server name → the file whose entry defines it.
    pub(super) servers: IndexMap<String, PathBuf>,
    /// Server name → `enabled` set by a later file that only toggles it.
    pub(super) toggles: IndexMap<String, bool>,
    /// Top-level key → the last file that set it.
    pub(super) keys: IndexMap<String, PathBuf>,
}

impl Origins {
    /// The file a diagnostic at an OpenCode key path belongs to.
    pub(super) fn file_for(&self, path: &str, fallback: &Path) -> PathBuf {
        let mut parts = path.splitn(3, '.');
        let (top, name) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let named = match top {
            "agent" => self.agents.get(name),
            "command" => self.commands.get(name),
            _ => None,
        };
        named
            .and_then(|f| f.last())
            .or_else(|| self.keys.get(top))
            .cloned()
            .unwrap_or_else(|| fallback.to_path_buf())
    }

    /// Notes which file defines each top-level key, agent, command and server of `layer`.
    fn record_layer(&mut self, file: &Path, layer: &Map<String, Value>) {
        for key in layer.keys() {
            self.keys.insert(key.clone(), file.to_path_buf());
        }
        for section in ["agent", "mode"] {
            for name in layer
                .get(section)
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|m| m.keys())
            {
                self.agents.entry(name.clone()).or_default().push(file.to_path_buf());
            }
        }
        for name in layer
            .get("command")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|m| m.keys())
        {
            self.commands.entry(name.clone()).or_default().push(file.to_path_buf());
        }
        for (name, entry) in layer.get("mcp").and_then(Value::as_object).into_iter().flatten() {
            match entry.as_object() {
                Some(o) if o.len() == 1 && o.get("enabled").is_some_and(Value::is_boolean) => {
                    self.toggles
                        .insert(name.clone(), o["enabled"].as_bool().unwrap_or(true));
                }
                _ => {
                    self.servers.insert(name.clone(), file.to_path_buf());
                    self.toggles.shift_remove(name);
                }
            }
        }
    }
}

/// Reads and merges every config file, then the markdown agents and commands over them.
pub(super) fn merged_config(project: &Project, notes: &mut Notes) -> Result<(Map<String, Value>, Origins), SpecError> {
    let mut merged = Map::new();
    let mut origins = Origins::default();
    let mut ds = Vec::new();
    for file in &project.configs {
        let layer = match read_layer(file, &project.root) {
            Ok(l) => l,
            Err(mut e) => {
                ds.append(&mut e.diagnostics);
                continue;
            }
        };
        origins.record_layer(file, &layer);
        merge_config(&mut merged, layer);
    }
    if !ds.is_empty() {
        return Err(SpecError { diagnostics: ds });
    }
    let mut agents_md = markdown_agents(&project.dot)?;
    let mut commands_md = markdown_commands(&project.dot)?;
    for def in agents_md.iter_mut().chain(commands_md.iter_mut()) {
        let base = def.file.parent().unwrap_or(&project.root).to_path_buf();
        for key in ["prompt", "template"] {
            if let Some(Value::String(text)) = def.value.get_mut(key) {
                carry_file_refs(&def.file, &base, &project.root, key, text, &mut ds);
            }
        }
    }
    if !ds.is_empty() {
        return Err(SpecError { diagnostics: ds });
    }
    for def in agents_md.iter().chain(&commands_md) {
        for (key, value) in &def.value {
            if key != "prompt" && key != "template" && value.to_string().contains("{env:") {
                notes.warn(
                    &def.file,
                    key.as_str(),
                    "OpenCode 1.18.33 does not substitute `{env:…}` in markdown frontmatter (it uses the text as written); the job carries it as a `${VAR}` reference",
                );
            }
        }
    }
    for def in agents_md {
        merge_markdown_def(&mut merged, "agent", &mut origins.agents, &mut origins.keys, def);
    }
    for def in commands_md {
        merge_markdown_def(&mut merged, "command", &mut origins.commands, &mut origins.keys, def);
    }
    Ok((merged, origins))
}

/// Merges one markdown agent or command over the config's entry of that name under `section`,
/// and records its file.
fn merge_markdown_def(
    merged: &mut Map<String, Value>,
    section: &str,
    defined_in: &mut IndexMap<String, Vec<PathBuf>>,
    keys: &mut IndexMap<String, PathBuf>,
    def: MarkdownDef,
) {
    defined_in.entry(def.name.clone()).or_default().push(def.file.clone());
    let entries = merged.entry(section).or_insert_with(|| json!({}));
    match entries.get_mut(&def.name) {
        Some(existing) => merge_value(existing, Value::Object(def.value)),
        None => {
            entries[&def.name] = Value::Object(def.value);
        }
    }
    keys.entry(section.into()).or_insert(def.file);
}
