//! What Ghostlab knows about OpenCode's built-in providers without asking OpenCode: the AI SDK
//! package each uses, the hosts that package talks to when no `baseURL` is set, and the
//! variables (or the OpenCode login) that supply its credential.
//!
//! The table is `llm::providers::OPENCODE_BUILTIN`, transcribed from opencode-ai 1.18.33; a
//! provider not listed there is resolved through OpenCode's own catalog (`catalog.rs`).

use indexmap::IndexMap;
use serde_json::Value;

use super::error::EndpointProblem;
use crate::sandbox::HostPort;

// The table itself is `llm::providers` (one source for the agent's providers and Ghostlab's
// roles; `llm` is the lower layer). Here: OpenCode's built-ins.
use crate::llm::providers::{KnownProvider, OPENCODE_BUILTIN as KNOWN};

/// The built-in provider with this id.
pub(crate) fn known(id: &str) -> Option<&'static KnownProvider> {
    KNOWN.iter().find(|p| p.id == id)
}

/// Where a value for a host template comes from: the provider block's option, else a
/// variable of Ghostlab's own environment, else OpenCode's default.
fn setting(options: &IndexMap<String, Value>, key: &str, vars: &[&str], default: Option<&str>) -> Option<String> {
    options
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            vars.iter()
                .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        })
        .or(default.map(str::to_string))
}

fn hp(host: &str) -> HostPort {
    HostPort {
        host: host.to_ascii_lowercase(),
        port: 443,
    }
}

/// The hosts an SDK package reaches when the provider block sets no `baseURL`, or an error
/// saying which option is missing (Azure needs its resource name). `None`: not a package
/// this table knows.
pub(crate) fn sdk_default_hosts(
    npm: &str,
    options: &IndexMap<String, Value>,
) -> Option<Result<Vec<HostPort>, EndpointProblem>> {
    let hosts = match npm {
        "@ai-sdk/anthropic" => vec![hp("api.anthropic.com")],
        "@ai-sdk/openai" => vec![hp("api.openai.com")],
        "@ai-sdk/google" => vec![hp("generativelanguage.googleapis.com")],
        // Copilot exchanges the stored GitHub token for a Copilot token first.
        "@ai-sdk/github-copilot" => vec![hp("api.githubcopilot.com"), hp("api.github.com")],
        "@openrouter/ai-sdk-provider" => vec![hp("openrouter.ai")],
        "@ai-sdk/groq" => vec![hp("api.groq.com")],
        "@ai-sdk/mistral" => vec![hp("api.mistral.ai")],
        "@ai-sdk/xai" => vec![hp("api.x.ai")],
        "@ai-sdk/deepseek" => vec![hp("api.deepseek.com")],
        "@ai-sdk/amazon-bedrock" => {
            let region = setting(
                options,
                "region",
                &["AWS_REGION", "AWS_DEFAULT_REGION"],
                Some("us-east-1"),
            )
            .unwrap_or_default();
            vec![hp(&format!("bedrock-runtime.{region}.amazonaws.com"))]
        }
        "@ai-sdk/google-vertex" | "@ai-sdk/google-vertex/anthropic" => {
            let location = setting(
                options,
                "location",
                &["GOOGLE_VERTEX_LOCATION", "GOOGLE_CLOUD_LOCATION", "VERTEX_LOCATION"],
                Some("us-central1"),
            )
            .unwrap_or_default();
            let api = if location == "global" {
                "aiplatform.googleapis.com".to_string()
            } else {
                format!("{location}-aiplatform.googleapis.com")
            };
            // Service-account credentials are exchanged for an access token first.
            vec![hp(&api), hp("oauth2.googleapis.com")]
        }
        "@ai-sdk/azure" => match setting(options, "resourceName", &["AZURE_RESOURCE_NAME"], None) {
            Some(name) => vec![hp(&format!("{name}.openai.azure.com"))],
            None => {
                return Some(Err(EndpointProblem::AzureResourceName));
            }
        },
        _ => return None,
    };
    Some(Ok(hosts))
}

/// The built-in provider whose default host this is (to name it in an error).
pub(crate) fn provider_of_host(host: &str) -> Option<&'static str> {
    let host = host.to_ascii_lowercase();
    let none = IndexMap::new();
    KNOWN.iter().map(|p| (p.id, p.npm)).find_map(|(id, npm)| {
        let hosts = sdk_default_hosts(npm, &none)?.ok()?;
        hosts.iter().any(|h| h.host == host).then_some(id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hosts(npm: &str, options: Value) -> Vec<String> {
        let options: IndexMap<String, Value> = serde_json::from_value(options).unwrap();
        sdk_default_hosts(npm, &options)
            .unwrap()
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn every_known_provider_has_default_hosts() {
        let none = IndexMap::new();
        for p in KNOWN.iter().filter(|p| p.id != "azure") {
            let h = sdk_default_hosts(p.npm, &none).unwrap().unwrap();
            assert!(!h.is_empty(), "{}", p.id);
        }
    }

    #[test]
    fn sdk_defaults() {
        assert_eq!(hosts("@ai-sdk/anthropic", json!({})), ["api.anthropic.com:443"]);
        assert_eq!(hosts("@ai-sdk/openai", json!({})), ["api.openai.com:443"]);
        assert_eq!(
            hosts("@ai-sdk/github-copilot", json!({})),
            ["api.githubcopilot.com:443", "api.github.com:443"]
        );
        assert_eq!(hosts("@ai-sdk/xai", json!({})), ["api.x.ai:443"]);
        assert!(sdk_default_hosts("@ai-sdk/openai-compatible", &IndexMap::new()).is_none());
    }

    #[test]
    fn regional_hosts_come_from_options() {
        assert_eq!(
            hosts("@ai-sdk/amazon-bedrock", json!({"region": "eu-west-1"})),
            ["bedrock-runtime.eu-west-1.amazonaws.com:443"]
        );
        assert_eq!(
            hosts("@ai-sdk/google-vertex", json!({"location": "europe-west4"})),
            [
                "europe-west4-aiplatform.googleapis.com:443",
                "oauth2.googleapis.com:443"
            ]
        );
        assert_eq!(
            hosts("@ai-sdk/google-vertex", json!({"location": "global"}))[0],
            "aiplatform.googleapis.com:443"
        );
        assert_eq!(
            hosts("@ai-sdk/azure", json!({"resourceName": "acme-ai"})),
            ["acme-ai.openai.azure.com:443"]
        );
    }

    #[test]
    fn azure_without_a_resource_name_is_an_error() {
        if std::env::var_os("AZURE_RESOURCE_NAME").is_some() {
            return;
        }
        let err = sdk_default_hosts("@ai-sdk/azure", &IndexMap::new())
            .unwrap()
            .unwrap_err();
        assert!(matches!(err, EndpointProblem::AzureResourceName));
        assert!(err.to_string().contains("resourceName"), "{err}");
    }

    #[test]
    fn hosts_map_back_to_providers() {
        assert_eq!(provider_of_host("API.anthropic.com"), Some("anthropic"));
        assert_eq!(provider_of_host("api.github.com"), Some("github-copilot"));
        assert_eq!(provider_of_host("example.com"), None);
    }
}
