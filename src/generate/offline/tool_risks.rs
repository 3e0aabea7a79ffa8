//! Offline risks from what the agent can reach rather than what its text says: MCP tools that
//! change the world, send data out or carry credentials; bash and edit permissions that allow
//! side effects; denied tools as scope limits.

use super::profile::{Builder, RiskDraft};
use super::purpose::tool_evidence;
use super::text::{content_words, slug, unique};
use super::tool_phrase::tool_action;
use crate::generate::inventory::name_words;
use crate::generate::profile::*;

impl Builder<'_> {
    pub(super) fn tool_risks(&mut self) {
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
            let what = tool_action(&name_words(&t.name), t.description.as_deref());
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

    pub(super) fn permission_risks(&mut self) {
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
        let id = unique(
            crate::util::ids::sanitize_id(&format!("risk-{tool}-{action}")),
            &mut self.ids,
        );
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
}
