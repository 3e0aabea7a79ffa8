//! OpenCode's own models catalog, read from the pinned binary offline: `opencode models
//! PROVIDER --verbose` prints, per model, its `api.url` and `api.npm`. Used only for providers
//! the static table (`known.rs`) does not know.
//!
//! OpenCode lists a provider only when it has a credential, so the lookup runs in a throwaway
//! HOME with a placeholder key in `OPENCODE_CONFIG_CONTENT` (not a secret; nothing is sent:
//! `models` makes no request and the models fetch is off).

use serde_json::Value;
use std::path::Path;
use std::time::Duration;

use super::error::CatalogError;

/// What the catalog says about one model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogModel {
    /// `provider/model` as OpenCode names it.
    pub id: String,
    /// The API base URL; empty when the SDK package has a default host.
    pub url: String,
    /// The AI SDK package.
    pub(crate) npm: String,
}

/// Longest a catalog lookup may take (a cold start is 5–7 s, far more on a loaded machine).
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(90);

/// Parses `opencode models [PROVIDER] --verbose`: a `provider/model` line, then that model's
/// JSON object (pretty-printed over several lines), repeated.
pub(crate) fn parse_verbose(stdout: &str) -> Vec<CatalogModel> {
    let json_only: String = stdout
        .lines()
        .filter(|l| !l.starts_with(|c: char| c.is_ascii_alphanumeric()))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::Deserializer::from_str(&json_only)
        .into_iter::<Value>()
        .map_while(Result::ok)
        .filter_map(|v| {
            let provider = v.get("providerID")?.as_str()?;
            let model = v.get("id")?.as_str()?;
            Some(CatalogModel {
                id: format!("{provider}/{model}"),
                url: v.pointer("/api/url").and_then(Value::as_str).unwrap_or("").to_string(),
                npm: v.pointer("/api/npm").and_then(Value::as_str).unwrap_or("").to_string(),
            })
        })
        .collect()
}

/// Parses plain `opencode models`: one `provider/model` per line.
pub(crate) fn parse_plain(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(str::trim)
        .filter(|l| {
            l.split_once('/')
                .is_some_and(|(p, m)| !p.is_empty() && !m.is_empty() && !l.contains(' '))
        })
        .map(str::to_string)
        .collect()
}

/// Asks the pinned OpenCode binary for `provider`'s catalog entries, isolated from the user's
/// HOME and config. An error says why (binary missing, timed out, provider unknown).
pub async fn lookup(opencode: &Path, provider: &str) -> Result<Vec<CatalogModel>, CatalogError> {
    let home = tempfile::Builder::new()
        .prefix("ghostlab-catalog-")
        .tempdir()
        .map_err(CatalogError::TempHome)?;
    let h = home.path();
    let placeholder = serde_json::json!({"provider": {provider: {"options": {"apiKey": "catalog-lookup"}}}});
    super::opencode_home::create_tmp(h).map_err(CatalogError::TempHome)?;
    let mut cmd = tokio::process::Command::new(opencode);
    cmd.args(["models", provider, "--verbose"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(super::opencode_home::isolated_env(&h.to_string_lossy()))
        .env("OPENCODE_DISABLE_PROJECT_CONFIG", "1")
        .env("OPENCODE_CONFIG_CONTENT", placeholder.to_string())
        .current_dir(h)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(LOOKUP_TIMEOUT, cmd.output())
        .await
        .map_err(|_| CatalogError::TimedOut {
            provider: provider.to_string(),
            after: LOOKUP_TIMEOUT,
        })?
        .map_err(|source| CatalogError::Run {
            bin: opencode.to_path_buf(),
            source,
        })?;
    let models = parse_verbose(&String::from_utf8_lossy(&out.stdout));
    if models.is_empty() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(CatalogError::UnknownProvider {
            provider: provider.to_string(),
            last_line: err.lines().last().unwrap_or("no output").trim().to_string(),
        });
    }
    Ok(models)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERBOSE: &str = r#"anthropic/claude-x
{
  "id": "claude-x",
  "providerID": "anthropic",
  "api": {
    "id": "claude-x",
    "url": "",
    "npm": "@ai-sdk/anthropic"
  },
  "limit": { "context": 1000 }
}
zai/glm-9
{
  "id": "glm-9",
  "providerID": "zai",
  "api": { "id": "glm-9", "url": "https://api.z.ai/api/paas/v4", "npm": "@ai-sdk/openai-compatible" }
}
"#;

    #[test]
    fn verbose_output_gives_url_and_package_per_model() {
        let m = parse_verbose(VERBOSE);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].id, "anthropic/claude-x");
        assert_eq!(m[0].url, "");
        assert_eq!(m[0].npm, "@ai-sdk/anthropic");
        assert_eq!(m[1].url, "https://api.z.ai/api/paas/v4");
    }

    #[test]
    fn plain_output_is_one_model_per_line() {
        let m = parse_plain("anthropic/claude-x\nopenai/gpt-5\n\nError: something else\n");
        assert_eq!(m, ["anthropic/claude-x", "openai/gpt-5"]);
    }
}
