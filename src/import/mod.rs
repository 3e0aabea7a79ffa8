//! Normalizing imports: an OpenCode project, an agent.yaml, a standard MCP servers file, and
//! the `--target` / `--skill` shorthands all become the same `Job`.
//!
//! Paths in the source are rebased so they resolve from the folder job.yaml is written to.

mod opencode_project;
mod paths;

pub use opencode_project::from_opencode_project;
pub use paths::relative_to;

use std::path::Path;

use crate::spec::diagnostics::SpecError;
use crate::spec::job::{JOB_VERSION, Job};
use crate::spec::load::{job_dir, read_yaml_document, schema_diagnostics};
use crate::spec::mcp_file::read_mcp_file;
use crate::spec::{Agent, McpInput};

/// What `ghostlab init --from` was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    OpencodeProject,
    AgentYaml,
    McpServersFile,
}

/// Guesses the kind of a source file from its name and top-level keys.
pub fn detect_source(path: &Path) -> Result<SourceKind, SpecError> {
    if path.is_dir() {
        return Ok(SourceKind::OpencodeProject);
    }
    let doc = read_yaml_document(path)?;
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
pub fn import_source(source: &Path, job_dir: &Path) -> Result<Job, SpecError> {
    match detect_source(source)? {
        SourceKind::OpencodeProject => from_opencode_project(source, job_dir),
        SourceKind::AgentYaml => from_agent_yaml(source, job_dir),
        SourceKind::McpServersFile => from_mcp_file(source, job_dir, None),
    }
}

/// A fresh job with defaults around `agent`.
pub fn job_with_agent(agent: Agent) -> Job {
    Job {
        version: JOB_VERSION,
        agent,
        ..Job::default()
    }
}

/// An agent.yaml holds Ghostlab's `agent:` block on its own.
pub fn from_agent_yaml(path: &Path, job_dir_: &Path) -> Result<Job, SpecError> {
    let doc = read_yaml_document(path)?;
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
pub fn from_mcp_file(path: &Path, job_dir_: &Path, only: Option<&str>) -> Result<Job, SpecError> {
    let servers = read_mcp_file(path)?;
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
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("agent");
    let mut agent = Agent {
        id: slug(if stem == "mcp" || stem == "opencode" {
            names[0]
        } else {
            stem
        }),
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
    Ok(job_with_agent(agent))
}

/// `--target`: one stdio command (`"node server.js"`) or one URL, as an inline MCP server.
pub fn from_target(target: &str, name: Option<&str>) -> Job {
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
pub fn from_skill(skill: &Path, job_dir_: &Path) -> Job {
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
pub fn slug(text: &str) -> String {
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
pub fn rebase_agent(agent: &mut Agent, src_dir: &Path, dst_dir: &Path) {
    let re = |p: &mut String| paths::rebase(p, src_dir, dst_dir);
    let rt = &mut agent.runtime;
    rt.instructions.iter_mut().for_each(re);
    rt.skills.paths.iter_mut().for_each(re);
    for def in rt.agents.values_mut() {
        if let Some(prompt) = def.prompt.as_mut() {
            paths::rebase_prompt(prompt, src_dir, dst_dir);
        }
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
