//! The contract of a job's MCP servers: per-tool risk labels (annotations first, name and
//! description words second, each with its source) and schema-quality findings with stable
//! codes, rendered as JSON, text or SARIF 2.1.0.
//!
//! Works from an inventory alone, so it runs offline; it never connects to a server.

pub mod decide;
pub mod decisions;
pub(crate) mod finding;
pub(crate) mod labels;
pub(crate) mod rule_help;
pub(crate) mod rules;
pub mod sarif;
pub(crate) mod sarif_sources;
mod schema_checks;
mod server_checks;
mod text_checks;
pub(crate) mod vocabulary;
pub(crate) mod words;

use serde::{Deserialize, Serialize};

pub(crate) use finding::Finding;
pub use labels::{Effect, LabelSource, RiskLabel};
pub(crate) use labels::{Label, effect_of, label_tool};
pub(crate) use rules::Severity;

use crate::mcp::inventory::{Inventory, ServerStatus};
use finding::Sink;

/// The contract.json format version this build writes.
pub(crate) const CONTRACT_VERSION: u32 = 1;

/// Labels and findings for every server of an inventory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contract {
    pub(crate) version: u32,
    pub generated_at: String,
    pub(crate) servers: Vec<ServerContract>,
    pub findings: Vec<Finding>,
    pub(crate) summary: Summary,
}

/// One server's tools with their labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ServerContract {
    pub(crate) name: String,
    pub(crate) status: ServerStatus,
    pub(crate) tools: Vec<ToolContract>,
}

/// One tool's effect and labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolContract {
    pub(crate) name: String,
    pub effect: Effect,
    pub labels: Vec<Label>,
}

/// Finding counts per severity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub error: usize,
    pub warning: usize,
    pub note: usize,
    pub info: usize,
}

impl Contract {
    /// True when some finding is at least `level`.
    pub(crate) fn has_findings_at(&self, level: Severity) -> bool {
        self.findings.iter().any(|f| f.severity >= level)
    }

    /// The labels of `server`/`tool`, if both exist.
    pub fn tool(&self, server: &str, tool: &str) -> Option<&ToolContract> {
        self.servers
            .iter()
            .find(|s| s.name == server)?
            .tools
            .iter()
            .find(|t| t.name == tool)
    }
}

/// Derives the contract from an inventory.
pub fn build_contract(inventory: &Inventory) -> Contract {
    let mut findings = Vec::new();
    let mut servers = Vec::new();
    for (s, server) in inventory.servers.iter().enumerate() {
        let labels: Vec<Vec<Label>> = server.tools.iter().map(label_tool).collect();
        let mut sink = Sink {
            server: &server.name,
            base: format!("/servers/{s}"),
            out: &mut findings,
        };
        for (i, tool) in server.tools.iter().enumerate() {
            let at = format!("/tools/{i}");
            text_checks::check_description(&mut sink, &tool.name, &at, tool.description.as_deref());
            schema_checks::check_schema(&mut sink, &tool.name, &at, &tool.input_schema);
        }
        server_checks::check_server(&mut sink, server, &labels);
        servers.push(ServerContract {
            name: server.name.clone(),
            status: server.status,
            tools: server
                .tools
                .iter()
                .zip(labels)
                .map(|(t, l)| ToolContract {
                    name: t.name.clone(),
                    effect: effect_of(&l),
                    labels: l,
                })
                .collect(),
        });
    }
    server_checks::check_cross_server(inventory, &mut findings);
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.pointer.cmp(&b.pointer))
            .then(a.code.cmp(&b.code))
    });
    let mut summary = Summary::default();
    for f in &findings {
        match f.severity {
            Severity::Error => summary.error += 1,
            Severity::Warning => summary.warning += 1,
            Severity::Note => summary.note += 1,
            Severity::Info => summary.info += 1,
        }
    }
    Contract {
        version: CONTRACT_VERSION,
        generated_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        servers,
        findings,
        summary,
    }
}

/// Renders findings and labels for a terminal or a log.
pub(crate) fn render_text(contract: &Contract) -> String {
    let mut out = String::new();
    for s in &contract.servers {
        out.push_str(&format!("server {} ({:?})\n", s.name, s.status).to_lowercase());
        for t in &s.tools {
            let labels: Vec<String> = t
                .labels
                .iter()
                .map(|l| format!("{} [{}: {}]", serde_plain(&l.label), serde_plain(&l.source), l.evidence))
                .collect();
            out.push_str(&format!(
                "  {}: {}\n",
                t.name,
                if labels.is_empty() {
                    "no labels".into()
                } else {
                    labels.join(", ")
                }
            ));
        }
    }
    for f in &contract.findings {
        let item = f.item.as_deref().map(|i| format!(" {i}")).unwrap_or_default();
        out.push_str(&format!(
            "{} {} {}{}: {} ({})\n",
            f.severity.as_str(),
            f.code,
            f.server,
            item,
            f.message,
            f.rule
        ));
    }
    let s = &contract.summary;
    out.push_str(&format!(
        "{} errors, {} warnings, {} notes, {} info\n",
        s.error, s.warning, s.note, s.info
    ));
    out
}

/// The serde name of a unit enum value.
fn serde_plain<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
