//! Providers Ghostlab's own roles (proposer, emulator, judge) can call directly: the wire each
//! speaks, its default endpoint and the environment variable people usually keep its key in.
//!
//! `anthropic` speaks the Messages API natively; the others are OpenAI-compatible. A role on any
//! other OpenAI-compatible endpoint names it with `provider: openai` and `base_url`.

/// The HTTP dialect of a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `POST /messages` with `x-api-key` and `anthropic-version`.
    Anthropic,
    /// `POST /chat/completions` with `Authorization: Bearer`.
    OpenAi,
}

/// One known provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownProvider {
    /// The id used in `provider/model` (OpenCode's provider id).
    pub id: &'static str,
    pub wire: Wire,
    pub base_url: &'static str,
    /// Where people usually keep the key (`None`: a local server that needs none).
    pub env_var: Option<&'static str>,
}

const fn p(id: &'static str, wire: Wire, base_url: &'static str, env_var: Option<&'static str>) -> KnownProvider {
    KnownProvider {
        id,
        wire,
        base_url,
        env_var,
    }
}

/// Every provider a role can name in `provider/model` (a flag or the wizard's Model step).
pub const KNOWN: &[KnownProvider] = &[
    p(
        "anthropic",
        Wire::Anthropic,
        "https://api.anthropic.com/v1",
        Some("ANTHROPIC_API_KEY"),
    ),
    p(
        "openai",
        Wire::OpenAi,
        "https://api.openai.com/v1",
        Some("OPENAI_API_KEY"),
    ),
    p(
        "openrouter",
        Wire::OpenAi,
        "https://openrouter.ai/api/v1",
        Some("OPENROUTER_API_KEY"),
    ),
    p(
        "deepseek",
        Wire::OpenAi,
        "https://api.deepseek.com/v1",
        Some("DEEPSEEK_API_KEY"),
    ),
    p(
        "mistral",
        Wire::OpenAi,
        "https://api.mistral.ai/v1",
        Some("MISTRAL_API_KEY"),
    ),
    p(
        "groq",
        Wire::OpenAi,
        "https://api.groq.com/openai/v1",
        Some("GROQ_API_KEY"),
    ),
    p("xai", Wire::OpenAi, "https://api.x.ai/v1", Some("XAI_API_KEY")),
    p("ollama", Wire::OpenAi, "http://127.0.0.1:11434/v1", None),
];

/// The provider called `id`.
pub fn known(id: &str) -> Option<&'static KnownProvider> {
    KNOWN.iter().find(|k| k.id == id)
}

/// The known provider whose default endpoint is `base_url` (so a role on OpenRouter's URL uses
/// OpenRouter's key), if any.
pub fn by_base_url(base_url: &str) -> Option<&'static KnownProvider> {
    let norm = |u: &str| u.trim_end_matches('/').to_ascii_lowercase();
    KNOWN.iter().find(|k| norm(k.base_url) == norm(base_url))
}

/// `GHOSTLAB_<PROVIDER>_BASE_URL` if set: points a provider at another endpoint (a proxy, or a
/// local scripted server in tests). Read when a role is created from `provider/model`, and
/// then written into job.yaml, so the job says where it talks to.
pub fn base_url_override(id: &str) -> Option<String> {
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
    }
}
