//! A model request refused with HTTP 401/403, and who refused it: the model provider (its
//! credential check) or the sandbox's egress proxy (the host is not on the allowlist).
//!
//! Both reach OpenCode as an HTTP status: the proxy answers a denied `CONNECT` with 403, which
//! OpenCode 1.18.33 reports as an `APIError` with `statusCode: 403` and the request's URL, like
//! a provider's own 403. So the agent host's error alone cannot tell them apart; the egress
//! log can. [`ProviderRefusal::attribute`] takes the endpoints the proxy denied during the case,
//! and the text says "blocked by the sandbox network policy" only when the provider's own
//! endpoint is among them, and "refused the credential" only when it is not. OpenCode does not
//! retry these (it exits at once), so the case ends without waiting.

use super::known::provider_of_host;
use crate::spec::resolved::host_port;

/// A model request the agent host reported as refused with 401 or 403.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderRefusal {
    pub(crate) status: u64,
    /// `(host, port)` of the request's URL, when the host reported it.
    pub(crate) endpoint: Option<(String, u16)>,
    /// The provider id the host belongs to, when the table knows it.
    pub(crate) provider: Option<String>,
    /// The agent host's error message.
    pub(crate) message: String,
    /// The sandbox's egress proxy recorded a denial for `endpoint` during the case.
    pub(crate) blocked_by_policy: bool,
}

impl ProviderRefusal {
    /// The refusal in an agent host's `APIError` with `status` for `url`, or `None` when the
    /// status is not an authentication refusal.
    pub(crate) fn from_error(status: u64, url: Option<&str>, message: &str) -> Option<ProviderRefusal> {
        if status != 401 && status != 403 {
            return None;
        }
        let endpoint = url.and_then(host_port).and_then(|hp| {
            let (host, port) = hp.rsplit_once(':')?;
            Some((host.to_string(), port.parse().ok()?))
        });
        let provider = endpoint
            .as_ref()
            .and_then(|(h, _)| provider_of_host(h))
            .map(str::to_string);
        Some(ProviderRefusal {
            status,
            endpoint,
            provider,
            message: message.to_string(),
            blocked_by_policy: false,
        })
    }

    /// Marks the refusal as the sandbox's when `denied` (the `(host, port)` pairs the egress
    /// proxy refused) holds its endpoint. The proxy only ever answers 403, and its allowlist
    /// does not change during a session, so one denial of the endpoint means no request to it
    /// could have reached the provider.
    pub(crate) fn attribute(&mut self, denied: &[(String, u16)]) {
        self.blocked_by_policy = self.status == 403
            && self
                .endpoint
                .as_ref()
                .is_some_and(|(h, p)| denied.iter().any(|(dh, dp)| dh.eq_ignore_ascii_case(h) && dp == p));
    }

    fn who(&self) -> String {
        match (&self.endpoint, &self.provider) {
            (Some((h, _)), Some(p)) => format!("model provider `{p}` ({h})"),
            (Some((h, _)), None) => format!("the model provider at {h}"),
            _ => "the model provider".to_string(),
        }
    }
}

impl std::fmt::Display for ProviderRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = self.who();
        if self.blocked_by_policy {
            let (h, p) = self
                .endpoint
                .as_ref()
                .map(|(h, p)| (h.as_str(), *p))
                .unwrap_or(("?", 0));
            return write!(
                f,
                "{who} was blocked by the sandbox network policy: the egress proxy denied {h}:{p} (not on the \
                 allowlist), so no request reached the provider and its credential was never checked (the agent \
                 host saw HTTP {}: {}) — add it to sandbox.allow with `network: allowlist`, or set the provider's \
                 options.baseURL; see the egress denials",
                self.status, self.message
            );
        }
        let endpoint = self
            .endpoint
            .as_ref()
            .map(|(h, p)| format!("{h}:{p}"))
            .unwrap_or_else(|| "its host".into());
        let why = if self.status == 401 {
            "the provider refused the credential the sandbox received as missing or invalid (sandbox.credentials)"
        } else {
            "the provider refused the credential the sandbox received (not allowed for this model, project or \
             account; sandbox.credentials)"
        };
        write!(
            f,
            "{who} answered HTTP {}: {} — {why}; the sandbox's egress proxy recorded no denial for {endpoint}",
            self.status, self.message
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describe(status: u64, url: Option<&str>, message: &str) -> Option<String> {
        ProviderRefusal::from_error(status, url, message).map(|r| r.to_string())
    }

    #[test]
    fn names_the_provider_and_status() {
        let t = describe(401, Some("https://api.anthropic.com/v1/messages"), "invalid x-api-key").unwrap();
        assert!(
            t.starts_with("model provider `anthropic` (api.anthropic.com) answered HTTP 401: invalid x-api-key"),
            "{t}"
        );
        assert!(t.contains("refused the credential"), "{t}");
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

    /// The message OpenCode 1.18.33 reports for the proxy's 403 to a denied CONNECT.
    const PROXY_403: &str = "Forbidden: egress to this destination is not allowed by the sandbox policy";

    #[test]
    fn a_denied_endpoint_is_the_sandbox_policy_not_the_credential() {
        let mut r = ProviderRefusal::from_error(403, Some("https://api.openai.com/v1/responses"), PROXY_403).unwrap();
        r.attribute(&[("registry.npmjs.org".into(), 443), ("api.openai.com".into(), 443)]);
        let t = r.to_string();
        assert!(
            t.starts_with("model provider `openai` (api.openai.com) was blocked by the sandbox network policy"),
            "{t}"
        );
        assert!(
            t.contains("denied api.openai.com:443") && !t.contains("refused the credential"),
            "{t}"
        );
    }

    #[test]
    fn without_a_denial_of_that_endpoint_the_provider_refused_the_credential() {
        let url = Some("https://api.openai.com/v1/responses");
        for denied in [
            vec![],
            vec![("registry.npmjs.org".to_string(), 443)],
            vec![("api.openai.com".into(), 80)],
        ] {
            let mut r = ProviderRefusal::from_error(403, url, "Forbidden").unwrap();
            r.attribute(&denied);
            let t = r.to_string();
            assert!(!r.blocked_by_policy && !t.contains("network policy"), "{t}");
            assert!(
                t.contains("answered HTTP 403: Forbidden — the provider refused the credential")
                    && t.ends_with("recorded no denial for api.openai.com:443"),
                "{t}"
            );
        }
        // The proxy never answers 401: a 401 is the provider's, whatever the log holds.
        let mut r = ProviderRefusal::from_error(401, url, "bad key").unwrap();
        r.attribute(&[("api.openai.com".into(), 443)]);
        assert!(!r.blocked_by_policy);
    }
}
