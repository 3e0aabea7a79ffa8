//! Proposals for each step: what the wizard suggests before the person decides.
//!
//! This reads files (imports, previews) and calls the executor traits; it never draws and never
//! writes. Flags given on the command line (`Seeds`) shape the proposals of both drivers alike.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

use super::apply::{SkillsAnswer, to_answer_yaml};
use super::policy;
use super::propose_error::ProposeError;
use super::seeds::Seeds;
use super::state::{Artifacts, Proposal};
use super::step::StepId;
use super::traits::{GenerateKind, GenerateRequest, Generator, ModelCatalog};
use crate::import::{from_mcp_file, from_skill, import_source, relative_to, slug};
use crate::redact::Redactor;
use crate::spec::{JOB_VERSION, Job, job_to_yaml};
use crate::util::secret_ref::referenced_vars;

/// Produces the proposal of each wizard step; one per driver, shared by every step. (Not
/// `generate::Proposer`: that one drafts profiles, personas and scenarios, reached here
/// through the `Generator`.)
#[derive(Clone)]
pub struct StepProposer {
    /// Where job.yaml is (or will be) written.
    pub job_file: PathBuf,
    pub seeds: Seeds,
    pub models: Arc<dyn ModelCatalog>,
    pub generator: Arc<dyn Generator>,
}

impl StepProposer {
    fn job_dir(&self) -> PathBuf {
        crate::spec::load::job_dir(&self.job_file)
    }

    /// Proposes an answer for `step` given the job so far.
    pub async fn propose(
        &self,
        step: StepId,
        hint: Option<String>,
        job: Job,
        artifacts: Artifacts,
        cancel: CancellationToken,
    ) -> Result<Proposal, ProposeError> {
        let generated = matches!(step, StepId::Profile | StepId::Personas | StepId::Scenarios);
        let unused_hint = hint.is_some() && !generated;
        let mut proposal = match step {
            StepId::Source => self.source(),
            StepId::Purpose => match super::purpose_draft::model_draft(
                &self.seeds,
                &self.job_file,
                self.generator.as_ref(),
                &job,
                cancel.clone(),
            )
            .await
            {
                Some(drafted) => drafted,
                None => Ok(self.purpose(&job)),
            },
            StepId::Model => self.model(job).await,
            StepId::Mcps => self.mcps(&job),
            StepId::Skills => Ok(self.skills(&job)),
            StepId::Permissions => Ok(policy::permissions(&job, self.contract(&job).as_ref())),
            StepId::Sandbox => {
                // Offered only where `doctor`'s own probe finds a gateway that answers.
                let gateway = crate::sandbox::doctor::probe_openshell().await;
                Ok(policy::sandbox(&job, self.seeds.sandbox, &gateway))
            }
            StepId::Profile | StepId::Personas | StepId::Scenarios => {
                self.generated(step, hint, job, artifacts, cancel).await
            }
            StepId::Gates => Ok(policy::gates(&job, &self.seeds.gates)?),
            StepId::Preview => Ok(self.preview(&job)),
        }?;
        if unused_hint {
            // Say so rather than pretend the hint steered a proposal computed from files.
            proposal
                .notes
                .push("The hint was not used: this step is computed from your files and flags, not by a model.".into());
        }
        Ok(proposal)
    }

    /// The OpenCode config file the lab imported (`--from`), when it was one.
    fn imported_config(&self) -> Option<PathBuf> {
        let from = self.seeds.from.as_ref()?;
        let file = if from.is_dir() {
            ["opencode.jsonc", "opencode.json"]
                .iter()
                .map(|n| from.join(n))
                .find(|p| p.is_file())?
        } else {
            from.clone()
        };
        let json = file.extension().is_some_and(|e| e == "json" || e == "jsonc");
        json.then_some(file)
    }

    /// The contract Step 4 linted, when there is a readable one (the tools' risk labels).
    fn contract(&self, job: &Job) -> Option<crate::mcp::contract::Contract> {
        let state = crate::spec::relative_path::resolve_against(&self.job_dir(), &job.paths.state_dir);
        let text = crate::util::bounded::read_bounded_string(
            &state.join("contract.json"),
            crate::util::bounded::FileKind::State,
        )
        .ok()?;
        serde_json::from_str(&text).ok()
    }

    fn source(&self) -> Result<Proposal, ProposeError> {
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

    fn purpose(&self, job: &Job) -> Proposal {
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

    async fn model(&self, job: Job) -> Result<Proposal, ProposeError> {
        // A catalog that cannot list leaves the list empty and says why in the notes.
        let (listed, unlisted) = match self.models.models(job.clone()).await {
            Ok(listed) => (listed, None),
            Err(e) => (
                Vec::new(),
                Some(format!("The configured models could not be listed: {e}")),
            ),
        };
        let usable = self.models.usable(job.clone(), self.job_dir()).await;
        if let (Some(seed), Some(list)) = (&self.seeds.model, &usable)
            && !self.seeds.model_from_cassette
            && !list.contains(seed)
            && !listed.contains(seed)
        {
            return Err(ProposeError::UnusableModel {
                seed: seed.clone(),
                usable: if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                },
            });
        }
        let chosen = self
            .seeds
            .model
            .clone()
            .or_else(|| job.agent.runtime.model.clone())
            .or_else(|| listed.first().cloned())
            .unwrap_or_default();
        let mut notes = vec!["The model the agent under test runs with (provider/model).".to_string()];
        if self.seeds.model_from_cassette {
            notes
                .push("The run serves the agent's model from --agent-cassette: no credential is needed for it.".into());
        }
        notes.extend(unlisted);
        if listed.is_empty() {
            notes.push("No configured models found; type one (e to edit).".into());
        } else {
            notes.push(format!("Configured: {}", listed.join(", ")));
        }
        // The roles' lines before the (long) list of usable models, so they stay on screen.
        let (roles, role_notes) = roles_proposal(&job, &self.seeds.roles, usable.as_deref(), &listed).await?;
        notes.extend(role_notes);
        // Only a catalog that asked the person's OpenCode knows what is usable and why.
        if let Some(list) = usable {
            let shown: Vec<String> = list.iter().take(40).cloned().collect();
            notes.push(format!(
                "Usable with your credentials ({}): {}{}",
                list.len(),
                if shown.is_empty() {
                    "none".to_string()
                } else {
                    shown.join(", ")
                },
                if list.len() > shown.len() { ", …" } else { "" }
            ));
            let mut all = listed.clone();
            all.push(chosen.clone());
            notes.extend(super::usable_models::sources_note(&all));
        }
        Ok(Proposal::new(format!("{chosen}\n{roles}"), notes))
    }

    fn mcps(&self, job: &Job) -> Result<Proposal, ProposeError> {
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
    fn describe_mcp(&self, m: &crate::spec::McpInput) -> String {
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

    fn skills(&self, job: &Job) -> Proposal {
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
                    Ok(text) => format!("{label}: {}", preview(&text)),
                    Err(e) => format!("{label}: cannot read {e}"),
                },
            );
        }
        if notes.is_empty() {
            notes.push("No instructions, skills or assets attached.".into());
        }
        Proposal::new(to_answer_yaml(&answer), notes)
    }

    async fn generated(
        &self,
        step: StepId,
        hint: Option<String>,
        job: Job,
        artifacts: Artifacts,
        cancel: CancellationToken,
    ) -> Result<Proposal, ProposeError> {
        let kind = match step {
            StepId::Profile => GenerateKind::Profile,
            StepId::Personas => GenerateKind::Personas,
            _ => GenerateKind::Scenarios,
        };
        let request = GenerateRequest {
            kind,
            job,
            job_dir: self.job_dir(),
            profile: artifacts.get(&StepId::Profile).cloned(),
            personas: artifacts.get(&StepId::Personas).cloned(),
            hint: hint.clone(),
        };
        let offline = request.job.generation.proposer.provider == crate::spec::ModelProvider::Offline;
        let value = self.generator.generate(request, cancel).await?;
        let mut notes = vec![
            match step {
                StepId::Profile => "Inferred purpose, workflows and risk surface, with evidence. Edit anything wrong.",
                StepId::Personas => "Who will talk to the agent. Edit to add, change or drop personas.",
                _ => "Per persona: each scenario with success criteria and failure signals.",
            }
            .to_string(),
        ];
        match hint {
            // The offline proposer is a template: it cannot read a hint, so do not claim it did.
            Some(_) if offline => notes.push(
                "The hint was not used: the proposer is `offline` (templates); pick a proposer model in step 3.".into(),
            ),
            Some(h) => notes.push(format!("Regenerated with hint: {h}")),
            None => {}
        }
        Ok(Proposal::new(to_answer_yaml(&value), notes))
    }

    fn preview(&self, job: &Job) -> Proposal {
        let yaml = job_to_yaml(job);
        let mut redactor = Redactor::new();
        let mut names = referenced_vars(&yaml);
        names.extend(job.sandbox.credentials.env.iter().cloned());
        redactor.add_env_vars(names.iter().map(String::as_str));
        let mut text = redactor.redact(&yaml).into_owned();
        let mut notes = vec![
            format!(
                "Saved at {}. Secrets stay ${{VAR}} references; values are masked.",
                self.job_file.display()
            ),
            "Enter starts the run; its transcript streams below.".into(),
        ];
        // What the run really uses: the saved job resolved, and the config the agent gets.
        match crate::spec::load_job(&self.job_file) {
            Ok(loaded) => {
                let resolved = super::preview_resolved::resolve(&loaded, self.imported_config().as_deref());
                text.push_str("\n# ── opencode.json as the agent gets it (paths as on the host) ──\n");
                text.push_str(&redactor.redact(&resolved.opencode_json));
                text.push('\n');
                notes.extend(resolved.notes);
            }
            Err(e) => notes.push(format!("The saved job cannot be resolved yet: {e}")),
        }
        Proposal {
            text,
            notes,
            editable: false,
        }
    }
}

/// Step 3's role lines and notes (see `roles_step`), from the same authenticated list as the
/// agent's model (`role_models`); a role flag outside that list is refused with the list. The
/// credential lookup blocks, so it runs on the blocking pool.
async fn roles_proposal(
    job: &Job,
    seeds: &super::roles_step::RoleSeeds,
    usable: Option<&[String]>,
    listed: &[String],
) -> Result<(String, Vec<String>), ProposeError> {
    use super::role_models as rm;
    use super::roles_step as rs;
    let j = job.clone();
    let authed = tokio::task::spawn_blocking(move || rm::authenticated(&j))
        .await
        .unwrap_or_default();
    let models = rm::role_models(usable, listed, &authed);
    for (flag, seed) in [
        ("--proposer-model", &seeds.proposer),
        ("--emulator-model", &seeds.emulator),
        ("--judge-model", &seeds.judge),
    ] {
        if let Some(choice) = seed {
            rm::check_flag(flag, choice, &models)?;
        }
    }
    let choices = rs::choices(job, seeds, &models);
    let shown: Vec<String> = models.iter().take(12).cloned().collect();
    let notes = vec![
        "Ghostlab's own models: proposer (profile, personas, scenarios), emulator (the simulated user), judge."
            .to_string(),
        if models.is_empty() {
            "No model for the roles: no provider key found (role api_key, `ghostlab auth`, ANTHROPIC_API_KEY, \
             OPENAI_API_KEY…); they stay offline."
                .to_string()
        } else {
            format!(
                "Authenticated for the roles: {}. Models ({}): {}{}",
                rm::sources_line(&authed, &models),
                models.len(),
                shown.join(", "),
                if models.len() > shown.len() { ", …" } else { "" }
            )
        },
        format!("`offline` = {}.", rs::OFFLINE_LABEL),
        rs::estimate(job, &choices),
    ];
    Ok((rs::lines(&choices), notes))
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

fn preview(text: &str) -> String {
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
