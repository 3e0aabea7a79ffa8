//! `providers.json` in the run folder: which hosts were allowlisted for which models and why,
//! which kind of credential each provider got (never a value), and how many sessions really
//! received the staged OpenCode login. The report's provenance reads it.

use serde::{Deserialize, Serialize};
use std::path::Path;

use super::{CredentialKind, EndpointSource, ProviderPlan};

/// The file name inside a run folder.
pub const FILE: &str = "providers.json";
/// Format version of `providers.json`.
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndpointRecord {
    pub provider: String,
    /// `provider/model (job key)`.
    pub models: Vec<String>,
    /// `host:port` pairs added to the egress allowlist.
    pub hosts: Vec<String>,
    pub source: EndpointSource,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CredentialRecord {
    pub provider: String,
    pub kind: CredentialKind,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AuthRecord {
    /// `sandbox.credentials.opencode_auth` as written in job.yaml.
    pub opted_in: bool,
    /// Providers whose login entries are staged.
    pub providers: Vec<String>,
    /// Sessions that actually received the file.
    pub staged_sessions: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProvidersRecord {
    pub version: u32,
    pub endpoints: Vec<EndpointRecord>,
    pub credentials: Vec<CredentialRecord>,
    pub opencode_auth: AuthRecord,
}

impl ProvidersRecord {
    pub fn from_plan(plan: &ProviderPlan, opted_in: bool) -> Self {
        ProvidersRecord {
            version: VERSION,
            endpoints: plan
                .endpoints
                .iter()
                .map(|e| EndpointRecord {
                    provider: e.provider.clone(),
                    models: e.models.iter().map(|m| format!("{} ({})", m.model, m.key)).collect(),
                    hosts: e.hosts.iter().map(ToString::to_string).collect(),
                    source: e.source.clone(),
                })
                .collect(),
            credentials: plan
                .credentials
                .iter()
                .map(|c| CredentialRecord {
                    provider: c.provider.clone(),
                    kind: c.kind.clone(),
                })
                .collect(),
            opencode_auth: AuthRecord {
                opted_in,
                providers: plan.auth.as_ref().map(|a| a.providers()).unwrap_or_default(),
                staged_sessions: 0,
            },
        }
    }

    pub fn write(&self, run_dir: &Path) -> std::io::Result<()> {
        crate::util::write_json_atomic(&run_dir.join(FILE), self)
    }

    /// The record of a run, if it has one.
    pub fn read(run_dir: &Path) -> Option<Self> {
        serde_json::from_str(&std::fs::read_to_string(run_dir.join(FILE)).ok()?).ok()
    }

    /// Rows for the report's sandbox provenance.
    pub fn provenance_rows(&self) -> Vec<(String, String)> {
        let dash = |v: Vec<String>| if v.is_empty() { "—".to_string() } else { v.join(", ") };
        let hosts = self
            .endpoints
            .iter()
            .map(|e| format!("{} → {} ({})", e.provider, e.hosts.join(", "), e.source))
            .collect();
        let creds = self
            .credentials
            .iter()
            .map(|c| format!("{}: {}", c.provider, c.kind))
            .collect();
        let a = &self.opencode_auth;
        let mounted = if a.staged_sessions > 0 {
            format!("true ({} for {} session(s))", a.providers.join(", "), a.staged_sessions)
        } else if a.opted_in {
            "false (opted in, but no login entry was staged)".to_string()
        } else {
            "false".to_string()
        };
        vec![
            ("Model provider endpoints (allowlisted)".into(), dash(hosts)),
            ("Credential per provider (kind only)".into(), dash(creds)),
            ("OpenCode auth mounted".into(), mounted),
        ]
    }
}

/// The provenance rows for a run folder; a run without a record staged nothing.
pub fn rows_for_run(run_dir: &Path) -> Vec<(String, String)> {
    match ProvidersRecord::read(run_dir) {
        Some(r) => r.provenance_rows(),
        None => vec![("OpenCode auth mounted".into(), "false".into())],
    }
}
