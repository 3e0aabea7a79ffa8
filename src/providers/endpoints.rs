//! The hosts each provider of the job needs: the provider block's `options.baseURL` when set,
//! else the default host of its SDK package (the static table), else the URL in OpenCode's own
//! catalog. Nothing else is ever added to the allowlist for a model.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

use super::catalog;
use super::error::{EndpointProblem, ProviderError};
use super::known::{known, sdk_default_hosts};
use super::model_uses::{ModelUse, Override, by_provider, provider_block};
use crate::sandbox::HostPort;
use crate::spec::LoadedJob;
use crate::spec::resolved::host_port;

/// Why a host is on the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum EndpointSource {
    /// The provider block's `options.baseURL` (the URL).
    BaseUrl(String),
    /// The default host of this SDK package.
    SdkDefault(String),
    /// OpenCode's catalog `api.url` (the URL).
    Catalog(String),
}

impl std::fmt::Display for EndpointSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EndpointSource::BaseUrl(u) => write!(f, "options.baseURL {u}"),
            EndpointSource::SdkDefault(npm) => write!(f, "default host of {npm}"),
            EndpointSource::Catalog(u) => write!(f, "OpenCode catalog {u}"),
        }
    }
}

/// One provider's destinations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderEndpoints {
    pub(crate) provider: String,
    pub(crate) models: Vec<ModelUse>,
    pub hosts: Vec<HostPort>,
    pub source: EndpointSource,
}

/// Resolves every provider of `uses`. `opencode` is the pinned binary, asked only for providers
/// the static table does not know.
pub async fn resolve(
    job: &LoadedJob,
    override_: Option<&Override>,
    uses: &[ModelUse],
    opencode: Option<&Path>,
) -> Result<Vec<ProviderEndpoints>, ProviderError> {
    let mut out = Vec::new();
    for (provider, models) in by_provider(uses) {
        let first = models[0].clone();
        let block = provider_block(job, override_, &provider);
        let options = block.as_ref().map(|b| b.options.clone()).unwrap_or_default();
        let prefix = format!(
            "{}: {}: model `{}` (provider `{provider}`)",
            job.file.display(),
            first.key,
            first.model
        );
        let fail = |problem: EndpointProblem| ProviderError::Endpoint {
            at: prefix.clone(),
            problem,
        };
        if let Some(url) = options.get("baseURL") {
            let url = url.as_str().unwrap_or_default();
            let hp = host_port(url)
                .as_deref()
                .and_then(HostPort::parse)
                .ok_or_else(|| fail(EndpointProblem::BaseUrl(url.to_string())))?;
            out.push(ProviderEndpoints {
                provider,
                models,
                hosts: vec![hp],
                source: EndpointSource::BaseUrl(url.to_string()),
            });
            continue;
        }
        let npm = block
            .as_ref()
            .and_then(|b| b.npm.clone())
            .or_else(|| known(&provider).map(|k| k.npm.to_string()));
        if let Some(npm) = &npm
            && let Some(hosts) = sdk_default_hosts(npm, &options)
        {
            out.push(ProviderEndpoints {
                provider,
                models,
                hosts: hosts.map_err(fail)?,
                source: EndpointSource::SdkDefault(npm.clone()),
            });
            continue;
        }
        let Some(bin) = opencode else {
            return Err(fail(EndpointProblem::NoCatalog));
        };
        let entries = catalog::lookup(bin, &provider)
            .await
            .map_err(|e| fail(EndpointProblem::Catalog(e)))?;
        let entry = entries
            .iter()
            .find(|e| e.id == first.model)
            .or(entries.first())
            .ok_or_else(|| fail(EndpointProblem::NotInCatalog))?;
        if !entry.url.is_empty() {
            let hp = host_port(&entry.url)
                .as_deref()
                .and_then(HostPort::parse)
                .ok_or_else(|| fail(EndpointProblem::CatalogUrl(entry.url.clone())))?;
            out.push(ProviderEndpoints {
                provider,
                models,
                hosts: vec![hp],
                source: EndpointSource::Catalog(entry.url.clone()),
            });
        } else if let Some(hosts) = sdk_default_hosts(&entry.npm, &options) {
            out.push(ProviderEndpoints {
                provider,
                models,
                hosts: hosts.map_err(fail)?,
                source: EndpointSource::SdkDefault(entry.npm.clone()),
            });
        } else {
            return Err(fail(EndpointProblem::UnknownPackage(entry.npm.clone())));
        }
    }
    Ok(out)
}

/// The hosts a run will allowlist for the job's models, as far as they are known without
/// asking OpenCode (for the lab's Sandbox step): `provider → host:port`.
pub(crate) fn preview_hosts(job: &crate::spec::Job) -> Vec<String> {
    let rt = &job.agent.runtime;
    let mut models: Vec<&String> = rt.model.iter().chain(rt.small_model.iter()).collect();
    models.extend(rt.agents.values().filter_map(|a| a.model.as_ref()));
    let mut out: Vec<String> = Vec::new();
    for m in models {
        let provider = m.split_once('/').map(|(p, _)| p).unwrap_or(m);
        let block = rt.provider.get(provider);
        let options = block.map(|b| b.options.clone()).unwrap_or_default();
        let hosts = match options.get("baseURL").and_then(Value::as_str) {
            Some(url) => host_port(url).into_iter().collect(),
            None => block
                .and_then(|b| b.npm.clone())
                .or_else(|| known(provider).map(|k| k.npm.to_string()))
                .and_then(|npm| sdk_default_hosts(&npm, &options))
                .and_then(Result::ok)
                .map(|h| h.iter().map(ToString::to_string).collect::<Vec<_>>())
                .unwrap_or_else(|| vec!["(from OpenCode's catalog at run time)".to_string()]),
        };
        let line = format!("{provider} → {}", hosts.join(", "));
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn job(value: serde_json::Value) -> LoadedJob {
        LoadedJob {
            job: serde_json::from_value(value).unwrap(),
            file: std::path::PathBuf::from("/x/job.yaml"),
            dir: std::path::PathBuf::from("/x"),
            mcps: Vec::new(),
        }
    }

    async fn hosts(j: &LoadedJob) -> Result<Vec<(String, Vec<String>, EndpointSource)>, ProviderError> {
        let uses = crate::providers::model_uses::models_used(j, None);
        Ok(resolve(j, None, &uses, None)
            .await?
            .into_iter()
            .map(|e| (e.provider, e.hosts.iter().map(ToString::to_string).collect(), e.source))
            .collect())
    }

    #[tokio::test]
    async fn built_in_providers_get_their_sdk_hosts_without_asking_opencode() {
        let j = job(json!({"version": 1, "agent": {"id": "a", "runtime": {
            "model": "anthropic/claude-sonnet-4-5", "small_model": "openai/gpt-5-mini",
            "agents": {"r": {"model": "anthropic/claude-haiku-4-5"}, "c": {"model": "github-copilot/gpt-5"}}}}}));
        let h = hosts(&j).await.unwrap();
        assert_eq!(h.len(), 3, "{h:?}");
        assert_eq!(h[0].0, "anthropic");
        assert_eq!(h[0].1, ["api.anthropic.com:443"]);
        assert_eq!(h[0].2, EndpointSource::SdkDefault("@ai-sdk/anthropic".into()));
        assert_eq!(h[1].1, ["api.openai.com:443"]);
        assert_eq!(h[2].1, ["api.githubcopilot.com:443", "api.github.com:443"]);
    }

    #[tokio::test]
    async fn a_base_url_wins_and_an_unknown_provider_without_opencode_is_an_error() {
        let j = job(
            json!({"version": 1, "agent": {"id": "a", "runtime": {"model": "anthropic/claude-x",
            "provider": {"anthropic": {"options": {"baseURL": "https://gateway.corp.example:8443/anthropic"}}}}}}),
        );
        let h = hosts(&j).await.unwrap();
        assert_eq!(h[0].1, ["gateway.corp.example:8443"]);
        assert!(matches!(h[0].2, EndpointSource::BaseUrl(_)));
        let j = job(json!({"version": 1, "agent": {"id": "a", "runtime": {"model": "mystery/m1"}}}));
        let e = hosts(&j).await.unwrap_err().to_string();
        assert!(
            e.contains("agent.runtime.model") && e.contains("mystery") && e.contains("options.baseURL"),
            "{e}"
        );
    }

    #[test]
    fn sources_read_well() {
        assert_eq!(
            EndpointSource::SdkDefault("@ai-sdk/anthropic".into()).to_string(),
            "default host of @ai-sdk/anthropic"
        );
    }
}
