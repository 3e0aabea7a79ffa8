//! Offline purpose inference: builds agent-profile.json from the configuration's own text.
//!
//! Every workflow, risk and scope limit carries the evidence it was read from; nothing is
//! invented. The user's description, when given, is the purpose verbatim.

use indexmap::IndexMap;
use std::collections::BTreeSet;

use super::text::{
    content_words, is_prohibition_heading, is_scope_rule, lower_first, mentions_irreversible, mentions_secret, overlap,
    rule_clause, slug, unique, violation,
};
use crate::generate::context::ProfileContext;
use crate::generate::inventory::name_words;
use crate::generate::markdown::{Doc, code_spans, plain};
use crate::generate::profile::*;

const QUOTE: usize = 200;

/// Infers the profile; deterministic for a given context.
pub fn infer_profile(ctx: &ProfileContext) -> AgentProfile {
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

struct RiskDraft {
    risk: Risk,
    words: BTreeSet<String>,
    caps: Vec<String>,
}

struct Builder<'a> {
    ctx: &'a ProfileContext,
    ids: BTreeSet<String>,
    workflows: Vec<Workflow>,
    risks: Vec<RiskDraft>,
    scope: Vec<ScopeLimit>,
    /// Instruction file → headings that contributed.
    used: IndexMap<String, Vec<String>>,
    skill_sections: IndexMap<String, Vec<String>>,
}

/// One line of input text with where it sits.
struct Line {
    kind: EvidenceKind,
    source: String,
    section: Option<String>,
    text: String,
    skill: Option<String>,
}

impl Line {
    fn evidence(&self) -> EvidenceRef {
        EvidenceRef {
            kind: self.kind,
            source: self.source.clone(),
            section: self.section.clone(),
            quote: plain(&self.text, QUOTE),
        }
    }
}

fn heading(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

impl Builder<'_> {
    fn mark(&mut self, line: &Line) {
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

    fn workflows(&mut self) {
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
                .map(|d| {
                    lower_first(
                        d.split(", ")
                            .next()
                            .unwrap_or(d)
                            .split(". ")
                            .next()
                            .unwrap_or(d)
                            .trim_end_matches('.'),
                    )
                })
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
        if self.workflows.is_empty() {
            // No explicit workflows: each agent definition with a description is one.
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
                self.push_workflow(lower_first(desc), &raw, vec![ev]);
            }
        }
        if self.workflows.is_empty() {
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

    /// Every line of instructions, agent prompts, skills and the description, in that order.
    fn lines(&self) -> Vec<Line> {
        let mut out = Vec::new();
        let mut from_doc = |doc: &Doc, kind: EvidenceKind, source: &str, skill: Option<&str>| {
            for section in &doc.sections {
                let texts = section
                    .items
                    .iter()
                    .map(|i| i.text.clone())
                    .chain(section.paragraphs.iter().cloned());
                for text in texts {
                    out.push(Line {
                        kind,
                        source: source.to_string(),
                        section: heading(&section.heading),
                        text,
                        skill: skill.map(str::to_string),
                    });
                }
            }
        };
        for doc in &self.ctx.instructions {
            from_doc(&doc.doc, EvidenceKind::Instructions, &doc.file, None);
        }
        for agent in &self.ctx.agents {
            let source = agent
                .prompt_file
                .clone()
                .unwrap_or_else(|| format!("agent.runtime.agents.{}", agent.name));
            from_doc(&agent.prompt, EvidenceKind::AgentPrompt, &source, None);
        }
        for skill in &self.ctx.skills {
            from_doc(&skill.doc, EvidenceKind::Skill, &skill.path, Some(&skill.name));
        }
        if let Some(desc) = &self.ctx.description {
            for sentence in desc.split(". ") {
                out.push(Line {
                    kind: EvidenceKind::Description,
                    source: "agent.description".into(),
                    section: None,
                    text: sentence.trim().to_string(),
                    skill: None,
                });
            }
        }
        out
    }

    fn rules(&mut self) {
        let ctx = self.ctx;
        for line in self.lines() {
            let text = plain(&line.text, 400);
            let section = line.section.clone().unwrap_or_default();
            if is_scope_rule(&text) {
                self.mark(&line);
                self.add_scope(text.trim_end_matches('.').to_string(), line.evidence());
                continue;
            }
            let gate = gate_action(&section);
            let (rule, v, quote) = if is_prohibition_heading(&section) {
                (text.clone(), violation(&text, true), text.clone())
            } else if let Some(clause) = rule_clause(&text) {
                let v = violation(&clause, false);
                (clause.clone(), v, clause)
            } else if let Some(act) = &gate {
                // Each gate item joins one risk per gate section.
                let rule = format!("{act} requires: {}", text.trim_end_matches('.'));
                (
                    rule,
                    format!("{act} before checking that {}", lower_first(text.trim_end_matches('.'))),
                    text.clone(),
                )
            } else {
                continue;
            };
            self.mark(&line);
            let words = content_words(&rule);
            let (caps, cap_ev) = self.capabilities_for(&rule, line.skill.as_deref());
            let mut first = line.evidence();
            first.quote = plain(&quote, QUOTE);
            let mut evidence = vec![first];
            evidence.extend(cap_ev);
            let merge = self.risks.iter_mut().find(|d| {
                overlap(&d.words, &words) >= 0.5
                    || (gate.is_some()
                        && d.risk.evidence.first().and_then(|e| e.section.as_deref()) == Some(section.as_str()))
            });
            if let Some(d) = merge {
                for e in evidence {
                    if !d.risk.evidence.contains(&e) {
                        d.risk.evidence.push(e);
                    }
                }
                continue;
            }
            let severity = severity(ctx, &rule, &caps);
            let id = unique(format!("risk-{}", slug(&super::text::action(&v), 5)), &mut self.ids);
            let risk_sentence = risk_sentence(&v);
            let origin = match &line.section {
                Some(s) => format!("{} § {s}", line.source),
                None => line.source.clone(),
            };
            let why = format!("{origin} says \"{}\"; {}", plain(&rule, QUOTE), reach(&caps));
            self.risks.push(RiskDraft {
                risk: Risk {
                    id,
                    risk: risk_sentence,
                    why,
                    capability: caps.first().cloned().unwrap_or_else(|| "conversation".into()),
                    severity,
                    evidence,
                },
                words,
                caps,
            });
        }
    }

    /// The capabilities that could break a rule, with tool evidence.
    fn capabilities_for(&self, rule: &str, skill: Option<&str>) -> (Vec<String>, Vec<EvidenceRef>) {
        let words = content_words(rule);
        let mut caps = Vec::new();
        let mut ev = Vec::new();
        const GENERIC: &[&str] = &[
            "get",
            "list",
            "create",
            "update",
            "set",
            "read",
            "statu",
            "file",
            "directory",
        ];
        for t in &self.ctx.tools {
            if !(t.mutates() || t.has("credential-bearing") || t.has("external-network")) {
                continue;
            }
            let hit = name_words(&t.name)
                .iter()
                .map(|w| super::text::stem(w))
                .any(|w| !GENERIC.contains(&w.as_str()) && words.contains(&w));
            if hit {
                caps.push(t.qualified());
                ev.push(tool_evidence(t));
            }
        }
        let any = |set: &[&str]| set.iter().any(|k| words.contains(*k));
        if mentions_secret(rule) {
            caps.push("read".into());
        }
        if any(&[
            "push", "run", "script", "sh", "git", "shell", "command", "npm", "execute", "force",
        ]) && self.allowed("bash")
        {
            caps.push("bash".into());
        }
        if any(&["write", "edit", "bump", "modify", "change", "json"]) && self.allowed("edit") {
            caps.push("edit".into());
        }
        if let Some(s) = skill {
            caps.push(format!("skill:{s}"));
        }
        caps.dedup();
        (caps, ev)
    }

    /// False when every permission entry for `tool` denies or disables it.
    fn allowed(&self, tool: &str) -> bool {
        let entries: Vec<_> = self
            .ctx
            .permissions
            .iter()
            .filter(|p| p.tool == tool || p.tool == "*")
            .collect();
        entries.is_empty() || entries.iter().any(|p| p.action == "allow" || p.action == "ask")
    }

    fn add_scope(&mut self, what: String, evidence: EvidenceRef) {
        let words = content_words(&what);
        if let Some(s) = self
            .scope
            .iter_mut()
            .find(|s| overlap(&content_words(&s.what), &words) >= 0.6)
        {
            if !s.evidence.contains(&evidence) {
                s.evidence.push(evidence);
            }
            return;
        }
        let id = unique(format!("scope-{}", slug(&what, 5)), &mut self.ids);
        self.scope.push(ScopeLimit {
            id,
            what,
            evidence: vec![evidence],
        });
    }

    fn tool_risks(&mut self) {
        let ctx = self.ctx;
        for t in &ctx.tools {
            let risky = t.mutates() || t.has("credential-bearing") || t.has("external-network");
            if !risky {
                continue;
            }
            let q = t.qualified();
            if self.risks.iter().any(|d| d.caps.contains(&q)) {
                continue;
            }
            let what = t
                .description
                .as_deref()
                .map(|d| lower_first(d.split(". ").next().unwrap_or(d).trim_end_matches('.')))
                .unwrap_or_else(|| name_words(&t.name).join(" "));
            let severity = if t.has("destructive") || t.has("credential-bearing") || t.has("external-network") {
                Severity::High
            } else {
                Severity::Medium
            };
            let id = unique(format!("risk-{}", slug(&t.name, 5)), &mut self.ids);
            self.risks.push(RiskDraft {
                risk: Risk {
                    id,
                    risk: format!("The agent may {what} (tool {q}) without the user's go-ahead."),
                    why: format!(
                        "{q} is labelled {}; nothing in the instructions limits it.",
                        t.labels.join(", ")
                    ),
                    capability: q.clone(),
                    severity,
                    evidence: vec![tool_evidence(t)],
                },
                words: content_words(&what),
                caps: vec![q],
            });
        }
    }

    fn permission_risks(&mut self) {
        let ctx = self.ctx;
        for p in &ctx.permissions {
            let ev = EvidenceRef {
                kind: EvidenceKind::Permission,
                source: p.key.clone(),
                section: None,
                quote: format!("{}: {}", p.tool, p.action),
            };
            let is_catch_all = !p.key.ends_with(']') || p.key.ends_with("[\"*\"]");
            match (p.tool.as_str(), p.action.as_str()) {
                (_, "deny" | "disabled") => {
                    let what = match p.tool.as_str() {
                        "webfetch" => "fetching pages from the web".to_string(),
                        "external_directory" => "reading or changing files outside the workspace".to_string(),
                        "bash" => "running shell commands".to_string(),
                        "edit" => "editing files".to_string(),
                        other => format!("using the {other} tool"),
                    };
                    self.add_scope(what, ev);
                }
                ("bash" | "edit" | "*", "allow" | "ask") if is_catch_all => {
                    let tools: Vec<&str> = if p.tool == "*" {
                        vec!["bash", "edit"]
                    } else {
                        vec![p.tool.as_str()]
                    };
                    for tool in tools {
                        self.permission_risk(tool, &p.action, ev.clone());
                    }
                }
                _ => {}
            }
        }
    }

    fn permission_risk(&mut self, tool: &str, action: &str, ev: EvidenceRef) {
        if let Some(d) = self.risks.iter_mut().find(|d| d.caps.iter().any(|c| c == tool)) {
            if !d.risk.evidence.contains(&ev) {
                d.risk.evidence.push(ev);
            }
            return;
        }
        let (what, severity) = match (tool, action) {
            ("bash", "allow") => ("run shell commands with side effects without asking", Severity::High),
            ("bash", _) => (
                "run shell commands with side effects once the user waves them through",
                Severity::Medium,
            ),
            (_, "allow") => ("change workspace files nobody asked it to change", Severity::Medium),
            _ => (
                "change workspace files once the user waves the edit through",
                Severity::Low,
            ),
        };
        let id = unique(format!("risk-{tool}-{action}"), &mut self.ids);
        self.risks.push(RiskDraft {
            risk: Risk {
                id,
                risk: format!("The agent may {what}."),
                why: format!("the permission for {tool} is `{action}` ({}).", ev.source),
                capability: tool.to_string(),
                severity,
                evidence: vec![ev],
            },
            words: content_words(what),
            caps: vec![tool.to_string()],
        });
    }

    fn summary(&self, purpose: Vec<EvidenceRef>, audience: Vec<EvidenceRef>, from_description: bool) -> Evidence {
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

fn workflow_name(heading: &str) -> Option<String> {
    let lower = heading.to_lowercase();
    let rest = lower.strip_prefix("workflow")?;
    let name = heading[heading.len() - rest.len()..]
        .trim_start_matches([':', '-', '–', ' '])
        .trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// "Gates before tagging" → "tagging"; other headings → None.
fn gate_action(heading: &str) -> Option<String> {
    let lower = heading.to_lowercase();
    let pos = lower.find("before ")?;
    let looks_like_gate = ["gate", "check", "require", "prerequisite"]
        .iter()
        .any(|k| lower.contains(k));
    looks_like_gate.then(|| heading[pos + "before ".len()..].trim().to_string())
}

fn doc_lines(doc: &Doc) -> Vec<String> {
    doc.sections
        .iter()
        .flat_map(|s| {
            s.items
                .iter()
                .map(|i| i.text.clone())
                .chain(s.paragraphs.iter().cloned())
        })
        .collect()
}

fn tool_evidence(t: &crate::generate::inventory::ToolInfo) -> EvidenceRef {
    EvidenceRef {
        kind: EvidenceKind::McpTool,
        source: format!("{}.{}", t.server, t.name),
        section: None,
        quote: match &t.description {
            Some(d) => format!("{} [{}]", plain(d, 150), t.labels.join(", ")),
            None => format!("[{}]", t.labels.join(", ")),
        },
    }
}

/// "The agent may …" for a verb phrase; gerunds read "may end up …".
pub fn risk_sentence(violation: &str) -> String {
    let first = violation.split_whitespace().next().unwrap_or("");
    let v = violation.trim_end_matches('.');
    if first.len() > 4 && first.to_lowercase().ends_with("ing") && !first.eq_ignore_ascii_case("bring") {
        format!("The agent may end up {}.", lower_first(v))
    } else {
        format!("The agent may {}.", lower_first(v))
    }
}

fn reach(caps: &[String]) -> String {
    if caps.is_empty() {
        "only the conversation itself can break it.".into()
    } else {
        format!("reachable through {}.", caps.join(", "))
    }
}

fn severity(ctx: &ProfileContext, rule: &str, caps: &[String]) -> Severity {
    let dangerous_tool = caps.iter().any(|c| {
        ctx.tool(c)
            .is_some_and(|t| t.has("destructive") || t.has("credential-bearing") || t.has("external-network"))
    });
    if mentions_secret(rule) || mentions_irreversible(rule) || dangerous_tool {
        Severity::High
    } else if caps
        .iter()
        .any(|c| c == "bash" || c == "edit" || ctx.tool(c).is_some_and(|t| t.mutates()))
    {
        Severity::Medium
    } else {
        Severity::Low
    }
}

fn purpose(ctx: &ProfileContext) -> (String, Vec<EvidenceRef>, bool) {
    if let Some(desc) = &ctx.description {
        let ev = EvidenceRef {
            kind: EvidenceKind::Description,
            source: "agent.description".into(),
            section: None,
            quote: plain(desc, QUOTE),
        };
        return (desc.clone(), vec![ev], true);
    }
    for doc in &ctx.instructions {
        if let Some(section) = doc
            .doc
            .sections
            .iter()
            .find(|s| s.level <= 1 && !s.paragraphs.is_empty())
        {
            let text = plain(&section.paragraphs[0], 400);
            let ev = EvidenceRef {
                kind: EvidenceKind::Instructions,
                source: doc.file.clone(),
                section: heading(&section.heading),
                quote: plain(&text, QUOTE),
            };
            return (text, vec![ev], false);
        }
    }
    for agent in &ctx.agents {
        if let Some(d) = &agent.description {
            let ev = EvidenceRef {
                kind: EvidenceKind::AgentPrompt,
                source: format!("agent.runtime.agents.{}.description", agent.name),
                section: None,
                quote: plain(d, QUOTE),
            };
            return (d.clone(), vec![ev], false);
        }
    }
    let skills: Vec<&crate::generate::context::SkillDoc> =
        ctx.skills.iter().filter(|s| s.description.is_some()).collect();
    if !skills.is_empty() {
        let text = skills
            .iter()
            .filter_map(|s| s.description.clone())
            .collect::<Vec<_>>()
            .join(" ");
        let ev = skills
            .iter()
            .map(|s| EvidenceRef {
                kind: EvidenceKind::Skill,
                source: s.path.clone(),
                section: None,
                quote: plain(s.description.as_deref().unwrap_or_default(), QUOTE),
            })
            .collect();
        return (text, ev, false);
    }
    let tools: Vec<String> = ctx.tools.iter().map(|t| t.qualified()).collect();
    let ev = ctx.tools.iter().map(tool_evidence).collect();
    let name = ctx.agent_name.clone().unwrap_or_else(|| ctx.agent_id.clone());
    (
        format!("{name}: an agent with the tools {}", tools.join(", ")),
        ev,
        false,
    )
}

fn audience(ctx: &ProfileContext) -> (String, Vec<EvidenceRef>) {
    let re =
        regex::Regex::new(r"(?i)\bhelps?\s+(?:the\s+)?([a-z][\w-]*(?:\s+of\s+`?[\w.-]+`?)?)").expect("static regex");
    let mut candidates: Vec<(String, EvidenceKind, String, Option<String>)> = Vec::new();
    if let Some(d) = &ctx.description {
        candidates.push((d.clone(), EvidenceKind::Description, "agent.description".into(), None));
    }
    for doc in &ctx.instructions {
        for s in &doc.doc.sections {
            for p in &s.paragraphs {
                candidates.push((
                    p.clone(),
                    EvidenceKind::Instructions,
                    doc.file.clone(),
                    heading(&s.heading),
                ));
            }
        }
    }
    for agent in &ctx.agents {
        for p in doc_lines(&agent.prompt) {
            let source = agent
                .prompt_file
                .clone()
                .unwrap_or_else(|| format!("agent.runtime.agents.{}", agent.name));
            candidates.push((p, EvidenceKind::AgentPrompt, source, None));
        }
    }
    for (text, kind, source, section) in candidates {
        if let Some(c) = re.captures(&text) {
            let who = c[1].replace('`', "");
            let ev = EvidenceRef {
                kind,
                source,
                section,
                quote: plain(&text, QUOTE),
            };
            return (who, vec![ev]);
        }
    }
    let name = ctx.agent_name.clone().unwrap_or_else(|| ctx.agent_id.clone());
    let ev = EvidenceRef {
        kind: EvidenceKind::AgentPrompt,
        source: "agent.name".into(),
        section: None,
        quote: name.clone(),
    };
    (format!("people who use {name}"), vec![ev])
}
