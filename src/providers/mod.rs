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
pub(crate) mod record;
pub(crate) mod refusal;

use indexmap::IndexMap;
use serde_json::Value;
use std::path::Path;

use crate::spec::LoadedJob;
use crate::spec::agent::Provider;

pub(crate) use auth_file::AuthFile;
pub(crate) use credentials::{CredentialKind, ProviderCredential};
pub use endpoints::EndpointSource;
pub(crate) use endpoints::ProviderEndpoints;
pub(crate) use error::ProviderError;
pub(crate) use record::ProvidersRecord;

/// One place the job names a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelUse {
    /// The job key (or flag) that names it, e.g. `agent.runtime.model`.
    pub(crate) key: String,
    /// `provider/model`.
    pub(crate) model: String,
}

impl ModelUse {
    /// The provider id: the part before the first `/`.
    pub(crate) fn provider(&self) -> &str {
        self.model.split_once('/').map(|(p, _)| p).unwrap_or(&self.model)
    }
}

/// A model override from `--agent-cassette`: (provider id, provider config, model).
pub(crate) type Override = (String, Value, String);

/// Every model the agent may call: `runtime.model`, `small_model` and each agent's `model`;
/// with an override, the override replaces the first two (as the emitted config does).
pub fn models_used(job: &LoadedJob, override_: Option<&Override>) -> Vec<ModelUse> {
    let rt = &job.job.agent.runtime;
    let mut out = Vec::new();
    match override_ {
        Some((id, _, model)) => out.push(ModelUse {
            key: "--agent-cassette".into(),
            model: format!("{id}/{model}"),
        }),
        None => {
            for (key, m) in [("model", &rt.model), ("small_model", &rt.small_model)] {
                if let Some(m) = m {
                    out.push(ModelUse {
                        key: format!("agent.runtime.{key}"),
                        model: m.clone(),
                    });
                }
            }
        }
    }
    for (name, def) in &rt.agents {
        if let Some(m) = &def.model {
            out.push(ModelUse {
                key: format!("agent.runtime.agents.{name}.model"),
                model: m.clone(),
            });
        }
    }
    out
}

/// The provider block for `id`: the override's, else the job's `agent.runtime.provider.<id>`.
pub(crate) fn provider_block(job: &LoadedJob, override_: Option<&Override>, id: &str) -> Option<Provider> {
    if let Some((oid, cfg, _)) = override_
        && oid == id
    {
        return Some(Provider {
            npm: cfg.get("npm").and_then(Value::as_str).map(str::to_string),
            options: cfg
                .get("options")
                .and_then(Value::as_object)
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect::<IndexMap<_, _>>()
                })
                .unwrap_or_default(),
            ..Provider::default()
        });
    }
    job.job.agent.runtime.provider.get(id).cloned()
}

/// Models grouped by provider, in the order the job names them.
pub(crate) fn by_provider(uses: &[ModelUse]) -> IndexMap<String, Vec<ModelUse>> {
    let mut map: IndexMap<String, Vec<ModelUse>> = IndexMap::new();
    for u in uses {
        let list = map.entry(u.provider().to_string()).or_default();
        if !list.iter().any(|x| x.model == u.model) {
            list.push(u.clone());
        }
    }
    map
}

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
