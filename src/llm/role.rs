//! From a job's model role (`generation.proposer|emulator|judge`) to a provider.
//!
//! `offline` is not mapped to a model on purpose (see the module doc of `llm`): it yields
//! `LlmError::Offline` / `None` so the caller switches to its deterministic code path.

use std::path::Path;
use std::sync::Arc;

use super::anthropic::AnthropicLlm;
use super::cassette::{RecordLlm, ReplayLlm};
use super::openai::{ApiKey, OpenAiConfig, OpenAiLlm};
use super::priced::PricedLlm;
use super::role_key::KeyRequest;
use super::{Llm, LlmError, providers};
use crate::spec::{Generation, ModelProvider, ModelRole, RoleCredentials};

/// Used when an `openai` role gives no `base_url`.
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The provider for `role`; relative cassette paths resolve against `job_dir`.
pub fn from_role(role: &ModelRole, job_dir: &Path) -> Result<Arc<dyn Llm>, LlmError> {
    model_for_role(role, job_dir)?.ok_or(LlmError::Offline)
}

/// Like [`from_role`], but `Ok(None)` for the `offline` provider. OpenCode's login is not
/// consulted; use [`role_model`] to honour `generation.credentials`.
pub(crate) fn model_for_role(role: &ModelRole, job_dir: &Path) -> Result<Option<Arc<dyn Llm>>, LlmError> {
    build(role, job_dir, false)
}

/// One of `generation`'s roles, with the job's credential settings applied.
pub(crate) fn role_model(
    generation: &Generation,
    role: &ModelRole,
    job_dir: &Path,
) -> Result<Option<Arc<dyn Llm>>, LlmError> {
    build(
        role,
        job_dir,
        generation.credentials == Some(RoleCredentials::OpencodeAuth),
    )
}

fn build(role: &ModelRole, job_dir: &Path, opencode_auth: bool) -> Result<Option<Arc<dyn Llm>>, LlmError> {
    let model_name = || role.model.clone().unwrap_or_else(|| "default".to_string());
    let cassette = || -> Result<std::path::PathBuf, LlmError> {
        let rel = role.cassette.as_deref().ok_or_else(|| LlmError::Config {
            detail: "provider `replay`/`record` needs `cassette: <file>`".into(),
        })?;
        Ok(job_dir.join(rel))
    };
    let priced = |inner: Arc<dyn Llm>| -> Arc<dyn Llm> {
        let price = price_key(role).and_then(|(p, m)| super::catalog::price(&p, &m));
        Arc::new(PricedLlm::new(inner, price))
    };
    Ok(match role.provider {
        ModelProvider::Offline => None,
        ModelProvider::Openai => Some(priced(OpenAiLlm::new(http_config(role, opencode_auth)?)?)),
        ModelProvider::Anthropic => Some(priced(AnthropicLlm::new(http_config(role, opencode_auth)?)?)),
        ModelProvider::Replay => Some(ReplayLlm::load(&cassette()?, model_name())?),
        ModelProvider::Record => {
            let inner: Arc<dyn Llm> = OpenAiLlm::new(http_config(role, opencode_auth)?)?;
            Some(RecordLlm::new(priced(inner), &cassette()?, model_name()))
        }
    })
}

/// The catalog entry (`provider`, `model`) a role's calls are priced by: Anthropic's models by
/// name; an OpenAI-compatible role only on a known provider's own endpoint (a local or unknown
/// server's price is unknown, not zero).
pub fn price_key(role: &ModelRole) -> Option<(String, String)> {
    let model = role.model.clone()?;
    match role.provider {
        ModelProvider::Anthropic => Some(("anthropic".into(), model)),
        ModelProvider::Openai | ModelProvider::Record => {
            let base = role.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL);
            providers::by_base_url(base).map(|k| (k.id.to_string(), model))
        }
        _ => None,
    }
}

/// Whose keys a role uses: `anthropic`, the known provider behind an OpenAI-compatible
/// `base_url` (OpenRouter's URL → `openrouter`), else `openai`.
pub(crate) fn key_provider(role: &ModelRole) -> String {
    match role.provider {
        ModelProvider::Anthropic => "anthropic".into(),
        _ => role
            .base_url
            .as_deref()
            .and_then(providers::by_base_url)
            .map(|k| k.id.to_string())
            .unwrap_or_else(|| "openai".into()),
    }
}

/// The `openai` settings a role describes (API key kept as a reference).
pub(crate) fn openai_config(role: &ModelRole) -> Result<OpenAiConfig, LlmError> {
    http_config(role, false)
}

/// The HTTP settings of an `openai` or `anthropic` role; the key stays a reference or a chain.
fn http_config(role: &ModelRole, opencode_auth: bool) -> Result<OpenAiConfig, LlmError> {
    let anthropic = role.provider == ModelProvider::Anthropic;
    let model = role.model.clone().ok_or_else(|| LlmError::Config {
        detail: format!(
            "provider `{}` needs `model`",
            if anthropic { "anthropic" } else { "openai" }
        ),
    })?;
    let default_base = if anthropic {
        super::anthropic::DEFAULT_BASE_URL
    } else {
        DEFAULT_BASE_URL
    };
    let base = role.base_url.clone().unwrap_or_else(|| default_base.to_string());
    let mut cfg = OpenAiConfig::new(base, model);
    cfg.stream = anthropic;
    cfg.api_key = match role.api_key.as_deref() {
        None => ApiKey::Role(KeyRequest {
            provider: key_provider(role),
            role_var: None,
            opencode_auth,
        }),
        Some(text) => {
            let vars = crate::util::secret_ref::referenced_vars(text);
            match vars.as_slice() {
                [var] if text.trim() == format!("${{{var}}}") => ApiKey::Env(var.clone()),
                _ => {
                    return Err(LlmError::Config {
                        detail: "api_key must be exactly one `${VAR}` reference; a literal key is refused".into(),
                    });
                }
            }
        }
    };
    cfg.headers = role.headers.clone();
    cfg.temperature = role.temperature;
    apply_env_limits(&mut cfg)?;
    Ok(cfg)
}

/// `GHOSTLAB_LLM_TIMEOUT` (e.g. `90s`, per attempt) and `GHOSTLAB_LLM_ATTEMPTS` (retry budget)
/// tune every role without touching job.yaml; a bad value is an error, not ignored.
fn apply_env_limits(cfg: &mut OpenAiConfig) -> Result<(), LlmError> {
    if let Ok(text) = std::env::var("GHOSTLAB_LLM_TIMEOUT") {
        cfg.timeout = crate::util::units::parse_duration(&text)
            .filter(|d| !d.is_zero())
            .ok_or_else(|| LlmError::Config {
                detail: format!("GHOSTLAB_LLM_TIMEOUT=`{text}` is not a duration like `90s` or `2m`"),
            })?;
    }
    if let Ok(text) = std::env::var("GHOSTLAB_LLM_ATTEMPTS") {
        cfg.retry.max_attempts = text
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=20).contains(n))
            .ok_or_else(|| LlmError::Config {
                detail: format!("GHOSTLAB_LLM_ATTEMPTS=`{text}` must be a whole number from 1 to 20"),
            })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_providers_and_refuses_offline_and_literal_keys() {
        let dir = std::path::Path::new("/nonexistent");
        let offline = ModelRole::default();
        assert_eq!(from_role(&offline, dir).err(), Some(LlmError::Offline));
        assert!(model_for_role(&offline, dir).unwrap().is_none());

        let mut role = ModelRole {
            provider: ModelProvider::Openai,
            model: Some("gpt-x".into()),
            api_key: Some("${MY_KEY}".into()),
            ..Default::default()
        };
        let cfg = openai_config(&role).unwrap();
        assert_eq!(cfg.api_key, ApiKey::Env("MY_KEY".into()));
        assert_eq!(cfg.base_url, DEFAULT_BASE_URL);
        assert_eq!(from_role(&role, dir).unwrap().label(), "openai:gpt-x");
        role.provider = ModelProvider::Anthropic;
        role.model = Some("claude-haiku-4-5".into());
        assert_eq!(from_role(&role, dir).unwrap().label(), "anthropic:claude-haiku-4-5");
        assert_eq!(price_key(&role), Some(("anthropic".into(), "claude-haiku-4-5".into())));
        role.provider = ModelProvider::Openai;
        role.base_url = Some("http://127.0.0.1:9/v1".into());
        assert_eq!(price_key(&role), None, "a local server's price is unknown");
        role.base_url = Some("https://openrouter.ai/api/v1".into());
        assert_eq!(key_provider(&role), "openrouter");
        role.base_url = None;
        role.model = Some("gpt-x".into());

        role.api_key = Some("sk-literal".into());
        assert!(matches!(openai_config(&role), Err(LlmError::Config { .. })));

        let replay = ModelRole {
            provider: ModelProvider::Replay,
            ..Default::default()
        };
        assert!(matches!(from_role(&replay, dir).err(), Some(LlmError::Config { .. })));
    }
}
