//! Offline purpose and audience: the description verbatim when given, else the first
//! instruction paragraph, an agent's description or the skills' descriptions, each with evidence.

use crate::generate::context::ProfileContext;
use crate::generate::markdown::{Doc, plain};
use crate::generate::profile::{EvidenceKind, EvidenceRef};

/// Longest quote kept as evidence.
pub(super) const QUOTE: usize = 200;

pub(super) fn heading(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

pub(super) fn doc_lines(doc: &Doc) -> Vec<String> {
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

pub(super) fn tool_evidence(t: &crate::generate::inventory::ToolInfo) -> EvidenceRef {
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

pub(super) fn purpose(ctx: &ProfileContext) -> (String, Vec<EvidenceRef>, bool) {
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
    let name = ctx.agent_name.clone().unwrap_or_else(|| ctx.agent_id.clone());
    if ctx.tools.is_empty() {
        let ev = EvidenceRef {
            kind: EvidenceKind::AgentPrompt,
            source: "agent.id".into(),
            section: None,
            quote: name.clone(),
        };
        return (
            format!("{name} (the configuration says nothing else about its purpose)"),
            vec![ev],
            false,
        );
    }
    let tools: Vec<String> = ctx.tools.iter().map(|t| t.qualified()).collect();
    let ev = ctx.tools.iter().map(tool_evidence).collect();
    (
        format!("{name}: an agent with the tools {}", tools.join(", ")),
        ev,
        false,
    )
}

pub(super) fn audience(ctx: &ProfileContext) -> (String, Vec<EvidenceRef>) {
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
        if let Some(who) = super::audience::audience_phrase(&text) {
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
