//! What the HTTP role providers (`openai`, `anthropic`) share around the wire: the client with
//! its connect timeout, the configured headers (`${VAR}` references resolved at call time,
//! every value marked sensitive), and the one validation-and-repair rule for structured output
//! (a violation is sent back once with the exact problem; a second one is `Malformed`).

use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::openai_config::OpenAiConfig;
use super::structured::{repair_instruction, validate_answer};
use super::{ChatMessage, ChatResponse, JsonSchemaSpec, LlmError, Role, Usage};

/// The HTTP client for `config`; refuses a base URL that is not http(s).
pub(crate) fn client_for(config: &OpenAiConfig) -> Result<reqwest::Client, LlmError> {
    if !config.base_url.starts_with("http://") && !config.base_url.starts_with("https://") {
        return Err(LlmError::Config {
            detail: format!("base_url `{}` must start with http:// or https://", config.base_url),
        });
    }
    crate::util::tls::http_client_builder()
        .connect_timeout(config.timeout.min(Duration::from_secs(10)))
        .build()
        .map_err(|e| LlmError::Config {
            detail: format!("cannot build the HTTP client: {e}"),
        })
}

/// A header value that is never logged.
pub(crate) fn sensitive(value: &str, what: &str) -> Result<HeaderValue, LlmError> {
    let mut v = HeaderValue::from_str(value).map_err(|_| LlmError::Config {
        detail: format!("{what} contains characters not allowed in HTTP"),
    })?;
    v.set_sensitive(true);
    Ok(v)
}

/// The job's own headers for the endpoint, references resolved now.
pub(crate) fn configured_headers(config: &OpenAiConfig) -> Result<HeaderMap, LlmError> {
    let mut map = HeaderMap::new();
    for (name, raw) in &config.headers {
        let value = resolve_refs(raw, &format!("header {name}"))?;
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| LlmError::Config {
            detail: format!("`{name}` is not a valid HTTP header name"),
        })?;
        let value = sensitive(&value, &format!("the value of header `{name}`")).map_err(|_| LlmError::Config {
            detail: format!("the value of header `{name}` is not valid in HTTP"),
        })?;
        map.insert(name, value);
    }
    Ok(map)
}

/// Replaces every `${VAR}` in `raw` with the variable's value, or says which one is missing.
pub(crate) fn resolve_refs(raw: &str, what: &str) -> Result<String, LlmError> {
    let mut out = raw.to_string();
    for var in crate::util::secret_ref::referenced_vars(raw) {
        let value = std::env::var(&var).map_err(|_| LlmError::MissingCredential {
            provider: what.to_string(),
            hint: format!("{var} is referenced but not set; export it"),
        })?;
        out = out.replace(&format!("${{{var}}}"), &value);
    }
    Ok(out)
}

/// Checks a structured answer. `Ok(Some(json))`: valid; `Ok(None)`: invalid the first time, so
/// the answer and the problem were appended to `messages` for one more request; `Err`: still
/// invalid after that.
/// The response of a finished exchange (all its attempts' usage, timed from `started`).
pub(crate) fn finish(content: String, model: String, usage: Usage, started: Instant) -> ChatResponse {
    ChatResponse {
        content,
        model,
        usage,
        latency_ms: started.elapsed().as_millis() as u64,
    }
}

pub(crate) fn check_structured(
    content: String,
    spec: &JsonSchemaSpec,
    repaired: &mut bool,
    messages: &mut Vec<ChatMessage>,
    label: &str,
) -> Result<Option<String>, LlmError> {
    match validate_answer(&content, spec) {
        Ok(_) => Ok(Some(super::structured::extract_json(&content).to_string())),
        Err(problem) if !*repaired => {
            *repaired = true;
            tracing::warn!(provider = %label, %problem, "structured answer invalid; asking once more");
            messages.push(ChatMessage::new(Role::Assistant, content));
            messages.push(ChatMessage::new(Role::User, repair_instruction(&problem.to_string())));
            Ok(None)
        }
        Err(problem) => Err(LlmError::Malformed {
            detail: format!("{problem} (still wrong after one retry with the error)"),
        }),
    }
}
