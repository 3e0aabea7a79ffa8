//! Where a role's API key comes from, in this order:
//! 1. the role's `api_key: ${VAR}` (then only that variable: a named reference never falls back);
//! 2. Ghostlab's own store: `GHOSTLAB_<PROVIDER>_API_KEY`, then the keyring (`ghostlab auth`);
//! 3. the provider's usual variable (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, …);
//! 4. the user's OpenCode login for that provider, only when the job says
//!    `generation.credentials: opencode_auth`. It is read from
//!    `$XDG_DATA_HOME/opencode/auth.json` on the host when a call needs it, never copied.
//!
//! The lookups are injected ([`Sources`]) so the order is table-tested without touching the
//! real environment or keyring. Values stay inside [`Secret`]; errors name places, never values.

use std::path::{Path, PathBuf};

use super::credentials::{self, Found, Secret};
use super::providers;

/// Where a key was found (printed by `auth status`-like messages; never the value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyOrigin {
    RoleVar(String),
    Ghostlab(String),
    ProviderVar(String),
    OpencodeAuth(PathBuf),
}

/// The lookups the chain uses.
pub(crate) struct Sources<'a> {
    pub(crate) env: &'a dyn Fn(&str) -> Option<String>,
    /// Ghostlab's env override and keyring for a provider (`credentials::lookup`).
    pub(crate) ghostlab: &'a dyn Fn(&str) -> Result<Option<Found>, credentials::CredentialError>,
    /// OpenCode's auth.json; `None` when no data directory is known.
    pub(crate) opencode_auth_file: Option<PathBuf>,
}

/// The real environment, keyring and OpenCode data directory.
pub(crate) fn host_sources() -> Sources<'static> {
    Sources {
        env: &|v| std::env::var(v).ok(),
        ghostlab: &credentials::lookup,
        opencode_auth_file: opencode_auth_file(),
    }
}

/// `$XDG_DATA_HOME/opencode/auth.json`, default `~/.local/share/opencode/auth.json`.
pub(crate) fn opencode_auth_file() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("opencode/auth.json"))
}

/// What a role asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRequest {
    /// The provider id whose stores are searched (`anthropic`, `openai`, `openrouter`, …).
    pub(crate) provider: String,
    /// `api_key: ${VAR}` of the role.
    pub(crate) role_var: Option<String>,
    /// `generation.credentials: opencode_auth`.
    pub(crate) opencode_auth: bool,
}

/// Why a role's key cannot be had; the words are the hint the person sees.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RoleKeyError {
    #[error("the job says api_key: ${{{0}}}, but {0} is not set; export it")]
    RoleVarUnset(String),
    #[error("cannot read OpenCode's login file {}: {reason}", file.display())]
    AuthUnreadable { file: PathBuf, reason: String },
    #[error("OpenCode's login file {} is not JSON: {source}", file.display())]
    AuthNotJson {
        file: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// `how` says how to store a key instead.
    #[error("OpenCode holds a `{login}` login for {provider}, not an API key; Ghostlab's roles need a key ({how})")]
    NotAnApiKey {
        login: String,
        provider: String,
        how: String,
    },
}

/// Walks the chain. `Ok(None)`: no key anywhere (fine for a local server); `Err`: a hint for
/// the person, naming what to set.
pub(crate) fn resolve(req: &KeyRequest, s: &Sources) -> Result<Option<(Secret, KeyOrigin)>, RoleKeyError> {
    let nonempty = |v: Option<String>| v.filter(|v| !v.is_empty());
    if let Some(var) = &req.role_var {
        return match nonempty((s.env)(var)) {
            Some(v) => Ok(Some((Secret::new(v), KeyOrigin::RoleVar(var.clone())))),
            None => Err(RoleKeyError::RoleVarUnset(var.clone())),
        };
    }
    match (s.ghostlab)(&req.provider) {
        Ok(Some(found)) => return Ok(Some((found.secret, KeyOrigin::Ghostlab(found.source.to_string())))),
        Ok(None) => {}
        Err(e) => tracing::debug!(provider = %req.provider, "ghostlab keyring unavailable: {e}"),
    }
    if let Some(var) = providers::known(&req.provider).and_then(|k| k.env_var)
        && let Some(v) = nonempty((s.env)(var))
    {
        return Ok(Some((Secret::new(v), KeyOrigin::ProviderVar(var.to_string()))));
    }
    if req.opencode_auth
        && let Some(file) = &s.opencode_auth_file
        && let Some(secret) = from_opencode_auth(file, &req.provider)?
    {
        return Ok(Some((secret, KeyOrigin::OpencodeAuth(file.clone()))));
    }
    Ok(None)
}

/// The sentence telling a person how to give `provider` a key.
pub(crate) fn how_to_set(provider: &str) -> String {
    let usual = providers::known(provider)
        .and_then(|k| k.env_var)
        .map(|v| format!(", export {v}"))
        .unwrap_or_default();
    format!(
        "{}{usual}, or set `generation.credentials: opencode_auth` to use your OpenCode login",
        credentials::how_to_set(provider)
    )
}

/// The API key OpenCode stored for `provider` (`{"<provider>": {"type": "api", "key": …}}`).
/// A missing file or entry is `None`; an OAuth login is refused with a reason, because its
/// token is not an API key.
fn from_opencode_auth(file: &Path, provider: &str) -> Result<Option<Secret>, RoleKeyError> {
    let text = match crate::util::bounded::read_bounded_string(file, crate::util::bounded::FileKind::Config) {
        Ok(t) => t,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => {
            return Err(RoleKeyError::AuthUnreadable {
                file: file.to_path_buf(),
                reason: e.reason(),
            });
        }
    };
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|source| RoleKeyError::AuthNotJson {
        file: file.to_path_buf(),
        source,
    })?;
    let Some(entry) = doc.get(provider) else {
        return Ok(None);
    };
    match entry.get("type").and_then(|t| t.as_str()) {
        Some("api") => Ok(entry
            .get("key")
            .and_then(|k| k.as_str())
            .filter(|k| !k.is_empty())
            .map(Secret::new)),
        Some(other) => Err(RoleKeyError::NotAnApiKey {
            login: other.to_string(),
            provider: provider.to_string(),
            how: credentials::how_to_set(provider),
        }),
        None => Ok(None),
    }
}

#[cfg(test)]
#[path = "role_key_tests.rs"]
mod tests;
