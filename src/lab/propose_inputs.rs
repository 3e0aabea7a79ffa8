//! Steps 4 and 5 proposed: the MCP servers (with how each starts, read from its servers file)
//! and the instructions, skills and assets attached, each with a preview of its text.

use std::path::{Path, PathBuf};

use super::apply::{SkillsAnswer, to_answer_yaml};
use super::propose::StepProposer;
use super::propose_error::ProposeError;
use super::types::Proposal;
use crate::import::{from_mcp_file, relative_to};
use crate::spec::Job;

impl StepProposer {
    pub(super) fn mcps(&self, job: &Job) -> Result<Proposal, ProposeError> {
        let mut mcps = job.agent.inputs.mcps.clone();
        let mut notes = Vec::new();
        if let Some(file) = &self.seeds.mcp_config {
            let imported = from_mcp_file(file, &self.job_dir(), None)?;
            for m in imported.agent.inputs.mcps {
                if !mcps.iter().any(|x| x.server == m.server) {
                    mcps.push(m);
                }
            }
            notes.push(format!("Servers from {} added.", file.display()));
        }
        for m in &mut mcps {
            m.enabled.get_or_insert(true);
            notes.push(self.describe_mcp(m));
        }
        if mcps.is_empty() {
            notes.push("No MCP servers. Add entries (server + command or url, or config_ref) with e.".into());
        } else {
            notes.push("Set `enabled: false` to leave a server out; discovery runs for each enabled one.".into());
        }
        Ok(Proposal::new(to_answer_yaml(&mcps), notes))
    }

    /// One line per server: how it starts or where it is, read from its servers file if it has one.
    pub(super) fn describe_mcp(&self, m: &crate::spec::McpInput) -> String {
        let name = m.server.as_deref().unwrap_or("?");
        if let Some(url) = &m.url {
            return format!("{name}: remote {url}");
        }
        if !m.command.is_empty() {
            return format!("{name}: stdio `{}`", m.command.join(" "));
        }
        let Some(file) = &m.config_ref else {
            return format!("{name}: no command, url or config_ref");
        };
        let path = crate::spec::relative_path::resolve_against(&self.job_dir(), file);
        match crate::spec::mcp_file::read_mcp_file(&path) {
            Ok(servers) => match servers.get(name).map(|r| &r.transport) {
                Some(crate::spec::McpTransport::Stdio { command, .. }) => {
                    let shown: Vec<String> = command
                        .iter()
                        .map(|a| {
                            Path::new(a)
                                .file_name()
                                .map_or(a.clone(), |f| f.to_string_lossy().into_owned())
                        })
                        .collect();
                    format!("{name}: stdio `{}` (from {file})", shown.join(" "))
                }
                Some(crate::spec::McpTransport::Remote { url, .. }) => format!("{name}: remote {url} (from {file})"),
                None => format!("{name}: not found in {file}"),
            },
            Err(e) => format!("{name}: {file} does not load: {}", e.to_string().trim()),
        }
    }

    pub(super) fn skills(&self, job: &Job) -> Proposal {
        let dir = self.job_dir();
        let mut answer = SkillsAnswer {
            instructions: job.agent.runtime.instructions.clone(),
            skills: job.agent.runtime.skills.paths.clone(),
            assets: job.agent.inputs.assets.clone(),
        };
        for s in &self.seeds.skills {
            let rel = relative_to(s, &dir);
            let rel = if rel.starts_with('.') || rel.starts_with('/') {
                rel
            } else {
                format!("./{rel}")
            };
            if !answer.skills.contains(&rel) {
                answer.skills.push(rel);
            }
        }
        let mut notes = Vec::new();
        let files = answer.instructions.iter().map(|p| (p, PathBuf::from(p)));
        let skills = answer.skills.iter().map(|p| (p, PathBuf::from(p).join("SKILL.md")));
        for (label, rel) in files
            .chain(skills)
            .chain(answer.assets.iter().map(|p| (p, PathBuf::from(p))))
        {
            let path = dir.join(rel);
            notes.push(
                match crate::util::bounded::read_bounded_string(&path, crate::util::bounded::FileKind::Asset) {
                    Ok(text) => format!("{label}: {}", first_lines(&text)),
                    Err(e) => format!("{label}: cannot read {e}"),
                },
            );
        }
        if notes.is_empty() {
            notes.push("No instructions, skills or assets attached.".into());
        }
        Proposal::new(to_answer_yaml(&answer), notes)
    }
}

/// A file's first two non-blank lines, clipped to 90 characters, to show beside its path.
fn first_lines(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "---")
        .take(2)
        .collect();
    let joined = lines.join(" / ");
    if joined.chars().count() > 90 {
        format!("{}…", joined.chars().take(90).collect::<String>())
    } else {
        joined
    }
}
