//! Normalizing imports: an OpenCode project, an agent.yaml, a standard MCP servers file, and
//! the `--target` / `--skill` shorthands all become the same `Job`.
//!
//! Paths in the source are rebased so they resolve from the folder job.yaml is written to.

mod opencode_dot_folders;
mod opencode_files;
mod opencode_instructions;
mod opencode_keys;
pub(crate) mod opencode_markdown;
mod opencode_merge;
mod opencode_project;
mod paths;
mod report;

pub(crate) use opencode_project::import_opencode_project;
pub(crate) use paths::relative_to;
pub(crate) use report::Imported;

use std::path::Path;

use crate::spec::diagnostics::SpecError;
use crate::spec::job::{JOB_VERSION, Job};
use crate::spec::jsonc::read_json_or_yaml;
use crate::spec::load::{job_dir, schema_diagnostics};
use crate::spec::mcp_file::read_mcp_file_noted;
use crate::spec::{Action, Agent, McpInput, Permission, PermissionRule};

/// What `ghostlab init --from` was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceKind {
    OpencodeProject,
    AgentYaml,
    McpServersFile,
}

/// Guesses the kind of a source file from its name and top-level keys.
pub(crate) fn detect_source(path: &Path) -> Result<SourceKind, SpecError> {
    if path.is_dir() {
        return Ok(SourceKind::OpencodeProject);
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let in_dot_opencode = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == ".opencode");
    if name == "opencode.json" || name == "opencode.jsonc" || in_dot_opencode {
        return Ok(SourceKind::OpencodeProject);
    }
    let doc = read_json_or_yaml(path)?;
    let has = |k: &str| doc.get(k).is_some();
    if has("mcpServers") || has("servers") || (has("mcp") && !has("agent") && !has("model") && !has("instructions")) {
        Ok(SourceKind::McpServersFile)
    } else if has("id") && (has("runtime") || has("inputs") || has("description")) {
        Ok(SourceKind::AgentYaml)
    } else {
        Ok(SourceKind::OpencodeProject)
    }
}

/// Builds a job from any supported source, for a job.yaml that will live in `job_dir`.
pub(crate) fn import_source(source: &Path, job_dir: &Path) -> Result<Job, SpecError> {
    import_source_noted(source, job_dir).map(|i| i.job)
}

/// Like `import_source`, with where each part came from and what was not carried.
pub(crate) fn import_source_noted(source: &Path, job_dir: &Path) -> Result<Imported, SpecError> {
    match detect_source(source)? {
        SourceKind::OpencodeProject => import_opencode_project(source, job_dir),
        SourceKind::AgentYaml => from_agent_yaml(source, job_dir).map(Imported::new),
        SourceKind::McpServersFile => import_mcp_file(source, job_dir, None),
    }
}

/// A fresh job with defaults around `agent`.
pub(crate) fn job_with_agent(agent: Agent) -> Job {
    Job {
        version: JOB_VERSION,
        agent,
        ..Job::default()
    }
}

/// An agent.yaml holds Ghostlab's `agent:` block on its own.
pub(crate) fn from_agent_yaml(path: &Path, job_dir_: &Path) -> Result<Job, SpecError> {
    let doc = read_json_or_yaml(path)?;
    let wrapped = serde_json::json!({ "version": JOB_VERSION, "agent": doc });
    let diagnostics: Vec<_> = schema_diagnostics(path, crate::spec::schema::job_schema(), &wrapped)
        .into_iter()
        .map(|mut d| {
            d.path = d
                .path
                .strip_prefix("agent.")
                .or(d.path.strip_prefix("agent"))
                .unwrap_or(&d.path)
                .to_string();
            d
        })
        .collect();
    if !diagnostics.is_empty() {
        return Err(SpecError { diagnostics });
    }
    let mut agent: Agent = serde_json::from_value(doc).map_err(|e| SpecError::one(path, "", e.to_string()))?;
    let src = job_dir(path);
    rebase_agent(&mut agent, &src, job_dir_);
    Ok(job_with_agent(agent))
}

/// Every server of a standard MCP servers file becomes a `config_ref` input
/// (or only `only`, when given).
pub(crate) fn from_mcp_file(path: &Path, job_dir_: &Path, only: Option<&str>) -> Result<Job, SpecError> {
    import_mcp_file(path, job_dir_, only).map(|i| i.job)
}

/// `from_mcp_file` with notes. Tools a client hides (`disabledTools`) are carried as
/// `permission: deny` for OpenCode's name of the tool, `<server>_<tool>`.
pub(crate) fn import_mcp_file(path: &Path, job_dir_: &Path, only: Option<&str>) -> Result<Imported, SpecError> {
    let file = read_mcp_file_noted(path)?;
    let servers = &file.servers;
    let rel = relative_to(path, job_dir_);
    let names: Vec<&String> = servers
        .keys()
        .filter(|n| only.is_none_or(|o| o == n.as_str()))
        .collect();
    if names.is_empty() {
        return Err(SpecError::one(
            path,
            "",
            format!("server `{}` is not in this file", only.unwrap_or("")),
        ));
    }
    // `mcp.json` names nothing: use the project it belongs to (above `.vscode`/`.cursor`).
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("agent");
    let project = crate::spec::mcp_dialects::workspace_folder(&job_dir(path));
    let project_name = project
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or(names[0].as_str());
    let generic = matches!(
        stem.trim_start_matches('.'),
        "mcp" | "opencode" | "claude_desktop_config"
    );
    let mut agent = Agent {
        id: slug(if generic { project_name } else { stem }),
        // The editor starts these servers in the project folder, where their relative paths
        // and files are: the agent's workspace is that folder, or they find nothing there.
        // (A job kept outside the project cannot take it as its workspace: the path policy
        // keeps a job to its own folder unless `paths.outside_job` says otherwise.)
        workspace: inside(&project, job_dir_).then(|| relative_to(&project, job_dir_)),
        ..Agent::default()
    };
    agent.inputs.mcps = names
        .into_iter()
        .map(|n| McpInput {
            config_ref: Some(rel.clone()),
            server: Some(n.clone()),
            ..McpInput::default()
        })
        .collect();
    let mut denied = indexmap::IndexMap::new();
    for (server, tools) in &file.disabled_tools {
        if only.is_some_and(|o| o != server) {
            continue;
        }
        for tool in tools {
            denied.insert(format!("{server}_{tool}"), PermissionRule::Action(Action::Deny));
        }
    }
    if !denied.is_empty() {
        agent.runtime.permission = Some(Permission::PerTool(denied));
    }
    let mut imported = Imported::new(job_with_agent(agent));
    imported.warnings = file.notes;
    for name in servers.keys().filter(|n| only.is_none_or(|o| o == n.as_str())) {
        imported
            .sources
            .push(format!("MCP server `{name}`: {}", path.display()));
    }
    Ok(imported)
}

/// Whether `path` is `dir` or below it (both made absolute).
fn inside(path: &Path, dir: &Path) -> bool {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    abs(path).starts_with(abs(dir))
}

/// `--target`: one stdio command (`"node server.js"`) or one URL, as an inline MCP server.
pub(crate) fn from_target(target: &str, name: Option<&str>) -> Job {
    let name = name.map(str::to_string).unwrap_or_else(|| target_name(target));
    let mut input = McpInput {
        server: Some(name.clone()),
        ..McpInput::default()
    };
    if target.starts_with("http://") || target.starts_with("https://") {
        input.url = Some(target.to_string());
    } else {
        input.command = shell_words::split(target).unwrap_or_else(|_| vec![target.to_string()]);
    }
    let mut agent = Agent {
        id: slug(&name),
        ..Agent::default()
    };
    agent.inputs.mcps.push(input);
    job_with_agent(agent)
}

/// `--skill`: a skill folder (or its SKILL.md) as the agent's only capability.
pub(crate) fn from_skill(skill: &Path, job_dir_: &Path) -> Job {
    let folder = if skill.is_file() {
        skill.parent().unwrap_or(skill)
    } else {
        skill
    };
    let name = folder
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("skill")
        .to_string();
    let mut agent = Agent {
        id: slug(&name),
        ..Agent::default()
    };
    agent.inputs.skills.push(relative_to(folder, job_dir_));
    job_with_agent(agent)
}

/// Names a target after its script or package (`node ./server.js` → `server`), skipping flags.
fn target_name(target: &str) -> String {
    let words: Vec<&str> = target.split_whitespace().filter(|w| !w.starts_with('-')).collect();
    let last = words
        .iter()
        .rev()
        .find(|w| w.contains('/') || w.contains('.'))
        .or(words.first())
        .copied()
        .unwrap_or(target);
    let base = last.trim_end_matches('/').rsplit('/').next().unwrap_or(last);
    let base = base.split('.').next().unwrap_or(base);
    if base.is_empty() { "target".into() } else { slug(base) }
}

/// A lowercase identifier of letters, digits and dashes.
pub(crate) fn slug(text: &str) -> String {
    let s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s.split('-').filter(|p| !p.is_empty()).collect::<Vec<_>>().join("-");
    if s.is_empty() { "agent".into() } else { s }
}

/// Rebases every relative path of an agent from `src_dir` to `dst_dir`.
pub(crate) fn rebase_agent(agent: &mut Agent, src_dir: &Path, dst_dir: &Path) {
    let re = |p: &mut String| paths::rebase(p, src_dir, dst_dir);
    let rt = &mut agent.runtime;
    rt.instructions.iter_mut().for_each(re);
    rt.skills.paths.iter_mut().for_each(re);
    for def in rt.agents.values_mut() {
        if let Some(prompt) = def.prompt.as_mut() {
            paths::rebase_prompt(prompt, src_dir, dst_dir);
        }
    }
    for command in rt.commands.values_mut() {
        paths::rebase_prompt(&mut command.template, src_dir, dst_dir);
    }
    if let Some(ws) = agent.workspace.as_mut() {
        re(ws);
    }
    agent.inputs.skills.iter_mut().for_each(re);
    agent.inputs.assets.iter_mut().for_each(re);
    for m in agent.inputs.mcps.iter_mut() {
        if let Some(c) = m.config_ref.as_mut() {
            re(c);
        }
        if let Some(c) = m.cwd.as_mut() {
            re(c);
        }
    }
}
