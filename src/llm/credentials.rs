//! API keys: stored in the OS keyring, overridden by environment variables.
//!
//! Store chain: Secret Service (needs a D-Bus session) → Linux kernel keyutils → nothing (then
//! only the environment variable works). Values are wrapped in [`Secret`], whose `Debug` and
//! `Display` print `***`; this module never logs, prints or writes a value anywhere. Every
//! keyring call blocks, so async callers go through [`lookup_async`].

use std::fmt;
use std::sync::Arc;

use keyring_core::{CredentialStore, Entry};

/// Keyring service name under which every Ghostlab key is stored (user = provider).
pub(crate) const SERVICE: &str = "ghostlab";

/// A credential value that refuses to be printed.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    /// Wraps a value and registers it with the redactor, so it is masked in every artifact.
    pub(crate) fn new(value: impl Into<String>) -> Self {
        let value = value.into();
        crate::redact::register_secret(&value);
        Secret(value)
    }
    /// The value itself: only for an HTTP header or a child's environment.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Where a credential was found or stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// This environment variable.
    Env(String),
    SecretService,
    Keyutils,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Env(v) => write!(f, "env {v}"),
            Source::SecretService => f.write_str("secret-service"),
            Source::Keyutils => f.write_str("keyutils"),
        }
    }
}

/// A credential and where it came from.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub(crate) secret: Secret,
    pub(crate) source: Source,
}

/// Keyring failures, without any value in the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CredentialError {
    #[error("no OS keyring is usable here ({0}); export {1} instead")]
    NoStore(String, String),
    #[error("the {store} keyring failed: {message}")]
    Store { store: String, message: String },
    #[error("provider name `{0}` must be letters, digits, `-` or `_`")]
    BadProvider(String),
    #[error("an empty key cannot be stored")]
    Empty,
}

/// `GHOSTLAB_<PROVIDER>_API_KEY`, with non-alphanumerics turned into `_`.
pub(crate) fn env_var_for(provider: &str) -> String {
    format!("GHOSTLAB_{}_API_KEY", crate::util::secret_ref::env_spelling(provider))
}

/// The sentence telling a person how to provide the key.
pub(crate) fn how_to_set(provider: &str) -> String {
    format!(
        "run `ghostlab auth set {provider}` (reads the key from stdin) or export {}",
        env_var_for(provider)
    )
}

fn check_provider(provider: &str) -> Result<(), CredentialError> {
    let ok = !provider.is_empty()
        && provider.len() <= 64
        && provider
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(CredentialError::BadProvider(provider.to_string()))
    }
}

/// Why a keyring store cannot be used (logged at debug; the next store is tried).
#[derive(Debug, thiserror::Error)]
enum StoreUnavailable {
    #[error("no D-Bus session")]
    NoSessionBus,
    #[error(transparent)]
    Store(#[from] keyring_core::Error),
}

type StoreChoice = Result<Arc<CredentialStore>, StoreUnavailable>;

/// Every store in preference order with why it is unusable, if it is. `GHOSTLAB_KEYRING=keyutils`
/// or `=secret-service` restricts the chain to one store (tests, headless machines).
fn chain() -> Vec<(Source, StoreChoice)> {
    let only = std::env::var("GHOSTLAB_KEYRING").unwrap_or_default();
    let mut out: Vec<(Source, StoreChoice)> = Vec::new();
    #[cfg(target_os = "linux")]
    {
        if only.is_empty() || only == "secret-service" {
            // Without a session bus the store cannot connect; say so instead of waiting on D-Bus.
            let store = if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
                Err(StoreUnavailable::NoSessionBus)
            } else {
                zbus_secret_service_keyring_store::Store::new()
                    .map(|s| s as Arc<CredentialStore>)
                    .map_err(StoreUnavailable::from)
            };
            out.push((Source::SecretService, store));
        }
        if only.is_empty() || only == "keyutils" {
            let store = linux_keyutils_keyring_store::Store::new()
                .map(|s| s as Arc<CredentialStore>)
                .map_err(StoreUnavailable::from);
            out.push((Source::Keyutils, store));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = only;
    out
}

/// The usable stores, in preference order.
fn stores() -> Vec<(Source, Arc<CredentialStore>)> {
    chain()
        .into_iter()
        .filter_map(|(source, store)| match store {
            Ok(s) => Some((source, s)),
            Err(why) => {
                tracing::debug!(store = %source, "keyring store unavailable: {why}");
                None
            }
        })
        .collect()
}

fn store_err(source: &Source, e: keyring_core::Error) -> CredentialError {
    CredentialError::Store {
        store: source.to_string(),
        message: e.to_string(),
    }
}

/// Finds the key for `provider`: environment variable first, then each keyring store. Blocks.
pub(crate) fn lookup(provider: &str) -> Result<Option<Found>, CredentialError> {
    check_provider(provider)?;
    let var = env_var_for(provider);
    if let Ok(v) = std::env::var(&var)
        && !v.is_empty()
    {
        return Ok(Some(Found {
            secret: Secret::new(v),
            source: Source::Env(var),
        }));
    }
    for (source, store) in stores() {
        let entry = Entry::new_in_store(&store, SERVICE, provider).map_err(|e| store_err(&source, e))?;
        match entry.get_password() {
            Ok(v) => {
                return Ok(Some(Found {
                    secret: Secret::new(v),
                    source,
                }));
            }
            Err(keyring_core::Error::NoEntry) => continue,
            Err(e) => tracing::debug!(store = %source, "keyring lookup failed: {e}"),
        }
    }
    Ok(None)
}

/// [`lookup`] on the blocking thread pool.
pub(crate) async fn lookup_async(provider: &str) -> Result<Option<Found>, CredentialError> {
    let p = provider.to_string();
    tokio::task::spawn_blocking(move || lookup(&p))
        .await
        .unwrap_or_else(|e| {
            Err(CredentialError::Store {
                store: "keyring".into(),
                message: format!("lookup task failed: {e}"),
            })
        })
}

/// Stores `secret` in the first store that accepts it and returns which one. Blocks.
pub(crate) fn set(provider: &str, secret: &Secret) -> Result<Source, CredentialError> {
    check_provider(provider)?;
    if secret.expose().trim().is_empty() {
        return Err(CredentialError::Empty);
    }
    let mut failures = Vec::new();
    for (source, store) in stores() {
        let attempt =
            Entry::new_in_store(&store, SERVICE, provider).and_then(|entry| entry.set_password(secret.expose()));
        match attempt {
            Ok(()) => return Ok(source),
            Err(e) => failures.push(format!("{source}: {e}")),
        }
    }
    let why = if failures.is_empty() {
        "no Secret Service (D-Bus session) and no kernel keyutils store".to_string()
    } else {
        failures.join("; ")
    };
    Err(CredentialError::NoStore(why, env_var_for(provider)))
}

/// Deletes the key from every store holding it; returns the stores it was removed from. Blocks.
pub(crate) fn remove(provider: &str) -> Result<Vec<Source>, CredentialError> {
    check_provider(provider)?;
    let mut removed = Vec::new();
    let mut failures = Vec::new();
    for (source, store) in stores() {
        let entry = Entry::new_in_store(&store, SERVICE, provider).map_err(|e| store_err(&source, e))?;
        match entry.delete_credential() {
            Ok(()) => removed.push(source),
            Err(keyring_core::Error::NoEntry) => {}
            Err(e) => failures.push(store_err(&source, e)),
        }
    }
    // A store that failed may still hold the key: report that rather than claim success.
    match failures.into_iter().next() {
        Some(e) if removed.is_empty() => Err(e),
        _ => Ok(removed),
    }
}

/// One line per place the key could come from, e.g. `keyutils: set`; never the value. Blocks.
pub(crate) fn status(provider: &str) -> Result<Vec<(String, String)>, CredentialError> {
    check_provider(provider)?;
    let var = env_var_for(provider);
    let env_state = match std::env::var(&var) {
        Ok(v) if !v.is_empty() => "set (overrides the keyring)",
        _ => "not set",
    };
    let mut lines = vec![(format!("env {var}"), env_state.to_string())];
    let all = chain();
    if all.is_empty() {
        lines.push(("keyring".into(), "no store on this platform".into()));
    }
    for (source, store) in all {
        let state = match store {
            Err(why) => format!("unavailable ({why})"),
            Ok(store) => match Entry::new_in_store(&store, SERVICE, provider).and_then(|e| e.get_password()) {
                Ok(_) => "set".to_string(),
                Err(keyring_core::Error::NoEntry) => "not set".to_string(),
                Err(e) => format!("unavailable ({e})"),
            },
        };
        lines.push((source.to_string(), state));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_do_not_print() {
        let s = Secret::new("sk-canary-123");
        assert_eq!(format!("{s} {s:?}"), "*** Secret(***)");
    }

    #[test]
    fn env_names_and_provider_check() {
        assert_eq!(env_var_for("open-ai"), "GHOSTLAB_OPEN_AI_API_KEY");
        assert!(check_provider("openai").is_ok());
        assert!(check_provider("a b").is_err());
        assert!(how_to_set("openai").contains("ghostlab auth set openai"));
    }
}
