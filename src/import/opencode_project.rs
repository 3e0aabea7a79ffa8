//! Importing an OpenCode project: its config files (see `opencode_files`), its markdown agents
//! and commands (see `opencode_markdown`), its instructions and MCP servers, into one job.
//! What the job cannot carry as written becomes a warning; nothing is dropped silently.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

use super::opencode_dot_folders::carry_dot_folders;
use super::opencode_files::{locate, merge_value, parent_configs};
use super::opencode_instructions::import_instructions;
use super::opencode_keys::{
    AGENT_KEYS, COMMAND_KEYS, HANDLED, MIRRORED, REPLACED, SETTINGS, TUI_ONLY, all_keys, source_path,
};
use super::opencode_merge::{Origins, merged_config};
use super::report::{Imported, Notes};
use super::{job_with_agent, relative_to, slug};
use crate::spec::diagnostics::{Diagnostic, SpecError, diag, join, nearest};
use crate::spec::file_refs::map_file_refs;
use crate::spec::job::JOB_VERSION;
use crate::spec::load::schema_diagnostics;
use crate::spec::mcp_file::read_mcp_file_noted;
use crate::spec::{Agent, McpInput};

/// The vendored OpenCode config schema (keys Ghostlab emits, types from the pinned SDK).
const OPENCODE_SUBSET_SCHEMA: &str = include_str!("../../schemas/opencode-config.subset.schema.json");

/// Builds a job from an OpenCode project (a folder, its `.opencode`, or a config file), for a
/// job.yaml that will live in `dst_dir`.
pub(crate) fn import_opencode_project(source: &Path, dst_dir: &Path) -> Result<Imported, SpecError> {
    let project = locate(source)?;
    let mut notes = Notes::new(&project.root);
    for file in parent_configs(&project.root) {
        notes.warn(
            &file,
            "",
            format!(
                "not imported: OpenCode started in {} also merges this file from a parent folder",
                project.root.display()
            ),
        );
    }
    let (merged, origins) = merged_config(&project, &mut notes)?;
    let fallback = project.configs.last().cloned().unwrap_or_else(|| project.dot.clone());

    let (runtime, mut ds) = runtime_of(&merged, &origins, &fallback, &mut notes);
    let wrapped = json!({ "version": JOB_VERSION, "agent": { "id": "x", "runtime": runtime } });
    for mut d in schema_diagnostics(&fallback, crate::spec::schema::job_schema(), &wrapped) {
        d.path = source_path(&d.path);
        d.file = origins.file_for(&d.path, &fallback);
        ds.push(d);
    }
    if !ds.is_empty() {
        return Err(SpecError { diagnostics: ds });
    }
    let mut runtime: crate::spec::Runtime =
        serde_json::from_value(Value::Object(runtime)).map_err(|e| SpecError::one(&fallback, "", e.to_string()))?;

    let instruction_file = origins
        .keys
        .get("instructions")
        .cloned()
        .unwrap_or_else(|| fallback.clone());
    runtime.instructions = import_instructions(
        &runtime.instructions,
        &project.root,
        dst_dir,
        &instruction_file,
        &mut notes,
    );
    rebase_references(&mut runtime, &project.root, dst_dir);
    carry_dot_folders(&project, dst_dir, &mut runtime, &mut notes);

    let name = project
        .root
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("agent")
        .to_string();
    let mut agent = Agent {
        id: slug(&name),
        name: Some(name),
        runtime,
        workspace: Some(relative_to(&project.root, dst_dir)),
        ..Agent::default()
    };
    agent.inputs.mcps = mcp_inputs(&origins, dst_dir, &mut notes)?;
    for (name, files) in &origins.agents {
        notes.source("agent", name, files);
    }
    for (name, files) in &origins.commands {
        notes.source("command", name, files);
    }
    Ok(notes.finish(job_with_agent(agent)))
}

/// The job's `agent.runtime` (still JSON) from the merged config: mirrored keys, settings
/// (checked against OpenCode's own types), `mode` entries as primary agents; each key Ghostlab
/// does not carry is a warning naming its file. Returns the settings' type errors.
fn runtime_of(
    merged: &Map<String, Value>,
    origins: &Origins,
    fallback: &Path,
    notes: &mut Notes,
) -> (Map<String, Value>, Vec<Diagnostic>) {
    let mut runtime = Map::new();
    let mut settings = Map::new();
    let mut ds = Vec::new();
    for (key, value) in merged {
        let file = origins.keys.get(key).cloned().unwrap_or_else(|| fallback.to_path_buf());
        if let Some((_, ours)) = MIRRORED.iter().find(|(k, _)| k == key) {
            runtime.insert((*ours).to_string(), normalize_refs(value.clone()));
        } else if SETTINGS.contains(&key.as_str()) {
            settings.insert(key.clone(), normalize_refs(value.clone()));
        } else if let Some((_, why)) = REPLACED.iter().find(|(k, _)| k == key) {
            notes.warn(&file, key.as_str(), format!("replaced: {why}"));
        } else if TUI_ONLY.contains(&key.as_str()) {
            notes.warn(
                &file,
                key.as_str(),
                "not carried: a terminal UI setting; OpenCode 1.18.33 does not read it from this file (it keeps it in tui.json) and it does not change the agent",
            );
        } else if !HANDLED.contains(&key.as_str()) {
            let mut d = diag(
                &file,
                key.as_str(),
                format!("not carried: `{key}` is not an OpenCode 1.18.33 key, and OpenCode ignores it"),
            );
            d.hint = nearest(key, all_keys()).map(|k| format!("did you mean `{k}`?"));
            notes.warnings.push(d);
        }
    }
    if let Some(Value::Object(modes)) = merged.get("mode") {
        let agents = runtime.entry("agents").or_insert_with(|| json!({}));
        for (name, def) in modes {
            let mut primary = json!({ "mode": "primary" });
            merge_value(&mut primary, normalize_refs(def.clone()));
            if let Some(existing) = agents.get(name).cloned() {
                merge_value(&mut primary, existing);
            }
            agents[name] = primary;
        }
    }
    normalize_agents(&mut runtime, origins, fallback, notes);
    normalize_commands(&mut runtime, origins, fallback, notes);
    if !settings.is_empty() {
        // Settings are passed through; check them against OpenCode's own types now, so a
        // wrong value fails here with its path rather than when OpenCode starts.
        let subset: Value = serde_json::from_str(OPENCODE_SUBSET_SCHEMA).expect("vendored schema is JSON");
        for mut d in schema_diagnostics(fallback, &subset, &Value::Object(settings.clone())) {
            d.file = origins.file_for(&d.path, fallback);
            ds.push(d);
        }
        runtime.insert("settings".into(), Value::Object(settings));
    }
    (runtime, ds)
}

/// References were made absolute while reading; the job names them from its own folder.
fn rebase_references(runtime: &mut crate::spec::Runtime, root: &Path, dst_dir: &Path) {
    let mut rebase = |p: &str| relative_to(&crate::spec::relative_path::resolve_against(root, p), dst_dir);
    for def in runtime.agents.values_mut() {
        if let Some(prompt) = def.prompt.as_mut() {
            *prompt = map_file_refs(prompt, &mut rebase);
        }
    }
    for command in runtime.commands.values_mut() {
        command.template = map_file_refs(&command.template, &mut rebase);
    }
    for p in runtime.skills.paths.iter_mut() {
        super::paths::rebase(p, root, dst_dir);
    }
}

/// OpenCode moves unknown agent keys into `options` (passed to the model provider); so does
/// the import, with a warning in case the key was a typo. `maxSteps` is the old `steps`.
fn normalize_agents(runtime: &mut Map<String, Value>, origins: &Origins, fallback: &Path, notes: &mut Notes) {
    let Some(Value::Object(agents)) = runtime.get_mut("agents") else {
        return;
    };
    for (name, def) in agents.iter_mut() {
        let Some(def) = def.as_object_mut() else { continue };
        if let Some(v) = def.remove("maxSteps") {
            def.entry("steps").or_insert(v);
        }
        def.remove("name");
        let unknown: Vec<String> = def
            .keys()
            .filter(|k| !AGENT_KEYS.contains(&k.as_str()))
            .cloned()
            .collect();
        for key in unknown {
            let value = def.remove(&key).unwrap_or(Value::Null);
            let file = origins.file_for(&format!("agent.{name}"), fallback);
            let mut d = diag(
                &file,
                join(&join("agent", name), &key),
                format!(
                    "`{key}` is not an agent key; carried into `options` (OpenCode passes it to the model provider)"
                ),
            );
            d.hint = nearest(&key, AGENT_KEYS.iter().copied()).map(|k| format!("did you mean `{k}`?"));
            notes.warnings.push(d);
            let options = def.entry("options").or_insert_with(|| json!({}));
            if let Some(o) = options.as_object_mut() {
                o.entry(key).or_insert(value);
            }
        }
    }
}

/// Unknown command keys are not carried (OpenCode's command has no `options`).
fn normalize_commands(runtime: &mut Map<String, Value>, origins: &Origins, fallback: &Path, notes: &mut Notes) {
    let Some(Value::Object(commands)) = runtime.get_mut("commands") else {
        return;
    };
    for (name, def) in commands.iter_mut() {
        let Some(def) = def.as_object_mut() else { continue };
        let unknown: Vec<String> = def
            .keys()
            .filter(|k| !COMMAND_KEYS.contains(&k.as_str()))
            .cloned()
            .collect();
        for key in unknown {
            def.remove(&key);
            let file = origins.file_for(&format!("command.{name}"), fallback);
            let mut d = diag(
                &file,
                join(&join("command", name), &key),
                format!("not carried: `{key}` is not a command key"),
            );
            d.hint = nearest(&key, COMMAND_KEYS.iter().copied()).map(|k| format!("did you mean `{k}`?"));
            notes.warnings.push(d);
        }
    }
}

/// Each `mcp` server becomes a `config_ref` input into the file that defines it.
fn mcp_inputs(origins: &Origins, dst_dir: &Path, notes: &mut Notes) -> Result<Vec<McpInput>, SpecError> {
    let mut out = Vec::new();
    let mut read: IndexMap<PathBuf, crate::spec::mcp_file::McpFile> = IndexMap::new();
    for (server, file) in &origins.servers {
        if !read.contains_key(file) {
            let parsed = read_mcp_file_noted(file)?;
            notes.warnings.extend(parsed.notes.iter().cloned());
            read.insert(file.clone(), parsed);
        }
        out.push(McpInput {
            config_ref: Some(relative_to(file, dst_dir)),
            server: Some(server.clone()),
            enabled: origins.toggles.get(server).copied(),
            ..McpInput::default()
        });
    }
    for (server, _) in origins
        .toggles
        .iter()
        .filter(|(s, _)| !origins.servers.contains_key(*s))
    {
        let file = origins.keys.get("mcp").cloned().unwrap_or_default();
        notes.warn(
            &file,
            join("mcp", server),
            "not carried: only `enabled` is set here; the server is defined outside this project (global config)",
        );
    }
    Ok(out)
}

fn normalize_refs(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(crate::spec::mcp_dialects::normalize_refs(&s)),
        Value::Array(a) => Value::Array(a.into_iter().map(normalize_refs).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, normalize_refs(v))).collect()),
        other => other,
    }
}
