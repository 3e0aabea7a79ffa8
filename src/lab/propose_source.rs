//! Steps 1 and 2 proposed from files: the job's source (an import, an existing job.yaml, or a
//! new one) and a draft of its purpose from the person's own words or the agent's files.

use std::path::Path;

use super::propose::StepProposer;
use super::propose_error::ProposeError;
use super::types::Proposal;
use crate::import::{from_skill, import_source, slug};
use crate::spec::{JOB_VERSION, Job, job_to_yaml};

impl StepProposer {
    pub(super) fn source(&self) -> Result<Proposal, ProposeError> {
        let dir = self.job_dir();
        let (mut job, note) = if let Some(from) = &self.seeds.from {
            let job = if from.join("SKILL.md").is_file() || from.file_name().is_some_and(|n| n == "SKILL.md") {
                from_skill(from, &dir)
            } else if let Some(job) = existing_job(from, &dir)? {
                job
            } else {
                import_source(from, &dir)?
            };
            (job, format!("imported from {}", from.display()))
        } else if self.job_file.is_file() {
            let text =
                crate::util::bounded::read_bounded_string(&self.job_file, crate::util::bounded::FileKind::Config)?;
            let job = crate::spec::parse_job_text(&self.job_file, &text)?;
            (job, format!("the existing {}", self.job_file.display()))
        } else {
            let name = dir
                .canonicalize()
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().to_string()));
            let mut job = Job {
                version: JOB_VERSION,
                ..Job::default()
            };
            job.agent.id = slug(name.as_deref().unwrap_or("agent"));
            (job, "a new agent from scratch".to_string())
        };
        job.lab = Default::default();
        if let Some(n) = self.seeds.personas {
            job.generation.personas = Some(n);
        }
        if let Some(n) = self.seeds.scenarios_per_persona {
            job.generation.scenarios_per_persona = Some(n);
        }
        let body = job_to_yaml(&job);
        let text = body
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        Ok(Proposal::new(
            text,
            vec![format!("Source: {note}."), "Later steps refine this job.".into()],
        ))
    }

    pub(super) fn purpose(&self, job: &Job) -> Proposal {
        if let Some(d) = &self.seeds.description {
            return Proposal::new(
                d.clone(),
                vec!["Your words from --description, kept as written.".into()],
            );
        }
        if let Some(d) = &job.agent.description {
            return Proposal::new(
                d.trim().to_string(),
                vec!["Your words from the job, kept as written.".into()],
            );
        }
        for file in &job.agent.runtime.instructions {
            let path = crate::spec::relative_path::resolve_against(&self.job_dir(), file);
            if let Ok(text) = crate::util::bounded::read_bounded_string(&path, crate::util::bounded::FileKind::Text) {
                let para = first_paragraph(&text);
                if !para.is_empty() {
                    return Proposal::new(para, vec![format!("A draft from {file}; edit it into your own words.")]);
                }
            }
        }
        // A skill-only job: the skill says what it is for in its frontmatter `description`.
        let skills = job
            .agent
            .inputs
            .skills
            .iter()
            .chain(job.agent.runtime.skills.paths.iter());
        for folder in skills {
            let skill_md = crate::spec::relative_path::resolve_against(&self.job_dir(), folder).join("SKILL.md");
            let Ok((keys, body)) = crate::import::opencode_markdown::read_markdown(&skill_md) else {
                continue;
            };
            let described = keys.get("description").and_then(|d| d.as_str()).map(str::trim);
            let draft = described
                .filter(|d| !d.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| first_paragraph(&body));
            if !draft.is_empty() {
                return Proposal::new(
                    draft,
                    vec![format!("A draft from the skill {folder}; edit it into your own words.")],
                );
            }
        }
        Proposal::new(
            String::new(),
            vec!["Nothing to draft from: describe what the agent is for (e to edit).".into()],
        )
    }
}

/// A Ghostlab job.yaml given as the source: read it, with agent paths rebased to `dir`.
fn existing_job(from: &Path, dir: &Path) -> Result<Option<Job>, ProposeError> {
    if from.is_dir() {
        return Ok(None);
    }
    let Ok(doc) = crate::spec::load::read_yaml_document(from) else {
        return Ok(None);
    };
    if doc.get("version").is_none() || doc.get("agent").is_none() {
        return Ok(None);
    }
    let text = crate::util::bounded::read_bounded_string(from, crate::util::bounded::FileKind::Config)?;
    let mut job = crate::spec::parse_job_text(from, &text)?;
    crate::import::rebase_agent(&mut job.agent, &crate::spec::load::job_dir(from), dir);
    Ok(Some(job))
}

fn first_paragraph(text: &str) -> String {
    text.split("\n\n")
        .map(|p| {
            p.lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .map(|p| p.trim().to_string())
        .find(|p| !p.is_empty())
        .unwrap_or_default()
}
