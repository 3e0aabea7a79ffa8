//! `providers.json` in the run folder: which hosts were allowlisted for which models and why,
//! which kind of credential each provider got (never a value), and how many sessions really
//! received the staged OpenCode login. The report's provenance reads it.

use serde::{Deserialize, Serialize};
use std::path::Path;

use super::{CredentialKind, EndpointSource, ProviderPlan};

/// The file name inside a run folder.
pub(crate) const FILE: &str = "providers.json";
/// Format version of `providers.json`.
pub(crate) const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct EndpointRecord {
    pub(crate) provider: String,
    /// `provider/model (job key)`.
    pub(crate) models: Vec<String>,
    /// `host:port` pairs added to the egress allowlist.
    pub(crate) hosts: Vec<String>,
    pub(crate) source: EndpointSource,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CredentialRecord {
    pub(crate) provider: String,
    pub(crate) kind: CredentialKind,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct AuthRecord {
    /// `sandbox.credentials.opencode_auth` as written in job.yaml.
    pub(crate) opted_in: bool,
    /// Providers whose login entries are staged.
    pub(crate) providers: Vec<String>,
    /// Sessions that actually received the file.
    pub(crate) staged_sessions: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ProvidersRecord {
    pub(crate) version: u32,
    pub(crate) endpoints: Vec<EndpointRecord>,
    pub(crate) credentials: Vec<CredentialRecord>,
    pub(crate) opencode_auth: AuthRecord,
}

impl ProvidersRecord {
    pub(crate) fn from_plan(plan: &ProviderPlan, opted_in: bool) -> Self {
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

    pub(crate) fn write(&self, run_dir: &Path) -> std::io::Result<()> {
        crate::util::write_json_atomic(&run_dir.join(FILE), self)
    }

    /// The record of a run, if it has one.
    pub(crate) fn read(run_dir: &Path) -> Option<Self> {
        let text =
            crate::util::bounded::read_bounded_string(&run_dir.join(FILE), crate::util::bounded::FileKind::State)
                .ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Rows for the report's sandbox provenance.
    pub(crate) fn provenance_rows(&self) -> Vec<(String, String)> {
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
pub(crate) fn rows_for_run(run_dir: &Path) -> Vec<(String, String)> {
    match ProvidersRecord::read(run_dir) {
        Some(r) => r.provenance_rows(),
        None => vec![("OpenCode auth mounted".into(), "false".into())],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(r: &ProvidersRecord) -> std::collections::HashMap<String, String> {
        r.provenance_rows().into_iter().collect()
    }

    #[test]
    fn provenance_shows_hosts_with_their_reason_and_the_credential_kind_only() {
        let mut r = ProvidersRecord {
            version: VERSION,
            endpoints: vec![EndpointRecord {
                provider: "openai".into(),
                models: vec!["openai/gpt-4.1 (agent.runtime.model)".into()],
                hosts: vec!["api.openai.com:443".into()],
                source: EndpointSource::SdkDefault("@ai-sdk/openai".into()),
            }],
            credentials: vec![CredentialRecord {
                provider: "openai".into(),
                kind: CredentialKind::Env("OPENAI_API_KEY".into()),
            }],
            opencode_auth: AuthRecord::default(),
        };
        let shown = rows(&r);
        assert_eq!(
            shown["Model provider endpoints (allowlisted)"],
            "openai → api.openai.com:443 (default host of @ai-sdk/openai)"
        );
        assert_eq!(
            shown["Credential per provider (kind only)"],
            "openai: environment variable OPENAI_API_KEY"
        );
        assert_eq!(shown["OpenCode auth mounted"], "false");
        // Opting in is not mounting: only staged sessions make it true.
        r.opencode_auth = AuthRecord {
            opted_in: true,
            providers: vec!["openai".into()],
            staged_sessions: 0,
        };
        assert_eq!(
            rows(&r)["OpenCode auth mounted"],
            "false (opted in, but no login entry was staged)"
        );
        r.opencode_auth.staged_sessions = 2;
        assert_eq!(rows(&r)["OpenCode auth mounted"], "true (openai for 2 session(s))");
        // A run folder without a record staged nothing.
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(
            rows_for_run(empty.path()),
            vec![("OpenCode auth mounted".to_string(), "false".to_string())]
        );
    }
}
