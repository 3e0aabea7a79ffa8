//! Gathers what purpose inference may read from a loaded job: the description, instruction
//! files, skills, agent prompts, MCP tools, permissions and the workspace's shape.
//!
//! It reads the workspace's top-level names and README title only, never other file contents,
//! and it never starts processes.

use serde::Serialize;
use std::path::{Path, PathBuf};

use super::GenerateError;
use super::inventory::{ToolInfo, labels_for, read_inventory};
use super::markdown::{self, Doc};
use super::profile::{PermissionEvidence, WorkspaceEvidence};
use crate::spec::resolved::prompt_file;
use crate::spec::{LoadedJob, Permission, PermissionRule};

/// Everything the proposers may use to infer the agent's purpose.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileContext {
    pub(crate) agent_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) agent_name: Option<String>,
    /// The user's own words; authoritative.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    pub(crate) instructions: Vec<SourceDoc>,
    pub(crate) skills: Vec<SkillDoc>,
    pub(crate) agents: Vec<AgentPrompt>,
    pub(crate) tools: Vec<ToolInfo>,
    pub(crate) permissions: Vec<PermissionEvidence>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) workspace: Option<WorkspaceEvidence>,
}

/// An instruction file, parsed.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SourceDoc {
    /// Path relative to job.yaml.
    pub(crate) file: String,
    pub(crate) doc: Doc,
}

/// A skill's SKILL.md, parsed.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SkillDoc {
    pub(crate) name: String,
    /// SKILL.md relative to job.yaml.
    pub(crate) path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    pub(crate) doc: Doc,
}

/// One agent of the runtime's `agents` map with its prompt.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AgentPrompt {
    pub(crate) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) prompt_file: Option<String>,
    pub(crate) prompt: Doc,
}

impl ProfileContext {
    /// Reads every input of `loaded`; `state_dir` is where discovery may have left inventory.json.
    pub(crate) fn gather(loaded: &LoadedJob, state_dir: &Path) -> Result<Self, GenerateError> {
        let agent = &loaded.job.agent;
        let rt = &agent.runtime;
        let rel = |p: &Path| relative(&loaded.dir, p);
        let mut instructions = Vec::new();
        for file in &rt.instructions {
            let path = loaded.resolve(file);
            instructions.push(SourceDoc {
                file: rel(&path),
                doc: markdown::parse(&read_text(&path)?),
            });
        }
        let mut skill_dirs: Vec<PathBuf> = rt.skills.paths.iter().map(|p| loaded.resolve(p)).collect();
        skill_dirs.extend(agent.inputs.skills.iter().map(|p| loaded.resolve(p)));
        let mut skills: Vec<SkillDoc> = Vec::new();
        for dir in skill_dirs {
            let file = if dir.is_dir() {
                dir.join("SKILL.md")
            } else {
                dir.clone()
            };
            let doc = markdown::parse(&read_text(&file)?);
            let folder = file
                .parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().to_string());
            let name = doc.front_matter.get("name").cloned().or(folder).unwrap_or_default();
            if skills.iter().any(|s| s.name == name) {
                continue;
            }
            skills.push(SkillDoc {
                description: doc.front_matter.get("description").cloned(),
                name,
                path: rel(&file),
                doc,
            });
        }
        let mut agents = Vec::new();
        for (name, def) in &rt.agents {
            let (prompt_file, text) = match def.prompt.as_deref() {
                Some(p) => match prompt_file(p) {
                    Some(f) => {
                        let path = loaded.resolve(f);
                        (Some(rel(&path)), read_text(&path)?)
                    }
                    None => (None, p.to_string()),
                },
                None => (None, String::new()),
            };
            agents.push(AgentPrompt {
                name: name.clone(),
                description: def.description.clone(),
                prompt_file,
                prompt: markdown::parse(&text),
            });
        }
        let tools = gather_tools(loaded, state_dir, &instructions)?;
        Ok(ProfileContext {
            agent_id: agent.id.clone(),
            agent_name: agent.name.clone(),
            description: agent
                .description
                .as_ref()
                .map(|d| d.trim().to_string())
                .filter(|d| !d.is_empty()),
            instructions,
            skills,
            agents,
            tools,
            permissions: gather_permissions(loaded),
            workspace: loaded.workspace().map(|w| workspace_shape(&w, &rel(&w))),
        })
    }

    /// The tool the agent knows as `qualified` (`server_tool`), if any.
    pub(crate) fn tool(&self, qualified: &str) -> Option<&ToolInfo> {
        self.tools.iter().find(|t| t.qualified() == qualified)
    }
}

fn read_text(path: &Path) -> Result<String, GenerateError> {
    crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::Text).map_err(|e| {
        GenerateError::Input {
            file: path.to_path_buf(),
            detail: e.reason(),
        }
    })
}

/// `path` relative to `base` when inside it, else the full path.
pub(crate) fn relative(base: &Path, path: &Path) -> String {
    path.strip_prefix(base).unwrap_or(path).to_string_lossy().to_string()
}

fn gather_tools(loaded: &LoadedJob, state_dir: &Path, docs: &[SourceDoc]) -> Result<Vec<ToolInfo>, GenerateError> {
    let inventory_path = state_dir.join("inventory.json");
    let inventory = read_inventory(&inventory_path)?;
    let from_inventory = inventory.is_some();
    let mut tools = inventory.unwrap_or_default();
    if !from_inventory {
        for (server, caps) in &loaded.job.capabilities {
            for name in &caps.tools {
                tools.push(ToolInfo {
                    server: server.clone(),
                    name: name.clone(),
                    description: None,
                    labels: labels_for(name, None, None),
                    source: "job.capabilities".into(),
                });
            }
        }
    }
    // Tools the instructions name as `server_tool` but discovery has not listed yet.
    let servers: Vec<&str> = loaded.mcps.iter().map(|m| m.name.as_str()).collect();
    for doc in docs {
        for section in &doc.doc.sections {
            let texts = section
                .items
                .iter()
                .map(|i| i.text.as_str())
                .chain(section.paragraphs.iter().map(String::as_str));
            for span in texts.flat_map(markdown::code_spans) {
                let Some(server) = servers.iter().find(|s| span.starts_with(&format!("{s}_"))) else {
                    continue;
                };
                let name = &span[server.len() + 1..];
                let known = tools.iter().any(|t| t.server == *server && t.name == name);
                let is_identifier =
                    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-');
                if !known && is_identifier && !from_inventory {
                    tools.push(ToolInfo {
                        server: server.to_string(),
                        name: name.to_string(),
                        description: None,
                        labels: labels_for(name, None, None),
                        source: doc.file.clone(),
                    });
                }
            }
        }
    }
    Ok(tools)
}

fn gather_permissions(loaded: &LoadedJob) -> Vec<PermissionEvidence> {
    let rt = &loaded.job.agent.runtime;
    let mut out = Vec::new();
    let mut add = |prefix: &str, permission: &Permission| match permission {
        Permission::All(action) => out.push(PermissionEvidence {
            key: prefix.to_string(),
            tool: "*".into(),
            action: action_word(*action),
        }),
        Permission::PerTool(map) => {
            for (tool, rule) in map {
                match rule {
                    PermissionRule::Action(a) => out.push(PermissionEvidence {
                        key: format!("{prefix}.{tool}"),
                        tool: tool.clone(),
                        action: action_word(*a),
                    }),
                    PermissionRule::Patterns(patterns) => {
                        for (pattern, a) in patterns {
                            out.push(PermissionEvidence {
                                key: format!("{prefix}.{tool}[{pattern:?}]"),
                                tool: tool.clone(),
                                action: action_word(*a),
                            });
                        }
                    }
                }
            }
        }
    };
    if let Some(p) = &rt.permission {
        add("agent.runtime.permission", p);
    }
    for (name, def) in &rt.agents {
        if let Some(p) = &def.permission {
            add(&format!("agent.runtime.agents.{name}.permission"), p);
        }
    }
    for (tool, enabled) in &rt.tools {
        if !enabled {
            out.push(PermissionEvidence {
                key: format!("agent.runtime.tools.{tool}"),
                tool: tool.clone(),
                action: "disabled".into(),
            });
        }
    }
    out
}

fn action_word(action: crate::spec::Action) -> String {
    match action {
        crate::spec::Action::Allow => "allow",
        crate::spec::Action::Ask => "ask",
        crate::spec::Action::Deny => "deny",
    }
    .to_string()
}

/// The workspace's top-level names (sorted, `.git` skipped) and its README title.
pub(crate) fn workspace_shape(dir: &Path, shown: &str) -> WorkspaceEvidence {
    let mut layout: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            // Hidden files count (a `.env` matters for the risk surface); VCS and state do not.
            if name == ".git" || name == ".ghostlab" {
                return None;
            }
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            Some(if is_dir { format!("{name}/") } else { name })
        })
        .collect();
    layout.sort();
    let readme = layout
        .iter()
        .find(|n| n.to_lowercase().starts_with("readme"))
        .map(|n| dir.join(n));
    let readme_title = readme
        .and_then(|p| crate::util::bounded::read_bounded_string(&p, crate::util::bounded::FileKind::Asset).ok())
        .and_then(|text| {
            text.lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| l.trim_start_matches('#').trim().to_string())
        });
    WorkspaceEvidence {
        path: shown.to_string(),
        layout,
        readme_title,
    }
}
