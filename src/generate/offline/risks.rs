//! Offline risk surface and scope limits from the text: prohibitions in instructions, prompts,
//! skills and the description (`tool_risks.rs` reads tools and permissions).
//!
//! Similar rules from several files merge into one risk that lists every source.

use super::profile::{Builder, Line, RiskDraft};
use super::purpose::{QUOTE, heading, tool_evidence};
use super::text::{
    content_words, is_prohibition_heading, is_scope_rule, lower_first, mentions_irreversible, mentions_secret, overlap,
    rule_clause, slug, unique, violation,
};
use crate::generate::context::ProfileContext;
use crate::generate::inventory::name_words;
use crate::generate::markdown::{Doc, plain};
use crate::generate::profile::*;

impl Builder<'_> {
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

    pub(super) fn rules(&mut self) {
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
        // Deleting files needs no tool named "delete": any tool that overwrites or moves a file
        // can lose one, so such a rule is reachable through those.
        let deletes = words
            .iter()
            .any(|w| ["delet", "remov", "eras", "wip"].iter().any(|k| w.starts_with(k)));
        if deletes {
            // Destructive tools first; else the one file tool most able to lose a file, so the
            // other file tools keep risks of their own.
            let on_files = |t: &&crate::generate::inventory::ToolInfo| {
                t.mutates()
                    && name_words(&t.name)
                        .iter()
                        .any(|w| ["file", "files", "directory", "dir", "path", "folder"].contains(&w.as_str()))
            };
            let destructive: Vec<_> = self.ctx.tools.iter().filter(|t| t.has("destructive")).collect();
            let chosen = if destructive.is_empty() {
                let files: Vec<_> = self.ctx.tools.iter().filter(on_files).collect();
                let by_verb = |v: &str| {
                    files
                        .iter()
                        .find(|t| name_words(&t.name).first().is_some_and(|w| w == v))
                };
                by_verb("move")
                    .or_else(|| by_verb("write"))
                    .or(files.first())
                    .into_iter()
                    .copied()
                    .collect()
            } else {
                destructive
            };
            for t in chosen {
                if !caps.contains(&t.qualified()) {
                    caps.push(t.qualified());
                    ev.push(tool_evidence(t));
                }
            }
            if self.allowed("bash") {
                caps.push("bash".into());
            }
        }
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
        let mut seen = std::collections::BTreeSet::new();
        caps.retain(|c| seen.insert(c.clone()));
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

    /// A scope limit, merged into a like one already read.
    pub(super) fn add_scope(&mut self, what: String, evidence: EvidenceRef) {
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

/// "The agent may …" for a verb phrase; gerunds read "may end up …".
pub(crate) fn risk_sentence(violation: &str) -> String {
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
