//! The one table of model providers Ghostlab knows without asking OpenCode: OpenCode's id, the
//! AI SDK package OpenCode loads for it, the variables that carry its credential, whether
//! `opencode auth login` stores one, and — for the providers Ghostlab's own roles (proposer,
//! emulator, judge) can call directly — the wire it speaks and its default endpoint.
//!
//! `providers::known` (the agent's providers: SDK default hosts, credential opt-ins) and the
//! roles (`role_key`, the wizard's step 3) both read it. It lives here, in `llm`, because
//! `providers` sits on a higher layer (docs/ARCHITECTURE.md).
//!
//! Transcribed from opencode-ai 1.18.33 (its catalog and provider loaders). `anthropic` speaks
//! the Messages API natively; the other direct ones are OpenAI-compatible. A role on any other
//! OpenAI-compatible endpoint names it with `provider: openai` and `base_url`.

/// The HTTP dialect of a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// `POST /messages` with `x-api-key` and `anthropic-version`.
    Anthropic,
    /// `POST /chat/completions` with `Authorization: Bearer`.
    OpenAi,
}

/// How Ghostlab's roles call a provider themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Direct {
    pub(crate) wire: Wire,
    pub(crate) base_url: &'static str,
}

/// One provider of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KnownProvider {
    /// OpenCode's provider id (`anthropic` in `anthropic/claude-sonnet-4-5`).
    pub(crate) id: &'static str,
    /// The AI SDK package OpenCode loads for it.
    pub(crate) npm: &'static str,
    /// Variables that carry its credential, in OpenCode's order of preference.
    pub(crate) env: &'static [&'static str],
    /// Whether `opencode auth login <id>` can store a credential for it.
    pub(crate) login: bool,
    /// `None`: Ghostlab's roles cannot call it directly.
    pub(crate) direct: Option<Direct>,
}

const fn builtin(
    id: &'static str,
    npm: &'static str,
    env: &'static [&'static str],
    login: bool,
    direct: Option<Direct>,
) -> KnownProvider {
    KnownProvider {
        id,
        npm,
        env,
        login,
        direct,
    }
}

const fn openai_compatible(base_url: &'static str) -> Option<Direct> {
    Some(Direct {
        wire: Wire::OpenAi,
        base_url,
    })
}

/// OpenCode's built-in providers.
pub(crate) const OPENCODE_BUILTIN: &[KnownProvider] = &[
    builtin(
        "anthropic",
        "@ai-sdk/anthropic",
        &["ANTHROPIC_API_KEY"],
        true,
        Some(Direct {
            wire: Wire::Anthropic,
            base_url: "https://api.anthropic.com/v1",
        }),
    ),
    builtin(
        "openai",
        "@ai-sdk/openai",
        &["OPENAI_API_KEY"],
        true,
        openai_compatible("https://api.openai.com/v1"),
    ),
    builtin(
        "google",
        "@ai-sdk/google",
        &["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
        true,
        None,
    ),
    builtin("github-copilot", "@ai-sdk/github-copilot", &[], true, None),
    builtin(
        "openrouter",
        "@openrouter/ai-sdk-provider",
        &["OPENROUTER_API_KEY"],
        true,
        openai_compatible("https://openrouter.ai/api/v1"),
    ),
    builtin(
        "groq",
        "@ai-sdk/groq",
        &["GROQ_API_KEY"],
        true,
        openai_compatible("https://api.groq.com/openai/v1"),
    ),
    builtin(
        "mistral",
        "@ai-sdk/mistral",
        &["MISTRAL_API_KEY"],
        true,
        openai_compatible("https://api.mistral.ai/v1"),
    ),
    builtin(
        "xai",
        "@ai-sdk/xai",
        &["XAI_API_KEY"],
        true,
        openai_compatible("https://api.x.ai/v1"),
    ),
    builtin(
        "deepseek",
        "@ai-sdk/deepseek",
        &["DEEPSEEK_API_KEY"],
        true,
        openai_compatible("https://api.deepseek.com/v1"),
    ),
    builtin(
        "amazon-bedrock",
        "@ai-sdk/amazon-bedrock",
        &["AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_PROFILE"],
        false,
        None,
    ),
    builtin(
        "google-vertex",
        "@ai-sdk/google-vertex",
        &["GOOGLE_APPLICATION_CREDENTIALS"],
        false,
        None,
    ),
    builtin("azure", "@ai-sdk/azure", &["AZURE_API_KEY"], true, None),
];

/// Providers that are not OpenCode built-ins but that a role can name: a local Ollama (no key).
pub(crate) const LOCAL: &[KnownProvider] = &[builtin(
    "ollama",
    "@ai-sdk/openai-compatible",
    &[],
    false,
    openai_compatible("http://127.0.0.1:11434/v1"),
)];

/// A provider as Ghostlab's roles see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RoleProvider {
    pub(crate) id: &'static str,
    pub(crate) wire: Wire,
    pub(crate) base_url: &'static str,
    /// Where people usually keep the key (`None`: a local server that needs none).
    pub(crate) env_var: Option<&'static str>,
}

/// Every provider a role can name in `provider/model` (a flag or the wizard's Model step).
pub(crate) fn role_providers() -> Vec<RoleProvider> {
    OPENCODE_BUILTIN
        .iter()
        .chain(LOCAL)
        .filter_map(|k| {
            k.direct.map(|d| RoleProvider {
                id: k.id,
                wire: d.wire,
                base_url: d.base_url,
                env_var: k.env.first().copied(),
            })
        })
        .collect()
}

/// The role provider called `id`.
pub(crate) fn known(id: &str) -> Option<RoleProvider> {
    role_providers().into_iter().find(|k| k.id == id)
}

/// The role provider whose default endpoint is `base_url` (so a role on OpenRouter's URL uses
/// OpenRouter's key), if any.
pub(crate) fn by_base_url(base_url: &str) -> Option<RoleProvider> {
    let norm = |u: &str| u.trim_end_matches('/').to_ascii_lowercase();
    role_providers()
        .into_iter()
        .find(|k| norm(k.base_url) == norm(base_url))
}

/// `GHOSTLAB_<PROVIDER>_BASE_URL` if set: points a provider at another endpoint (a proxy, or a
/// local scripted server in tests). Read when a role is created from `provider/model`, and
/// then written into job.yaml, so the job says where it talks to.
pub(crate) fn base_url_override(id: &str) -> Option<String> {
    let var = format!("GHOSTLAB_{}_BASE_URL", id.to_ascii_uppercase().replace('-', "_"));
    std::env::var(var).ok().filter(|v| !v.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_urls_and_variables() {
        assert_eq!(known("anthropic").map(|k| k.wire), Some(Wire::Anthropic));
        assert_eq!(
            by_base_url("https://openrouter.ai/api/v1/").map(|k| k.id),
            Some("openrouter")
        );
        assert_eq!(by_base_url("http://127.0.0.1:9/v1"), None);
        assert_eq!(known("ollama").and_then(|k| k.env_var), None);
        assert_eq!(known("openai").and_then(|k| k.env_var), Some("OPENAI_API_KEY"));
        assert_eq!(known("google"), None, "the roles cannot call every built-in");
        let ids: Vec<&str> = role_providers().iter().map(|k| k.id).collect();
        assert_eq!(
            ids,
            [
                "anthropic",
                "openai",
                "openrouter",
                "groq",
                "mistral",
                "xai",
                "deepseek",
                "ollama"
            ]
        );
    }
}
