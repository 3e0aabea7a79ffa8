//! The models Ghostlab's own roles (proposer, emulator, judge) can use now: the same "actually
//! authenticated" list the agent's model comes from (the person's own `opencode models`, the
//! models the job's OpenAI-compatible endpoints serve), kept to the providers whose key the
//! roles' credential chain finds (`llm::role_key`: the keyring, the usual variable, the OpenCode
//! login only with `generation.credentials: opencode_auth`), plus the catalog's models of such a
//! provider when neither OpenCode nor an endpoint listed any (a key only Ghostlab's keyring holds).
//!
//! Step 3 proposes the roles from this list, and a headless `--judge-model` (etc.) outside it is
//! refused with the list, unless it names an explicit endpoint (a base URL).

use crate::llm::providers::{self, RoleProvider};
use crate::llm::role_key::{self, KeyOrigin, KeyRequest};
use crate::spec::{Job, ModelProvider, ModelRole, RoleCredentials};

/// A provider the roles can call, and where its key comes from (never the key).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AuthedProvider {
    pub(crate) provider: RoleProvider,
    pub(crate) source: String,
}

fn describe(origin: &KeyOrigin) -> String {
    match origin {
        KeyOrigin::RoleVar(v) | KeyOrigin::ProviderVar(v) => format!("env {v}"),
        KeyOrigin::Ghostlab(s) => format!("Ghostlab {s}"),
        KeyOrigin::OpencodeAuth(_) => "OpenCode login (generation.credentials: opencode_auth)".into(),
    }
}

/// The known providers whose key the roles' chain finds now, with its origin; keyless local
/// servers (Ollama) count as "no key needed". Blocks (keyring).
pub(crate) fn authenticated(job: &Job) -> Vec<AuthedProvider> {
    let opencode_auth = job.generation.credentials == Some(RoleCredentials::OpencodeAuth);
    let sources = role_key::host_sources();
    providers::role_providers()
        .into_iter()
        .filter_map(|k| {
            if k.env_var.is_none() {
                return Some(AuthedProvider {
                    provider: k,
                    source: "no key needed".into(),
                });
            }
            let req = KeyRequest {
                provider: k.id.to_string(),
                role_var: None,
                opencode_auth,
            };
            match role_key::resolve(&req, &sources) {
                Ok(Some((_, origin))) => Some(AuthedProvider {
                    provider: k,
                    source: describe(&origin),
                }),
                _ => None,
            }
        })
        .collect()
}

/// The roles' list: every `provider/model` of `usable` (the person's OpenCode) and `listed`
/// (configured, endpoint-served) whose provider is authenticated for the roles, then, for an
/// authenticated keyed provider that contributed none, its catalog models. Keyless providers
/// contribute only what something actually listed (a local server may not be running).
pub(crate) fn role_models(usable: Option<&[String]>, listed: &[String], authed: &[AuthedProvider]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let is_authed = |p: &str| authed.iter().any(|a| a.provider.id == p);
    for m in usable.unwrap_or_default().iter().chain(listed) {
        if let Some((p, model)) = m.split_once('/')
            && !model.is_empty()
            && is_authed(p)
            && !out.contains(m)
        {
            out.push(m.clone());
        }
    }
    for a in authed.iter().filter(|a| a.provider.env_var.is_some()) {
        let prefix = format!("{}/", a.provider.id);
        if out.iter().any(|m| m.starts_with(&prefix)) {
            continue;
        }
        for m in crate::llm::catalog::models_of(a.provider.id) {
            out.push(format!("{}/{}", m.provider, m.model));
        }
    }
    out
}

/// Among `models`, the provider the roles should use (the agent's when listed, else the first)
/// and its cheapest and strongest model by catalog price (the first listed when none is priced).
pub(crate) fn suggested(models: &[String], agent_provider: Option<&str>) -> Option<(String, String)> {
    let provider_of = |m: &String| m.split_once('/').map(|(p, _)| p.to_string());
    let provider = agent_provider
        .filter(|a| models.iter().any(|m| provider_of(m).as_deref() == Some(*a)))
        .map(str::to_string)
        .or_else(|| models.first().and_then(provider_of))?;
    let prefix = format!("{provider}/");
    let names: Vec<&str> = models.iter().filter_map(|m| m.strip_prefix(&prefix)).collect();
    match crate::llm::catalog::cheapest_and_strongest_in(&provider, |m| names.contains(&m)) {
        Some((cheap, strong)) => Some((
            format!("{provider}/{}", cheap.model),
            format!("{provider}/{}", strong.model),
        )),
        None => names
            .first()
            .map(|n| (format!("{provider}/{n}"), format!("{provider}/{n}"))),
    }
}

/// `provider/model` or `offline` → a role. Known providers get their endpoint (or
/// `GHOSTLAB_<PROVIDER>_BASE_URL`); an unknown provider is refused with the list.
pub fn role_from_choice(choice: &str) -> Result<ModelRole, RoleChoiceError> {
    let choice = choice.trim();
    if choice == "offline" {
        return Ok(ModelRole::default());
    }
    let (provider, model) = choice
        .split_once('/')
        .filter(|(p, m)| !p.is_empty() && !m.is_empty() && !choice.contains(char::is_whitespace))
        .ok_or_else(|| RoleChoiceError::NotProviderModel {
            choice: choice.to_string(),
        })?;
    let known = providers::known(provider).ok_or_else(|| RoleChoiceError::UnknownProvider {
        provider: provider.to_string(),
        known: providers::role_providers()
            .iter()
            .map(|k| k.id)
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    let anthropic = known.wire == providers::Wire::Anthropic;
    let base_url = providers::base_url_override(provider)
        .or_else(|| (!anthropic && provider != "openai").then(|| known.base_url.to_string()));
    Ok(ModelRole {
        provider: if anthropic {
            ModelProvider::Anthropic
        } else {
            ModelProvider::Openai
        },
        model: Some(model.to_string()),
        base_url,
        ..ModelRole::default()
    })
}

/// A headless role flag: `offline`, an explicit endpoint (`GHOSTLAB_<P>_BASE_URL` set, so the
/// role gets a base URL other than the provider's default), or a model on `models`.
pub(crate) fn check_flag(flag: &'static str, choice: &str, models: &[String]) -> Result<(), RoleFlagError> {
    let role = role_from_choice(choice).map_err(|source| RoleFlagError::Choice { flag, source })?;
    if choice.trim() == "offline" || models.iter().any(|m| m == choice.trim()) {
        return Ok(());
    }
    let provider = choice.split_once('/').map(|(p, _)| p).unwrap_or_default();
    let default_url = providers::known(provider).map(|k| k.base_url);
    if role.base_url.is_some() && role.base_url.as_deref() != default_url {
        return Ok(());
    }
    Err(RoleFlagError::NotUsable {
        flag,
        choice: choice.to_string(),
        usable: if models.is_empty() {
            "none (set the provider's key, e.g. ANTHROPIC_API_KEY, or `ghostlab auth`)".to_string()
        } else {
            models.join(", ")
        },
    })
}

/// Why a `provider/model` choice for a role is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RoleChoiceError {
    #[error("`{choice}` is not `provider/model` or `offline`")]
    NotProviderModel { choice: String },
    #[error(
        "`{provider}` is not a provider Ghostlab's roles can call ({known}); for another OpenAI-compatible \
         endpoint set provider: openai and base_url in job.yaml"
    )]
    UnknownProvider {
        provider: String,
        /// The providers the roles can call, comma-separated.
        known: String,
    },
}

/// Why a headless role flag (`--judge-model` …) is refused; names the flag.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RoleFlagError {
    #[error("{flag}: {source}")]
    Choice {
        flag: &'static str,
        #[source]
        source: RoleChoiceError,
    },
    #[error(
        "{flag} {choice}: not a model Ghostlab's roles can use now (no key for its provider, or not listed). \
         Usable for the roles: {usable}"
    )]
    NotUsable {
        flag: &'static str,
        choice: String,
        /// The models the roles can use, or how to get one.
        usable: String,
    },
}

/// `anthropic: env ANTHROPIC_API_KEY; ollama: no key needed`, for the providers on `models`.
pub(crate) fn sources_line(authed: &[AuthedProvider], models: &[String]) -> String {
    authed
        .iter()
        .filter(|a| {
            models
                .iter()
                .any(|m| m.split_once('/').is_some_and(|(p, _)| p == a.provider.id))
        })
        .map(|a| format!("{}: {}", a.provider.id, a.source))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn authed(id: &str, source: &str) -> AuthedProvider {
        AuthedProvider {
            provider: providers::known(id).unwrap(),
            source: source.into(),
        }
    }

    #[test]
    fn the_list_is_what_is_listed_and_authenticated_else_the_catalog() {
        let usable = vec![
            "anthropic/claude-haiku-4-5".to_string(),
            "anthropic/claude-sonnet-4-5".to_string(),
            "openai/gpt-4.1".to_string(),
            "google/gemini-2.5-pro".to_string(),
        ];
        let a = [authed("anthropic", "env ANTHROPIC_API_KEY")];
        let list = role_models(Some(&usable), &[], &a);
        assert_eq!(list, ["anthropic/claude-haiku-4-5", "anthropic/claude-sonnet-4-5"]);
        let (cheap, strong) = suggested(&list, Some("openai")).unwrap();
        assert_eq!(cheap, "anthropic/claude-haiku-4-5");
        assert_eq!(
            strong, "anthropic/claude-sonnet-4-5",
            "the strongest listed, not of the catalog"
        );
        // Without OpenCode's list, the catalog's models of the authenticated provider.
        let list = role_models(None, &[], &a);
        assert!(
            list.len() > 2 && list.iter().all(|m| m.starts_with("anthropic/")),
            "{list:?}"
        );
        // A keyless local server counts only when something listed its models.
        let o = [authed("ollama", "no key needed")];
        assert!(role_models(None, &[], &o).is_empty());
        assert_eq!(role_models(None, &["ollama/qwen3".into()], &o), ["ollama/qwen3"]);
        let both = [
            authed("anthropic", "env ANTHROPIC_API_KEY"),
            authed("ollama", "no key needed"),
        ];
        assert_eq!(sources_line(&both, &usable), "anthropic: env ANTHROPIC_API_KEY");
    }

    #[test]
    fn flags_outside_the_list_are_refused_with_it() {
        let list = vec!["anthropic/claude-haiku-4-5".to_string()];
        assert!(check_flag("--judge-model", "anthropic/claude-haiku-4-5", &list).is_ok());
        assert!(check_flag("--judge-model", "offline", &[]).is_ok());
        let err = check_flag("--judge-model", "openai/gpt-4.1", &list)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--judge-model openai/gpt-4.1: not a model") && err.contains("claude-haiku-4-5"),
            "{err}"
        );
        let err = check_flag("--emulator-model", "openai/gpt-4.1", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("none (set the provider's key"), "{err}");
    }

    #[test]
    fn refused_choices_name_the_flag_the_choice_and_the_providers() {
        let err = check_flag("--proposer-model", "gpt-4.1", &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--proposer-model: `gpt-4.1` is not `provider/model` or `offline`"
        );
        assert!(
            std::error::Error::source(&err).is_some(),
            "the choice error stays the source"
        );
        let err = role_from_choice("acme/model-1").unwrap_err().to_string();
        assert!(
            err.starts_with("`acme` is not a provider Ghostlab's roles can call (") && err.contains("anthropic"),
            "{err}"
        );
        assert!(err.ends_with("set provider: openai and base_url in job.yaml"), "{err}");
        assert!(
            role_from_choice("anthropic/ claude").is_err(),
            "whitespace inside a choice is refused"
        );
    }
}
