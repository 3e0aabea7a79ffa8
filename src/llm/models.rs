//! `GET {base_url}/models`: which models an OpenAI-compatible endpoint actually serves.
//!
//! Read as `serde_json::Value` because local servers often omit `created`/`owned_by`.

use std::time::Duration;

use serde_json::Value;

use super::LlmError;
use super::openai_http::excerpt;

/// Lists model ids, sorted. `api_key` goes only into the `Authorization` header.
pub(crate) async fn list_models(
    base_url: &str,
    api_key: Option<&str>,
    timeout: Duration,
) -> Result<Vec<String>, LlmError> {
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let client = crate::util::tls::http_client_builder()
        .timeout(timeout)
        .build()
        .map_err(|e| LlmError::Config { detail: e.to_string() })?;
    let mut req = client.get(&url);
    if let Some(k) = api_key {
        req = req.bearer_auth(k);
    }
    let resp = req.send().await.map_err(|e| {
        if e.is_timeout() {
            LlmError::Timeout {
                seconds: timeout.as_secs_f64().ceil() as u64,
            }
        } else {
            LlmError::Unavailable {
                attempts: 1,
                reason: format!("cannot reach {url}: {e}"),
            }
        }
    })?;
    let status = resp.status();
    let text = resp.text().await.unwrap_or_default();
    if !status.is_success() {
        return Err(LlmError::Rejected {
            status: status.as_u16(),
            body: excerpt(&text, 300),
        });
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| LlmError::Malformed {
        detail: format!("GET {url} did not return JSON ({e})"),
    })?;
    let data = value
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| LlmError::Malformed {
            detail: format!("GET {url} returned no `data` array"),
        })?;
    let mut ids: Vec<String> = data
        .iter()
        .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_string))
        .collect();
    ids.sort();
    Ok(ids)
}
