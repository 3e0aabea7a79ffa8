//! The key an LLM client sends: its configured [`ApiKey`] looked up through Ghostlab's store or
//! a role's chain (`role_key`). Above both, so neither the key chain nor the config needs the other.

use super::LlmError;
use super::credentials::{self, Secret};
use super::openai_config::ApiKey;
use super::role_key::{KeyRequest, host_sources, how_to_set, resolve};
use crate::util::loopback::is_loopback_url;

/// The key `api_key` stands for, or `None` when the call goes without one (no key configured
/// and a loopback endpoint). `label` names the model in errors. The keyring blocks, so the chain
/// runs on the blocking pool.
pub(crate) async fn key_for(api_key: &ApiKey, label: &str, base_url: &str) -> Result<Option<Secret>, LlmError> {
    let request = match api_key {
        ApiKey::None => return Ok(None),
        ApiKey::Env(var) => KeyRequest {
            provider: label.to_string(),
            role_var: Some(var.clone()),
            opencode_auth: false,
        },
        ApiKey::Stored { provider } => {
            // Ghostlab's own store only (the behaviour before role chains existed).
            return match credentials::lookup_async(provider).await {
                Ok(Some(found)) => Ok(Some(found.secret)),
                Ok(None) if is_loopback_url(base_url) => Ok(None),
                Ok(None) => Err(LlmError::MissingCredential {
                    provider: provider.clone(),
                    hint: credentials::how_to_set(provider),
                }),
                Err(e) => Err(LlmError::MissingCredential {
                    provider: provider.clone(),
                    hint: format!("{e}; {}", credentials::how_to_set(provider)),
                }),
            };
        }
        ApiKey::Role(r) => r.clone(),
    };
    let r = request.clone();
    let found = tokio::task::spawn_blocking(move || resolve(&r, &host_sources()))
        .await
        .map_err(|e| LlmError::MissingCredential {
            provider: request.provider.clone(),
            hint: format!("the key lookup failed: {e}"),
        })?;
    let who = if request.role_var.is_some() {
        label.to_string()
    } else {
        request.provider.clone()
    };
    match found {
        Ok(Some((secret, _origin))) => Ok(Some(secret)),
        Ok(None) if is_loopback_url(base_url) => Ok(None),
        Ok(None) => Err(LlmError::MissingCredential {
            provider: who,
            hint: how_to_set(&request.provider),
        }),
        Err(e) => Err(LlmError::MissingCredential {
            provider: who,
            hint: e.to_string(),
        }),
    }
}
