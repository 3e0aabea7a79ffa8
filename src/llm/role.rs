//! From a job's model role (`generation.proposer|emulator|judge`) to a provider.
//!
//! `offline` is not mapped to a model on purpose (see the module doc of `llm`): it yields
//! `LlmError::Offline` / `None` so the caller switches to its deterministic code path.

use std::path::Path;
use std::sync::Arc;

use super::cassette::{RecordLlm, ReplayLlm};
use super::openai::{ApiKey, OpenAiConfig, OpenAiLlm};
use super::{Llm, LlmError};
use crate::spec::{ModelProvider, ModelRole};

/// Used when an `openai` role gives no `base_url`.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The provider for `role`; relative cassette paths resolve against `job_dir`.
pub fn from_role(role: &ModelRole, job_dir: &Path) -> Result<Arc<dyn Llm>, LlmError> {
    model_for_role(role, job_dir)?.ok_or(LlmError::Offline)
}

/// Like [`from_role`], but `Ok(None)` for the `offline` provider.
pub fn model_for_role(role: &ModelRole, job_dir: &Path) -> Result<Option<Arc<dyn Llm>>, LlmError> {
    let model_name = || role.model.clone().unwrap_or_else(|| "default".to_string());
    let cassette = || -> Result<std::path::PathBuf, LlmError> {
        let rel = role.cassette.as_deref().ok_or_else(|| LlmError::Config {
            detail: "provider `replay`/`record` needs `cassette: <file>`".into(),
        })?;
        Ok(job_dir.join(rel))
    };
    Ok(match role.provider {
        ModelProvider::Offline => None,
        ModelProvider::Openai => Some(OpenAiLlm::new(openai_config(role)?)?),
        ModelProvider::Replay => Some(ReplayLlm::load(&cassette()?, model_name())?),
        ModelProvider::Record => {
            let inner: Arc<dyn Llm> = OpenAiLlm::new(openai_config(role)?)?;
            Some(RecordLlm::new(inner, &cassette()?, model_name()))
        }
    })
}

/// The `openai` settings a role describes (API key kept as a reference).
pub fn openai_config(role: &ModelRole) -> Result<OpenAiConfig, LlmError> {
    let model = role.model.clone().ok_or_else(|| LlmError::Config {
        detail: "provider `openai` needs `model`".into(),
    })?;
    let base = role.base_url.clone().unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
    let mut cfg = OpenAiConfig::new(base, model);
    cfg.api_key = match role.api_key.as_deref() {
        None => ApiKey::Stored {
            provider: "openai".into(),
        },
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

        role.api_key = Some("sk-literal".into());
        assert!(matches!(openai_config(&role), Err(LlmError::Config { .. })));

        let replay = ModelRole {
            provider: ModelProvider::Replay,
            ..Default::default()
        };
        assert!(matches!(from_role(&replay, dir).err(), Some(LlmError::Config { .. })));
    }
}
