//! The agent under test on its real model: which providers the job's models use, which hosts
//! each needs in the egress allowlist, and which credential the sandbox receives for each.
//!
//! Before the first case, [`prepare`] checks that every model's provider has a credential the
//! user opted into (an environment variable in `sandbox.credentials.env`, an entry of the
//! OpenCode login file with `sandbox.credentials.opencode_auth: true`, or a keyless local
//! endpoint) and fails fast otherwise; then it resolves the hosts: the provider block's
//! `options.baseURL`, else the SDK package's default host (`known.rs`), else OpenCode's own
//! catalog (`catalog.rs`). Credential values never leave this process except into the agent's
//! environment or the session's private auth file (`auth_file.rs`).

pub(crate) mod auth_file;
pub mod catalog;
pub(crate) mod credentials;
pub mod endpoints;
pub(crate) mod error;
pub(crate) mod known;
pub(crate) mod model_uses;
pub(crate) mod opencode_home;
pub(crate) mod record;
pub(crate) mod refusal;

use std::path::Path;

use crate::spec::LoadedJob;

pub(crate) use auth_file::AuthFile;
pub(crate) use credentials::{CredentialKind, ProviderCredential};
pub use endpoints::EndpointSource;
pub(crate) use endpoints::ProviderEndpoints;
pub(crate) use error::ProviderError;
pub(crate) use model_uses::Override;
pub use model_uses::{ModelUse, models_used};
pub(crate) use record::ProvidersRecord;

/// What a run of the real agent needs from its providers.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProviderPlan {
    pub(crate) endpoints: Vec<ProviderEndpoints>,
    pub(crate) credentials: Vec<ProviderCredential>,
    /// The login entries staged into each session (only with the opt-in and only the
    /// providers the job uses).
    pub(crate) auth: Option<AuthFile>,
}

impl ProviderPlan {
    /// Every host to allowlist, once each, as `host:port`.
    pub(crate) fn hosts(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in &self.endpoints {
            for h in &e.hosts {
                let s = h.to_string();
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }
}

/// Checks credentials (fast, before anything slow) and resolves endpoints for the OpenCode
/// agent. An error names the model, the provider, what would supply the credential and the
/// job key that opts it in; `ghostlab test` exits 2 with it.
pub(crate) async fn prepare(
    job: &LoadedJob,
    override_: Option<&Override>,
    opencode: Option<&Path>,
) -> Result<ProviderPlan, ProviderError> {
    let uses = models_used(job, override_);
    let auth = if job.job.sandbox.credentials.opencode_auth {
        Some(AuthFile::load_user()?)
    } else {
        None
    };
    let credentials = credentials::check(job, override_, &uses, auth.as_ref())?;
    let used: Vec<&str> = uses.iter().map(ModelUse::provider).collect();
    let auth = auth.map(|a| a.only(&used)).filter(|a| !a.is_empty());
    let endpoints = endpoints::resolve(job, override_, &uses, opencode).await?;
    Ok(ProviderPlan {
        endpoints,
        credentials,
        auth,
    })
}
