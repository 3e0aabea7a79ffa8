//! Offline purpose inference: builds agent-profile.json from the configuration's own text.
//! This file holds the builder, workflows and the evidence summary; `risks.rs` reads rules,
//! `tool_risks.rs` tools and permissions, `purpose.rs` the purpose and audience.
//!
//! Every workflow, risk and scope limit carries the evidence it was read from; nothing is
//! invented. The user's description, when given, is the purpose verbatim.

use indexmap::IndexMap;
use std::collections::BTreeSet;

use super::purpose::{QUOTE, audience, doc_lines, heading, purpose, tool_evidence};
use super::text::{base_form, lower_first, slug, unique, upper_first};
use crate::generate::context::ProfileContext;
use crate::generate::inventory::name_words;
use crate::generate::markdown::{code_spans, plain};
use crate::generate::profile::*;

pub(crate) fn infer_profile(ctx: &ProfileContext) -> AgentProfile {
    let mut b = Builder {
        ctx,
        ids: BTreeSet::new(),
        workflows: Vec::new(),
        risks: Vec::new(),
        scope: Vec::new(),
        used: IndexMap::new(),
        skill_sections: IndexMap::new(),
    };
    b.workflows();
    b.rules();
    b.tool_risks();
    b.permission_risks();
    let (purpose, purpose_ev, from_description) = purpose(ctx);
    let (audience, audience_ev) = audience(ctx);
    let evidence = b.summary(purpose_ev, audience_ev, from_description);
    AgentProfile {
        version: PROFILE_VERSION,
        purpose,
        audience,
        workflows: b.workflows,
        risk_surface: b.risks.into_iter().map(|d| d.risk).collect(),
        out_of_scope: b.scope,
        evidence,
    }
}

pub(super) struct RiskDraft {
    pub(super) risk: Risk,
    pub(super) words: BTreeSet<String>,
    pub(super) caps: Vec<String>,
}

pub(super) struct Builder<'a> {
    pub(super) ctx: &'a ProfileContext,
    pub(super) ids: BTreeSet<String>,
    pub(super) workflows: Vec<Workflow>,
    pub(super) risks: Vec<RiskDraft>,
    pub(super) scope: Vec<ScopeLimit>,
    /// Instruction file → headings that contributed.
    pub(super) used: IndexMap<String, Vec<String>>,
    pub(super) skill_sections: IndexMap<String, Vec<String>>,
}

/// One line of input text with where it sits.
pub(super) struct Line {
    pub(super) kind: EvidenceKind,
    pub(super) source: String,
    pub(super) section: Option<String>,
    pub(super) text: String,
    pub(super) skill: Option<String>,
}

impl Line {
    pub(super) fn evidence(&self) -> EvidenceRef {
        EvidenceRef {
            kind: self.kind,
            source: self.source.clone(),
            section: self.section.clone(),
            quote: plain(&self.text, QUOTE),
        }
    }
}

impl Builder<'_> {
    pub(super) fn mark(&mut self, line: &Line) {
        let Some(section) = &line.section else { return };
        let map = if line.kind == EvidenceKind::Skill {
            &mut self.skill_sections
        } else {
            &mut self.used
        };
        let list = map.entry(line.source.clone()).or_default();
        if !list.contains(section) {
            list.push(section.clone());
        }
    }

    /// Workflows from the instructions' workflow sections and the skills; without any, from
    /// the agent definitions, else the description's duties, else the read-only tools.
    fn workflows(&mut self) {
        self.instruction_workflows();
        self.skill_workflows();
        if self.workflows.is_empty() {
            self.agent_workflows();
        }
        if self.workflows.is_empty() {
            self.description_workflows();
        }
        if self.workflows.is_empty() {
            self.tool_workflows();
        }
    }

    /// Each instruction section whose heading names a workflow; its items (or paragraphs)
    /// are the steps.
    fn instruction_workflows(&mut self) {
        let ctx = self.ctx;
        for doc in &ctx.instructions {
            for section in &doc.doc.sections {
                let Some(name) = workflow_name(&section.heading) else {
                    continue;
                };
                let raw: Vec<&str> = if section.items.is_empty() {
                    section.paragraphs.iter().map(String::as_str).collect()
                } else {
                    section.items.iter().map(|i| i.text.as_str()).collect()
                };
                let line = Line {
                    kind: EvidenceKind::Instructions,
                    source: doc.file.clone(),
                    section: heading(&section.heading),
                    text: section.heading.clone(),
                    skill: None,
                };
                self.mark(&line);
                self.push_workflow(name, &raw, vec![line.evidence()]);
            }
        }
    }

    /// One workflow per skill, named by its description; its steps section (if any) gives
    /// the steps, and the skill itself is the first capability used.
    fn skill_workflows(&mut self) {
        let ctx = self.ctx;
        for skill in &ctx.skills {
            let steps = skill.doc.sections.iter().find(|s| {
                ["step", "procedure", "how", "workflow", "process"]
                    .iter()
                    .any(|k| s.heading.to_lowercase().contains(k))
            });
            let raw: Vec<&str> = match steps {
                Some(s) => s.items.iter().map(|i| i.text.as_str()).collect(),
                None => Vec::new(),
            };
            let name = skill
                .description
                .as_deref()
                .map(first_clause)
                .unwrap_or_else(|| format!("use the {} skill", skill.name));
            let line = Line {
                kind: EvidenceKind::Skill,
                source: skill.path.clone(),
                section: steps.map(|s| s.heading.clone()),
                text: skill.description.clone().unwrap_or_else(|| skill.name.clone()),
                skill: Some(skill.name.clone()),
            };
            self.mark(&line);
            let before = self.workflows.len();
            self.push_workflow(name, &raw, vec![line.evidence()]);
            if let Some(w) = self.workflows.get_mut(before) {
                let cap = format!("skill:{}", skill.name);
                if !w.capabilities_used.contains(&cap) {
                    w.capabilities_used.insert(0, cap);
                }
            }
        }
    }

    /// No explicit workflows: each agent definition with a description is one.
    fn agent_workflows(&mut self) {
        let ctx = self.ctx;
        for agent in &ctx.agents {
            let Some(desc) = &agent.description else { continue };
            let raw: Vec<String> = doc_lines(&agent.prompt);
            let raw: Vec<&str> = raw.iter().map(String::as_str).collect();
            let ev = EvidenceRef {
                kind: EvidenceKind::AgentPrompt,
                source: agent
                    .prompt_file
                    .clone()
                    .unwrap_or_else(|| format!("agent.runtime.agents.{}", agent.name)),
                section: None,
                quote: plain(desc, QUOTE),
            };
            self.push_workflow(base_form(desc), &raw, vec![ev]);
        }
    }

    /// Only the description: each duty it lists ("reads the changelog, checks CI") is one.
    fn description_workflows(&mut self) {
        let Some(desc) = &self.ctx.description else { return };
        let first = desc.split(". ").next().unwrap_or(desc).trim_end_matches('.');
        let duties = first.split_once(':').map(|(_, tail)| tail).unwrap_or(first);
        for duty in duties
            .split([',', ';'])
            .map(|d| d.trim().trim_start_matches("and ").trim())
        {
            if duty.is_empty() {
                continue;
            }
            let ev = EvidenceRef {
                kind: EvidenceKind::Description,
                source: "agent.description".into(),
                section: None,
                quote: plain(first, QUOTE),
            };
            let step = upper_first(&base_form(duty));
            self.push_workflow(base_form(duty), &[step.as_str()], vec![ev]);
        }
    }

    /// Nothing else: up to five read-only tools, one workflow each.
    fn tool_workflows(&mut self) {
        let ctx = self.ctx;
        for tool in ctx.tools.iter().filter(|t| !t.mutates()).take(5) {
            let name = format!("use {}", name_words(&tool.name).join(" "));
            let step = tool
                .description
                .clone()
                .unwrap_or_else(|| format!("Call {}.", tool.qualified()));
            let ev = tool_evidence(tool);
            self.push_workflow(name, &[step.as_str()], vec![ev]);
        }
    }

    fn push_workflow(&mut self, name: String, raw_steps: &[&str], evidence: Vec<EvidenceRef>) {
        let mut caps: Vec<String> = Vec::new();
        for step in raw_steps {
            for cap in self.step_capabilities(step) {
                if !caps.contains(&cap) {
                    caps.push(cap);
                }
            }
        }
        let id = unique(format!("wf-{}", slug(&name, 6)), &mut self.ids);
        self.workflows.push(Workflow {
            id,
            name,
            steps: raw_steps.iter().map(|s| plain(s, 400)).collect(),
            capabilities_used: caps,
            evidence,
        });
    }

    /// Tools, skills and built-ins a step names or implies.
    fn step_capabilities(&self, step: &str) -> Vec<String> {
        let mut caps = Vec::new();
        let spans = code_spans(step);
        for span in &spans {
            if let Some(t) = self
                .ctx
                .tools
                .iter()
                .find(|t| &t.qualified() == span || &t.name == span)
            {
                caps.push(t.qualified());
            } else if self.ctx.skills.iter().any(|s| &s.name == span) {
                caps.push(format!("skill:{span}"));
            }
        }
        let first = step.split_whitespace().next().unwrap_or("").to_lowercase();
        let names_file = spans.iter().any(|s| s.contains('.') || s.contains('/'));
        match first.as_str() {
            "read" | "list" | "open" | "check" | "quote" if names_file => caps.push("read".into()),
            "bump" | "edit" | "write" | "update" | "change" | "modify" if names_file => caps.push("edit".into()),
            "run" | "execute" => caps.push("bash".into()),
            _ => {}
        }
        caps
    }

    pub(super) fn summary(
        &self,
        purpose: Vec<EvidenceRef>,
        audience: Vec<EvidenceRef>,
        from_description: bool,
    ) -> Evidence {
        let ctx = self.ctx;
        Evidence {
            from_description,
            description_excerpt: ctx.description.as_deref().map(|d| plain(d, QUOTE)),
            purpose,
            audience,
            instructions: ctx
                .instructions
                .iter()
                .map(|d| InstructionEvidence {
                    file: d.file.clone(),
                    headings: self.used.get(&d.file).cloned().unwrap_or_default(),
                })
                .collect(),
            skills: ctx
                .skills
                .iter()
                .map(|s| SkillEvidence {
                    name: s.name.clone(),
                    path: s.path.clone(),
                    description: s.description.clone(),
                    sections: self.skill_sections.get(&s.path).cloned().unwrap_or_default(),
                })
                .collect(),
            agents: ctx
                .agents
                .iter()
                .map(|a| AgentEvidence {
                    name: a.name.clone(),
                    description: a.description.clone(),
                    prompt_file: a.prompt_file.clone(),
                })
                .collect(),
            mcp_tools: ctx
                .tools
                .iter()
                .map(|t| ToolEvidence {
                    server: t.server.clone(),
                    tool: t.name.clone(),
                    labels: t.labels.clone(),
                    source: t.source.clone(),
                })
                .collect(),
            permissions: ctx.permissions.clone(),
            workspace: ctx.workspace.clone(),
        }
    }
}

/// A skill description's first clause, as a workflow name: "Cuts a release, then …" →
/// "cuts a release".
fn first_clause(description: &str) -> String {
    let d = description;
    lower_first(
        d.split(", ")
            .next()
            .unwrap_or(d)
            .split(". ")
            .next()
            .unwrap_or(d)
            .trim_end_matches('.'),
    )
}

fn workflow_name(heading: &str) -> Option<String> {
    let lower = heading.to_lowercase();
    let rest = lower.strip_prefix("workflow")?;
    let name = heading[heading.len() - rest.len()..]
        .trim_start_matches([':', '-', '–', ' '])
        .trim();
    (!name.is_empty()).then(|| name.to_string())
}
