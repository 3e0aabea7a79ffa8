//! Naming a model provider that refused the agent's request for lack of a valid credential
//! (HTTP 401/403), so the case's INFRA_ERROR says which provider and what to check. OpenCode
//! does not retry these (it exits 1 at once), so the case ends without waiting.

use super::known::provider_of_host;
use crate::spec::resolved::host_port;

/// The text for an OpenCode `APIError` with `status` from `url`, or `None` when it is not an
/// authentication refusal.
pub fn describe(status: u64, url: Option<&str>, message: &str) -> Option<String> {
    if status != 401 && status != 403 {
        return None;
    }
    let host = url
        .and_then(host_port)
        .map(|hp| hp.rsplit_once(':').map(|(h, _)| h.to_string()).unwrap_or(hp));
    let who = match (&host, host.as_deref().and_then(provider_of_host)) {
        (Some(h), Some(p)) => format!("model provider `{p}` ({h})"),
        (Some(h), None) => format!("the model provider at {h}"),
        _ => "the model provider".to_string(),
    };
    let hint = if status == 401 {
        "the credential the sandbox received is missing or invalid (sandbox.credentials)"
    } else {
        "the credential was refused, or the sandbox's egress proxy denied the host (see the egress denials)"
    };
    Some(format!("{who} answered HTTP {status}: {message} — {hint}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_provider_and_status() {
        let t = describe(401, Some("https://api.anthropic.com/v1/messages"), "invalid x-api-key").unwrap();
        assert!(
            t.starts_with("model provider `anthropic` (api.anthropic.com) answered HTTP 401: invalid x-api-key"),
            "{t}"
        );
        let t = describe(403, Some("https://llm.example.com/v1/chat"), "Forbidden").unwrap();
        assert!(
            t.contains("the model provider at llm.example.com answered HTTP 403"),
            "{t}"
        );
        assert!(describe(400, None, "bad").is_none());
        assert!(
            describe(401, None, "x")
                .unwrap()
                .starts_with("the model provider answered")
        );
    }
}
