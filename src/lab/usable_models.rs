//! Step 3 from what is authenticated: the models the person can really use, as their own
//! OpenCode lists them (`opencode models` only lists providers that have a credential), each
//! marked with where its credential comes from; and picking one sets the matching opt-in for
//! the Sandbox step.
//!
//! OpenCode runs with the person's environment (their API key variables count) and their
//! global config file (through `OPENCODE_CONFIG`), but in a throwaway HOME holding a private
//! copy of their login file, so their own OpenCode folders are neither read beyond that nor
//! written (OpenCode writes state, and installs a package into its config folder, on every
//! start).

use std::path::Path;
use std::time::Duration;

use crate::providers::auth_file::{AuthFile, user_data_dir};
use crate::providers::catalog::parse_plain;
use crate::providers::known::known;
use crate::spec::Job;

/// Where a provider's credential would come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CredentialSource {
    /// This variable is set in the person's environment.
    Env(String),
    /// Their OpenCode login file has an entry.
    OpencodeLogin,
}

impl std::fmt::Display for CredentialSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CredentialSource::Env(v) => write!(f, "env {v}"),
            CredentialSource::OpencodeLogin => f.write_str("OpenCode login"),
        }
    }
}

/// The credential the person has for `provider`, if any (environment first, as OpenCode).
pub(crate) fn credential_source(provider: &str, auth: Option<&AuthFile>) -> Option<CredentialSource> {
    if let Some(k) = known(provider)
        && let Some(v) = k.env.iter().find(|v| std::env::var(v).is_ok_and(|x| !x.is_empty()))
    {
        return Some(CredentialSource::Env(v.to_string()));
    }
    auth.filter(|a| a.has(provider))
        .map(|_| CredentialSource::OpencodeLogin)
}

/// Why the person's `opencode models` gave no list.
#[derive(Debug, thiserror::Error)]
pub enum UserModelsError {
    /// The isolated HOME it runs in could not be prepared.
    #[error(transparent)]
    Home(#[from] std::io::Error),
    /// Their OpenCode login could not be read.
    #[error(transparent)]
    Login(#[from] crate::util::bounded::BoundedError),
    #[error("`opencode models` took longer than 90 s")]
    Timeout,
    #[error("cannot run {}: {source}", bin.display())]
    Spawn {
        bin: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// It exited with an error; `reason` is the last line it wrote to stderr.
    #[error("`opencode models` failed: {reason}")]
    Failed { reason: String },
}

/// Runs the person's `opencode models` (see the module comment) from `dir`.
pub async fn list_user_models(opencode: &Path, dir: &Path) -> Result<Vec<String>, UserModelsError> {
    let home = tempfile::Builder::new().prefix("ghostlab-models-").tempdir()?;
    let h = home.path();
    let data = h.join(".local/share/opencode");
    std::fs::create_dir_all(&data)?;
    if let Some(src) = user_data_dir().map(|d| d.join("auth.json")).filter(|p| p.is_file()) {
        use std::os::unix::fs::OpenOptionsExt;
        let bytes = crate::util::bounded::read_bounded(&src, crate::util::bounded::FileKind::Config)?;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(data.join("auth.json"))?;
        std::io::Write::write_all(&mut f, &bytes)?;
    }
    // Their config folder would get OpenCode's start-up npm install; the seeded one does not.
    crate::run::environment::provider_home::seed_opencode_config(h)?;
    crate::providers::opencode_home::create_tmp(h)?;
    let mut cmd = tokio::process::Command::new(opencode);
    cmd.arg("models")
        .current_dir(dir)
        .envs(crate::providers::opencode_home::isolated_env(&h.to_string_lossy()))
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    // Their global config still counts (custom providers), from where it really is.
    if let Some(cfg) = user_config_file() {
        cmd.env("OPENCODE_CONFIG", cfg);
    }
    let out = tokio::time::timeout(Duration::from_secs(90), cmd.output())
        .await
        .map_err(|_| UserModelsError::Timeout)?
        .map_err(|source| UserModelsError::Spawn {
            bin: opencode.to_path_buf(),
            source,
        })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(UserModelsError::Failed {
            reason: err.lines().last().unwrap_or("no output").to_string(),
        });
    }
    Ok(parse_plain(&String::from_utf8_lossy(&out.stdout)))
}

fn user_config_file() -> Option<std::path::PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))?;
    ["opencode.json", "opencode.jsonc", "config.json"]
        .iter()
        .map(|f| base.join("opencode").join(f))
        .find(|p| p.is_file())
}

/// After `model` is picked: opt the job into the credential the person has for its provider
/// (nothing when it is already opted in or they have none). Returns the blast-radius note.
pub(crate) fn opt_in_for_model(job: &mut Job, model: &str) -> Option<String> {
    let provider = model.split_once('/')?.0;
    if job
        .agent
        .runtime
        .provider
        .get(provider)
        .is_some_and(|p| p.options.contains_key("baseURL"))
    {
        return None;
    }
    let auth = AuthFile::load_user().ok();
    let creds = &mut job.sandbox.credentials;
    match credential_source(provider, auth.as_ref())? {
        CredentialSource::Env(var) => {
            if !creds.env.contains(&var) {
                creds.env.push(var.clone());
            }
            Some(format!(
                "the agent's key for {provider} ({var}) is inside the sandbox for the run"
            ))
        }
        CredentialSource::OpencodeLogin => {
            creds.opencode_auth = true;
            Some(format!(
                "your OpenCode login for {provider} is inside the sandbox for the run"
            ))
        }
    }
}

/// One note line: each listed model's provider and where its credential comes from.
pub(crate) fn sources_note(models: &[String]) -> Option<String> {
    let auth = AuthFile::load_user().ok();
    let mut seen: Vec<String> = Vec::new();
    let mut parts = Vec::new();
    for m in models {
        let Some((p, _)) = m.split_once('/') else { continue };
        if seen.iter().any(|s| s == p) {
            continue;
        }
        seen.push(p.to_string());
        match credential_source(p, auth.as_ref()) {
            Some(src) => parts.push(format!("{p}: {src}")),
            None if known(p).is_some() => parts.push(format!("{p}: no credential (`opencode auth login {p}`)")),
            None => {}
        }
    }
    (!parts.is_empty()).then(|| format!("Credentials: {}", parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_missing_opencode_is_an_error_naming_the_binary() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("no-such-opencode");
        let err = list_user_models(&bin, dir.path()).await.unwrap_err();
        assert!(
            matches!(&err, UserModelsError::Spawn { bin: b, .. } if *b == bin),
            "{err:?}"
        );
        assert!(
            err.to_string().starts_with(&format!("cannot run {}: ", bin.display())),
            "{err}"
        );
        assert!(
            std::error::Error::source(&err).is_some(),
            "the io error stays the source"
        );
    }
}
